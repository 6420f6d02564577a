#include "interp/selection_ops.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "interp/dtype_dispatch.h"
#include "interp/scalar_math.h"
#include "ir/shape_util.h"
#include "ir/selection_shape.h"

namespace stitch::selection {

namespace {

// A tensor seen as [outer, n, inner] around one dim.
struct AroundDim {
  int64_t outer = 1, n = 1, inner = 1;
};

AroundDim around(const Shape& sizes, int64_t dim) {
  AroundDim a;
  if (sizes.empty()) return a;
  for (int64_t d = 0; d < dim; ++d) a.outer *= sizes[d];
  a.n = sizes[dim];
  for (int64_t d = dim + 1; d < (int64_t)sizes.size(); ++d) a.inner *= sizes[d];
  return a;
}

// PyTorch's order: NaN above every number (last ascending, first descending).
template <typename T>
bool before(T a, T b, bool descending) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return descending ? std::isnan(a) && !std::isnan(b)
                                                          : !std::isnan(a) && std::isnan(b);
  }
  return descending ? a > b : a < b;
}

// How a line's (value, index) pairs are ordered. Ties come out as PyTorch's
// CPU kernels leave them because the same standard algorithms run with the
// same comparisons: std::stable_sort or std::sort for sort (the latter
// reorders ties once a line is longer than 16), and for topk
// std::partial_sort when k * 64 <= n, else std::nth_element followed, when
// sorted, by std::sort of the first k - 1.
enum class LineOrder { Stable, Unstable, TopkSorted, TopkUnsorted };

template <typename T>
void orderLine(std::vector<std::pair<T, int64_t>>& line, bool descending, LineOrder order, int64_t k) {
  auto cmp = [descending](const std::pair<T, int64_t>& x, const std::pair<T, int64_t>& y) {
    return before(x.first, y.first, descending);
  };
  switch (order) {
    case LineOrder::Stable: std::stable_sort(line.begin(), line.end(), cmp); return;
    case LineOrder::Unstable: std::sort(line.begin(), line.end(), cmp); return;
    case LineOrder::TopkSorted:
    case LineOrder::TopkUnsorted:
      if (k == 0) return;
      if (k * 64 <= (int64_t)line.size()) {
        std::partial_sort(line.begin(), line.begin() + k, line.end(), cmp);
        return;
      }
      std::nth_element(line.begin(), line.begin() + k - 1, line.end(), cmp);
      if (order == LineOrder::TopkSorted) std::sort(line.begin(), line.begin() + k - 1, cmp);
      return;
  }
}

// Orders every line along `dim` and keeps the first `keep` of each.
std::pair<Tensor, Tensor> orderedPrefix(const Tensor& self, int64_t dim, bool descending,
                                        LineOrder order, int64_t keep) {
  Tensor in = self.contiguous();
  AroundDim a = around(in.sizes(), dim);
  Shape outSizes = in.sizes();
  if (!outSizes.empty()) outSizes[dim] = keep;
  Tensor values = Tensor::uninitialized(outSizes, in.dtype());
  Tensor indices = Tensor::uninitialized(outSizes, DType::i64);
  int64_t* idx = indices.data<int64_t>();
  dispatchDType(in.dtype(), [&]<typename T>() {
    const T* src = in.data<T>();
    T* dst = values.data<T>();
    std::vector<std::pair<T, int64_t>> line((size_t)a.n);
    for (int64_t o = 0; o < a.outer; ++o) {
      for (int64_t i = 0; i < a.inner; ++i) {
        const T* from = src + o * a.n * a.inner + i;
        for (int64_t j = 0; j < a.n; ++j) line[j] = {from[j * a.inner], j};
        orderLine(line, descending, order, keep);
        for (int64_t j = 0; j < keep; ++j) {
          int64_t at = o * keep * a.inner + j * a.inner + i;
          dst[at] = line[j].first;
          idx[at] = line[j].second;
        }
      }
    }
  });
  return {values, indices};
}

// Where the selected slots of an advanced index sit: self seen as
// [outer, block, inner] (block: the indexed dim, or the dims a mask covers),
// `slots` the positions in block the index picks, in order.
struct Selection {
  int64_t outer = 1, block = 1, inner = 1;
  std::vector<int64_t> slots;
  Shape shape;  // the shape of self[index]
};

Selection select(const Tensor& self, int64_t dim, const Tensor& index) {
  Selection s;
  const Shape& sizes = self.sizes();
  Tensor idx = index.contiguous();
  int64_t span = 1;
  if (index.dtype() == DType::b8) {
    span = index.dim();
    advancedIndexShape(sizes, dim, index.dtype(), index.sizes());  // the mask fits
    const bool* m = idx.data<bool>();
    for (int64_t j = 0; j < idx.numel(); ++j)
      if (m[j]) s.slots.push_back(j);
    s.block = idx.numel();
  } else {
    checkAdvancedIndex(index.dtype(), index.dim(), self.dim(), dim);
    s.block = sizes[dim];
    const int64_t* v = idx.data<int64_t>();
    for (int64_t j = 0; j < idx.numel(); ++j) {
      int64_t k = v[j];
      if (k < -s.block || k >= s.block) {
        throw RuntimeFailure(errorMessage("index ", k, " is out of bounds for dimension ", dim,
                                          " with size ", s.block));
      }
      s.slots.push_back(k < 0 ? k + s.block : k);
    }
  }
  for (int64_t d = 0; d < dim; ++d) s.outer *= sizes[d];
  for (int64_t d = dim + span; d < (int64_t)sizes.size(); ++d) s.inner *= sizes[d];
  s.shape.assign(sizes.begin(), sizes.begin() + dim);
  if (index.dtype() == DType::b8) s.shape.push_back((int64_t)s.slots.size());
  else s.shape.insert(s.shape.end(), index.sizes().begin(), index.sizes().end());
  s.shape.insert(s.shape.end(), sizes.begin() + dim + span, sizes.end());
  return s;
}

// Calls f(selfOffset, selectionOffset) for every selected element of a
// contiguous self, in the selection's row-major order.
template <typename F>
void forEachSelected(const Selection& s, F&& f) {
  int64_t at = 0;
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t slot : s.slots)
      for (int64_t i = 0; i < s.inner; ++i) f((o * s.block + slot) * s.inner + i, at++);
}

// Calls f(selfOffset, srcOffset, indexValue) over index's elements for
// scatter: self's coordinates are index's with `dim` replaced by the value.
template <typename F>
void forEachScattered(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      F&& f) {
  Tensor idx = index.contiguous();
  const int64_t* v = idx.data<int64_t>();
  const Shape indexShape = scatterShape(index.sizes());
  const int64_t rank = (int64_t)indexShape.size();
  const Shape selfShape = scatterShape(self.sizes());
  Shape selfStrides = contiguousStrides(selfShape);
  Shape srcStrides = src.defined() ? contiguousStrides(scatterShape(src.sizes())) : Shape(rank, 0);
  int64_t dimSize = selfShape[dim];
  std::vector<int64_t> counter(rank, 0);
  for (int64_t k = 0, n = idx.numel(); k < n; ++k) {
    int64_t target = v[k];
    if (target < -dimSize || target >= dimSize) {
      throw RuntimeFailure(errorMessage("index ", target, " is out of bounds for dimension ", dim,
                                        " with size ", dimSize));
    }
    if (target < 0) target += dimSize;
    int64_t selfOffset = 0, srcOffset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      selfOffset += (d == dim ? target : counter[d]) * selfStrides[d];
      srcOffset += counter[d] * srcStrides[d];
    }
    f(selfOffset, srcOffset);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++counter[d] < indexShape[d]) break;
      counter[d] = 0;
    }
  }
}

void checkScatterIndex(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (index.dtype() != DType::i64) throw UserError("scatter(): Expected dtype int64 for index");
  checkScatterShapes(self.sizes(), dim, index.sizes(), src ? std::optional<Dims>(src->sizes()) : std::nullopt);
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  int64_t d = normalizeDim(dim, std::max<int64_t>(self.dim(), 1));
  return orderedPrefix(self, d, descending, stable ? LineOrder::Stable : LineOrder::Unstable,
                       self.dim() == 0 ? 1 : self.size(d));
}

std::pair<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                               bool sorted) {
  int64_t d = normalizeDim(dim, std::max<int64_t>(self.dim(), 1));
  checkTopk(k, self.dim() == 0 ? 1 : self.size(d));
  return orderedPrefix(self, d, largest, sorted ? LineOrder::TopkSorted : LineOrder::TopkUnsorted, k);
}

Tensor nonzero(const Tensor& self) {
  Tensor in = self.contiguous();
  int64_t rank = in.dim();
  std::vector<int64_t> found;
  dispatchDType(in.dtype(), [&]<typename T>() {
    const T* v = in.data<T>();
    for (int64_t j = 0, n = in.numel(); j < n; ++j)
      if (v[j] != T(0)) found.push_back(j);
  });
  Tensor out = Tensor::uninitialized({(int64_t)found.size(), rank}, DType::i64);
  int64_t* dst = out.data<int64_t>();
  for (int64_t j : found) {
    for (int64_t d = rank - 1; d >= 0; --d) {
      dst[d] = j % in.size(d);
      j /= in.size(d);
    }
    dst += rank;
  }
  return out;
}

Tensor maskedSelect(const Tensor& self, const Tensor& mask) {
  checkMaskedSelectMask(mask.dtype());
  Shape shape = broadcastShapes(self.sizes(), mask.sizes());
  // Both as 1-d views of contiguous copies: the mask then covers dim 0.
  Tensor m = mask.expandTo(shape).contiguous();
  Tensor values = self.expandTo(shape).contiguous();
  return indexGet(values.asStrided({values.numel()}, {1}, values.offset()), 0,
                  m.asStrided({m.numel()}, {1}, m.offset()));
}

Tensor indexGet(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor in = self.contiguous();
  Selection s = select(in, dim, index);
  Tensor out = Tensor::uninitialized(s.shape, in.dtype());
  dispatchDType(in.dtype(), [&]<typename T>() {
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    forEachSelected(s, [&](int64_t from, int64_t to) { dst[to] = src[from]; });
  });
  return out;
}

Tensor indexPut(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& values,
                bool accumulate) {
  checkIndexPutDTypes(self.dtype(), values.dtype());
  Tensor out = self.clone();
  Selection s = select(out, dim, index);
  Tensor v = values.expandTo(checkIndexPutValues(values.sizes(), s.shape)).contiguous();
  dispatchDType(out.dtype(), [&]<typename T>() {
    T* dst = out.data<T>();
    const T* src = v.data<T>();
    forEachSelected(s, [&](int64_t to, int64_t from) {
      if (accumulate) dst[to] = wrapAdd(dst[to], src[from]);
      else dst[to] = src[from];
    });
  });
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  int64_t d = normalizeDim(dim, std::max<int64_t>(self.dim(), 1));
  checkScatterIndex(self, d, index, &src);
  if (src.dtype() != self.dtype())
    throw UserError("scatter(): Expected self.dtype to be equal to src.dtype");
  Tensor out = self.clone();
  Tensor from = src.contiguous();
  dispatchDType(out.dtype(), [&]<typename T>() {
    T* dst = out.data<T>();
    const T* s = from.data<T>();
    forEachScattered(out, d, index, from, [&](int64_t to, int64_t at) {
      dst[to] = add ? wrapAdd(dst[to], s[at]) : s[at];
    });
  });
  return out;
}

Tensor scatterValue(const Tensor& self, int64_t dim, const Tensor& index, const IValue& value) {
  int64_t d = normalizeDim(dim, std::max<int64_t>(self.dim(), 1));
  checkScatterIndex(self, d, index, nullptr);
  Tensor out = self.clone();
  Tensor v = value.isDouble() ? scalarTensor(value.toDouble(), out.dtype())
                              : scalarTensorInt(value.toInt(), out.dtype());
  dispatchDType(out.dtype(), [&]<typename T>() {
    T* dst = out.data<T>();
    T x = *v.data<T>();
    forEachScattered(out, d, index, Tensor(), [&](int64_t to, int64_t) { dst[to] = x; });
  });
  return out;
}

}  // namespace stitch::selection
