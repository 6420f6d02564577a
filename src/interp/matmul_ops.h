// Matrix products on interpreter tensors: torch.matmul (dot, matrix-vector,
// batched with broadcast batch dims), mm, bmm and linear. Operands may have
// any strides; results are new contiguous tensors. The kernel walks
// (row, k, column) with the column loop innermost and contiguous, in tiles
// that keep a block of the right operand in cache; f32 accumulates in f32 as
// PyTorch's BLAS does.
#pragma once
#include <optional>

#include "interp/tensor.h"

namespace stitch {

Tensor matmulTensors(const Tensor& a, const Tensor& b);
Tensor mmTensors(const Tensor& a, const Tensor& b);
Tensor bmmTensors(const Tensor& a, const Tensor& b);
Tensor linearTensors(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias);

// out[batch..., m, n] = sum_k a[batch..., m, k] * b[batch..., k, n] for
// operands already broadcast to the same batch shape (stride 0 allowed) and
// of one dtype; `out` is contiguous (overwritten).
void batchedGemm(const Tensor& a, const Tensor& b, const Tensor& out);

}  // namespace stitch
