// torch.einsum on interpreter tensors. Each operand first takes its
// diagonals (repeated subscripts), broadcasts size-1 dims and sums away the
// subscripts no one else needs; operands are then contracted left to right,
// each step permuted and reshaped into one batched matrix product
// [batch, m, k] x [batch, k, n]. The result is a new tensor (never a view).
#pragma once
#include <string>
#include <vector>

#include "interp/tensor.h"

namespace stitch {

Tensor einsumTensors(const std::string& equation, const std::vector<Tensor>& operands);

}  // namespace stitch
