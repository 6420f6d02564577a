// Ops that map every line along one dim to a line of the same length:
// softmax, log_softmax (numerically stable: the line's max is subtracted
// first) and the scans cumsum, cumprod. PyTorch's dtype rules; float lines
// accumulate in double. `dim` may be negative.
#pragma once
#include <optional>

#include "interp/tensor.h"

namespace stitch {

Tensor softmaxAlongDim(const Tensor& x, int64_t dim, std::optional<DType> dtype, bool logSoftmax);
Tensor cumulativeAlongDim(const Tensor& x, int64_t dim, std::optional<DType> dtype, bool product);

}  // namespace stitch
