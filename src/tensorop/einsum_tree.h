// Lowering of an einsum tree to TensorOperations. Each contraction node maps
// its dims onto the column-major BRGEMM (M contiguous in in0 and out, K or N
// contiguous in in1); where an operand's layout does not fit, a permutation
// (identity with transposed strides) is inserted before or after it.
#pragma once
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stitch/tensorop.h"
#include "tensorop/einsum_parse.h"

namespace stitch::tensorop {

class EinsumTreeImpl {
 public:
  EinsumTreeImpl(const std::string& expression,
                 const std::map<std::string, int64_t>& sizes, int threads, Isa isa);
  void execute(const std::vector<const float*>& inputs, float* output) const;

  struct Tensor {
    int buffer = -1;  // index into buffers_; kInput + i for input i; kOutput
    std::vector<std::string> dims;
  };
  struct Step {
    TensorOperation op;
    int in0 = -1, in1 = -1, out = -1;
  };
  static constexpr int kNoTarget = -1;  // lower/permute: allocate a buffer
  static constexpr int kOutput = -2;
  static constexpr int kInputBase = 1 << 20;

  std::unique_ptr<EinsumNode> root;
  std::vector<std::vector<std::string>> inputDims;
  std::map<std::string, int64_t> sizes;
  std::vector<Step> steps;
  double flops = 0;

 private:
  struct FreeDeleter {
    void operator()(float* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<float, FreeDeleter>> buffers_;
  OptimizerOptions options_;
  Isa isa_;

  void checkTensorSizes(const EinsumNode& node) const;
  void collectInputs(const EinsumNode& node);
  Tensor lower(const EinsumNode& node, int target);
  Tensor permute(const Tensor& src, const std::vector<std::string>& dims, int target);
  void contract(Tensor a, Tensor b, const std::vector<std::string>& outDims, int target);
  int newBuffer(const std::vector<std::string>& dims);
  int64_t elements(const std::vector<std::string>& dims) const;
  std::vector<int64_t> strides(const std::vector<std::string>& dims) const;
  const float* pointer(int buffer, const std::vector<const float*>& inputs,
                       float* output) const;
};

}  // namespace stitch::tensorop
