// Ops that pick elements by value or by index tensor, with PyTorch's
// semantics: sort / topk (NaN above every number; ties in the order
// PyTorch's CPU kernels leave them, see orderLine), nonzero,
// masked_select, advanced indexing with one index tensor (`x[idx]`,
// `x[mask]`, `x[idx] = v`) and scatter. Every result is a new contiguous
// tensor; the in-place ops' kernels copy the result back into self.
#pragma once
#include <utility>

#include "interp/ivalue.h"
#include "interp/tensor.h"

namespace stitch::selection {

// (values, indices) sorted along `dim`.
std::pair<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending, bool stable);
// The k largest (or smallest) along `dim`; unsorted, in PyTorch's order.
std::pair<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                               bool sorted);
// [number of non-zero elements, rank] indices in row-major order.
Tensor nonzero(const Tensor& self);
// The elements of self (broadcast with mask) where mask is true, as 1-d.
Tensor maskedSelect(const Tensor& self, const Tensor& mask);
// self[:, ..., index] with the index tensor at dim `dim`: an integer index
// replaces that dim by its own shape; a bool mask of rank m replaces dims
// dim..dim+m-1 by one dim of its true count.
Tensor indexGet(const Tensor& self, int64_t dim, const Tensor& index);
// A copy of self with the slots indexGet would read set to (or, with
// accumulate, incremented by) values broadcast to their shape.
Tensor indexPut(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& values,
                bool accumulate);
// A copy of self with self[..index[p]..] (index[p] at dim, p's other
// coordinates elsewhere) set to src[p] or, with add, incremented by it.
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add);
Tensor scatterValue(const Tensor& self, int64_t dim, const Tensor& index, const IValue& value);

}  // namespace stitch::selection
