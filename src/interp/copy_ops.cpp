#include "interp/copy_ops.h"

#include <cstdint>
#include <cstring>

#include "interp/dtype_dispatch.h"
#include "interp/view_ops.h"
#include "ir/shape_util.h"
#include "ir/view_shape.h"

namespace stitch::copies {

namespace {

std::vector<Dims> shapesOf(const std::vector<Tensor>& ts) {
  std::vector<Dims> out;
  for (const Tensor& t : ts) out.push_back(t.sizes());
  return out;
}

DType promotedDType(const std::vector<Tensor>& ts) {
  DType d = ts.at(0).dtype();
  for (const Tensor& t : ts) d = promoteTypes(d, t.dtype());
  return d;
}

// out[..., k, ...] = self[..., index[...k...], ...] over index's shape; out
// is contiguous with index's shape.
template <typename T>
void gatherInto(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  const Shape& sizes = index.sizes();
  int64_t rank = (int64_t)sizes.size();
  int64_t dimSize = self.dim() == 0 ? 1 : self.size(dim);
  int64_t dimStride = self.dim() == 0 ? 0 : self.stride(dim);
  const T* src = self.data<T>();
  const int64_t* idx = index.data<int64_t>();
  T* dst = out.data<T>();
  std::vector<int64_t> counter(rank, 0);
  int64_t selfOffset = 0, indexOffset = 0;
  int64_t n = out.numel();
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = idx[indexOffset];
    if (v < 0 || v >= dimSize) {
      throw RuntimeFailure(errorMessage("index ", v, " is out of bounds for dimension ", dim,
                                        " with size ", dimSize));
    }
    dst[k] = src[selfOffset + v * dimStride];
    // Odometer step over index's shape; self walks every dim but `dim`.
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t selfStride = d == dim ? 0 : self.stride(d);
      ++counter[d];
      indexOffset += index.stride(d);
      selfOffset += selfStride;
      if (counter[d] < sizes[d]) break;
      indexOffset -= sizes[d] * index.stride(d);
      selfOffset -= sizes[d] * selfStride;
      counter[d] = 0;
    }
  }
}

template <typename T>
void zeroOutsideTriangle(const Tensor& out, int64_t diagonal, bool lower) {
  int64_t rows = out.size(out.dim() - 2), cols = out.size(out.dim() - 1);
  if (rows == 0 || cols == 0) return;
  int64_t batches = out.numel() / (rows * cols);
  T* data = out.data<T>();
  for (int64_t b = 0; b < batches; ++b) {
    T* m = data + b * rows * cols;
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        bool keep = lower ? j - i <= diagonal : j - i >= diagonal;
        if (!keep) m[i * cols + j] = T(0);
      }
    }
  }
}

Tensor triangular(const Tensor& self, int64_t diagonal, bool lower) {
  checkTriangularRank(self.dim());
  Tensor out = self.clone();
  dispatchDType(out.dtype(), [&]<typename T>() { zeroOutsideTriangle<T>(out, diagonal, lower); });
  return out;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  CatPlan plan = planCat(shapesOf(tensors), dim);
  // The participating pieces cover the output: no zero fill.
  Tensor out = Tensor::uninitialized(plan.shape, promotedDType(tensors));
  int64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!plan.participates[i]) continue;
    int64_t len = tensors[i].size(plan.dim);
    if (len > 0) views::narrow(out, plan.dim, offset, len).copyFrom(tensors[i]);
    offset += len;
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  Dims shape = stackShape(shapesOf(tensors), dim);
  int64_t d = normalizeDim(dim, (int64_t)shape.size());
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(views::unsqueeze(t, d));
  return cat(parts, d);
}

Tensor indexSelect(const Tensor& self, int64_t dim, const Tensor& index) {
  checkIndexSelectIndex(index.dtype(), index.dim());
  int64_t d = normalizeDim(dim, self.dim());
  int64_t count = index.numel();
  if (self.dim() == 0) {
    if (count != 1) {
      throw UserError(errorMessage("index_select(): Index to scalar can have only 1 value, got ",
                                   count, " value(s)"));
    }
    if (index.getInt(0) != 0) throw RuntimeFailure("index out of range in self");
    return self.clone();
  }
  Shape sizes = self.sizes();
  int64_t dimSize = sizes[d];
  sizes[d] = count;
  Tensor out = Tensor::uninitialized(sizes, self.dtype());  // every run is copied below
  // Over a contiguous self, each picked slice is `outer` runs of `inner`
  // contiguous elements.
  Tensor src = self.contiguous();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= sizes[i];
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= sizes[i];
  size_t runBytes = (size_t)inner * dtypeSize(self.dtype());
  const uint8_t* from = static_cast<const uint8_t*>(src.rawData());
  uint8_t* to = static_cast<uint8_t*>(out.rawData());
  for (int64_t k = 0; k < count; ++k) {
    int64_t v = index.getInt(k);
    if (v < 0 || v >= dimSize) throw RuntimeFailure("index out of range in self");
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(to + (o * count + k) * runBytes, from + (o * dimSize + v) * runBytes, runBytes);
    }
  }
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  int64_t d = normalizeDim(dim, self.dim());
  checkGatherIndex(index.dtype(), self.sizes(), index.sizes(), d);
  Tensor out = Tensor::empty(index.sizes(), self.dtype());
  dispatchDType(self.dtype(), [&]<typename T>() { gatherInto<T>(self, d, index, out); });
  return out;
}

Tensor to(const Tensor& self, DType dtype) {
  if (self.dtype() == dtype) return self;
  return self.to(dtype);
}

Tensor repeat(const Tensor& self, const std::vector<int64_t>& repeats) {
  Shape outSizes = repeatShape(self.sizes(), repeats);
  Tensor out = Tensor::empty(outSizes, self.dtype());
  if (out.numel() == 0) return out;
  // View out as [r0, s0, r1, s1, ...] and copy self, broadcast over every r.
  size_t lead = repeats.size() - (size_t)self.dim();
  Shape pairSizes, outStrides, srcStrides;
  Shape contiguous = contiguousStrides(outSizes);
  for (size_t i = 0; i < repeats.size(); ++i) {
    int64_t s = i < lead ? 1 : self.size(i - lead);
    pairSizes.insert(pairSizes.end(), {repeats[i], s});
    outStrides.insert(outStrides.end(), {s * contiguous[i], contiguous[i]});
    srcStrides.insert(srcStrides.end(), {0, i < lead ? 0 : self.stride(i - lead)});
  }
  Tensor dst = out.asStrided(pairSizes, outStrides, out.offset());
  dst.copyFrom(self.asStrided(pairSizes, srcStrides, self.offset()));
  return out;
}

Tensor flip(const Tensor& self, const std::vector<int64_t>& dims) {
  return views::reversed(self, dims).clone();
}

Tensor tril(const Tensor& self, int64_t diagonal) { return triangular(self, diagonal, true); }
Tensor triu(const Tensor& self, int64_t diagonal) { return triangular(self, diagonal, false); }

}  // namespace stitch::copies
