// Tensor-level view ops with PyTorch's semantics. Each returns a tensor that
// shares the input's storage (a write through it reaches the input), except
// where PyTorch itself copies: reshape / flatten when no view exists, and
// contiguous() of a non-contiguous tensor.
#pragma once
#include <optional>
#include <vector>

#include "interp/tensor.h"

namespace stitch::views {

Tensor view(const Tensor& t, const Shape& size);      // size may hold one -1
Tensor reshape(const Tensor& t, const Shape& size);   // view if possible, else a copy
Tensor permute(const Tensor& t, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& t);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor squeeze(const Tensor& t);                       // every size-1 dim
Tensor squeeze(const Tensor& t, int64_t dim);
Tensor expand(const Tensor& t, const Shape& size);    // -1 keeps a dim
Tensor flatten(const Tensor& t, int64_t startDim, int64_t endDim);
Tensor contiguous(const Tensor& t);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> end, int64_t step);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim);
std::vector<Tensor> split(const Tensor& t, int64_t splitSize, int64_t dim);
std::vector<Tensor> splitWithSizes(const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim);
Tensor movedim(const Tensor& t, int64_t source, int64_t destination);
// A view with reversed order along `dims` (negative strides); flip() copies it.
Tensor reversed(const Tensor& t, const std::vector<int64_t>& dims);

}  // namespace stitch::views
