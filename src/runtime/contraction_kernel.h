// Predefined contraction kernels through the tensor-operation backend
// (JIT-generated GEMM kernels driven by tensorop TensorOperations), for the
// matmul family on f32 operands whose layout maps onto one product without
// broadcasting:
//
//   mm(A[m,k], B[k,n]), matmul(A[..,m,k], B[k,n])   leading dims of A folded into m
//   bmm(A[b,m,k], B[b,k,n]), matmul of two 3-d      batched
//   linear(X[..,k], W[n,k], bias)                   B(k, n) = W[n, k], + bias
//
// The reference interpreter accumulates f32 products in double; a plain f32
// GEMM over a long k drifts from it by more than --check's tolerance (at
// k = 1935 by ~3e-4 relative on an element where the terms cancel). So the
// k loop runs in chunks of kChunk: each chunk is one f32 GEMM (short enough
// that its rounding stays ~1e-7 relative), and the chunks' partial products
// are summed in double, then rounded once, as the interpreter rounds. The
// work is split into tiles of rows of C, as many as the threads share
// evenly; each thread runs whole tiles, so a tile's f32 partial and f64 sum
// stay in its cache across the chunks. Other shapes and dtypes get no
// kernel here; the runtime then runs the interpreter's routine.
#pragma once
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "interp/tensor.h"
#include "ir/graph.h"
#include "stitch/tensorop.h"

namespace stitch {

class ContractionKernel {
 public:
  // Products of this many k steps run as one f32 GEMM.
  static constexpr int64_t kChunk = 64;
  // At most this many rows of C per tile (n = 1024: partial and sum 768 KiB).
  static constexpr int64_t kMaxTileRows = 64;

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
  ContractionKernel(Form form, int threads);
  // C tile (rows x n, row-major) = A rows (stride k) x B chunk of kc rows.
  const tensorop::TensorOperation& tileProduct(int64_t rows, int64_t kc) const;

  Form form_;
  int threads_ = 1;
  int64_t tileRows_ = 1;
  // Keyed by (rows, kc): full tiles and chunks, and the shorter last ones.
  std::map<std::pair<int64_t, int64_t>, tensorop::TensorOperation> products_;
};

}  // namespace stitch
