// Tensor-level copy ops with PyTorch's semantics: every result is a new
// contiguous tensor (except to() with an unchanged dtype, which is the input).
#pragma once
#include <vector>

#include "interp/tensor.h"

namespace stitch::copies {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
Tensor indexSelect(const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor to(const Tensor& self, DType dtype);
Tensor repeat(const Tensor& self, const std::vector<int64_t>& repeats);
Tensor flip(const Tensor& self, const std::vector<int64_t>& dims);
// Keeps the elements on and below (tril) / above (triu) the `diagonal`-th
// diagonal of the last two dims, zeroing the rest.
Tensor tril(const Tensor& self, int64_t diagonal);
Tensor triu(const Tensor& self, int64_t diagonal);

}  // namespace stitch::copies
