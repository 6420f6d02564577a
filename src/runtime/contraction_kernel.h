// Predefined contraction kernels through the tensor-operation backend
// (tensorop's einsum trees: JIT-generated BRGEMM kernels, OpenMP over
// their shared loops), for the matmul family on f32 operands whose layout
// maps onto one product without broadcasting:
//
//   mm(A[m,k], B[k,n]), matmul(A[..,m,k], B[k,n])   leading dims of A folded into m
//   bmm(A[b,m,k], B[b,k,n]), matmul of two 3-d      batched
//   linear(X[..,k], W[n,k], bias)                   B(k, n) = W[n, k], + bias
//
// The reference interpreter accumulates f32 products in double; a plain f32
// GEMM over a long k drifts from it by more than --check's tolerance (at
// k = 1935 by ~3e-4 relative on an element where the terms cancel). So the
// k loop runs in chunks of kChunk: each chunk is one f32 GEMM of the
// packed operand slices (short enough that its rounding stays ~1e-7
// relative), and the chunks' partial products are summed in double, then
// rounded once, as the interpreter rounds. Other shapes and dtypes get no
// kernel here; the runtime then runs the interpreter's routine.
#pragma once
#include <memory>
#include <vector>

#include "interp/tensor.h"
#include "ir/graph.h"
#include "stitch/tensorop.h"

namespace stitch {

class ContractionKernel {
 public:
  // Products of this many k steps run as one f32 GEMM.
  static constexpr int64_t kChunk = 64;

  // nullptr when the backend cannot run this node (see above).
  static std::unique_ptr<ContractionKernel> create(const Node& node, int threads);

  // operands: the node's tensor inputs in order (dense, contiguous, f32, of
  // the static shapes); out: a contiguous f32 tensor of the output's shape.
  void run(const std::vector<const Tensor*>& operands, Tensor& out) const;

  struct Form {
    int64_t batch = 1, m = 1, n = 1, k = 1;
    bool transposedB = false;  // linear: B(k, n) at W[n * k_size + k]
    bool bias = false;         // linear with a bias operand (input 2)
  };

 private:
  ContractionKernel(Form form, std::unique_ptr<tensorop::EinsumTree> full,
                    std::unique_ptr<tensorop::EinsumTree> tail);

  Form form_;
  std::unique_ptr<tensorop::EinsumTree> full_;  // one chunk of kChunk k steps
  std::unique_ptr<tensorop::EinsumTree> tail_;  // the last, shorter chunk (null when none)
};

}  // namespace stitch
