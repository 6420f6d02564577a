// Shape and dtype checks of the contraction ops (mm, bmm, matmul, linear)
// with PyTorch's messages, shared by the static type rules and the
// interpreter's kernels. Dims may hold -1 (unknown); checks skip what is not
// known. Functions throw UserError without a location.
#pragma once
#include <optional>

#include "ir/dtype.h"
#include "ir/shape_util.h"

namespace stitch {

// Both operands of a product must have one dtype, and not bool. `rankA` and
// `rankB` pick PyTorch's message for the case (-1: unknown).
DType matmulDType(DType a, DType b, int64_t rankA, int64_t rankB);
// mm: two matrices. bmm: two batches of matrices with one batch size.
Dims mmShape(const Dims& a, const Dims& b);
Dims bmmShape(const Dims& a, const Dims& b);
// linear(x, w, bias) = x @ w^T + bias; w is [out, in] or [in]; the bias must
// broadcast to the product's shape without growing it.
Dims linearShape(const Dims& x, const Dims& w, const std::optional<Dims>& bias);
// fused.attention(q, k, v): softmax(q @ k^T) @ v, k not transposed; the
// checks and messages of the two products it replaces.
Dims attentionShape(const Dims& q, const Dims& k, const Dims& v);
// linear's bias must have the product's dtype.
void checkLinearBiasDType(DType product, DType bias);

}  // namespace stitch
