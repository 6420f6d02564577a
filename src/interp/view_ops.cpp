#include "interp/view_ops.h"

#include <algorithm>

#include "ir/shape_util.h"
#include "ir/view_shape.h"

namespace stitch::views {

namespace {

// A view of `length` elements along `dim` starting at `start`, every `step`.
Tensor strideAlong(const Tensor& t, int64_t dim, int64_t start, int64_t length, int64_t step) {
  Shape sizes = t.sizes();
  Shape strides = t.strides();
  int64_t offset = t.offset() + start * strides[dim];
  sizes[dim] = length;
  strides[dim] *= step;
  return t.asStrided(sizes, strides, offset);
}

std::vector<Tensor> piecesAlong(const Tensor& t, int64_t dim, const std::vector<int64_t>& lengths) {
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t len : lengths) {
    out.push_back(strideAlong(t, dim, start, len, 1));
    start += len;
  }
  return out;
}

}  // namespace

Tensor view(const Tensor& t, const Shape& size) {
  Shape sizes = inferViewShape(size, t.numel());
  std::optional<Shape> strides = computeViewStrides(t.sizes(), t.strides(), sizes);
  if (!strides) throwViewIncompatible();
  return t.asStrided(sizes, *strides, t.offset());
}

Tensor reshape(const Tensor& t, const Shape& size) {
  Shape sizes = inferViewShape(size, t.numel());
  std::optional<Shape> strides = computeViewStrides(t.sizes(), t.strides(), sizes);
  if (strides) return t.asStrided(sizes, *strides, t.offset());
  Tensor copy = t.clone();
  return copy.asStrided(sizes, contiguousStrides(sizes), copy.offset());
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& dims) {
  std::vector<int64_t> perm = checkPermutation(dims, t.dim());
  Shape sizes(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    sizes[i] = t.size(perm[i]);
    strides[i] = t.stride(perm[i]);
  }
  return t.asStrided(sizes, strides, t.offset());
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  int64_t a = normalizeDim(dim0, t.dim());
  int64_t b = normalizeDim(dim1, t.dim());
  Shape sizes = t.sizes(), strides = t.strides();
  if (t.dim() > 0) {
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
  }
  return t.asStrided(sizes, strides, t.offset());
}

Tensor t(const Tensor& x) {
  checkTransposeRank(x.dim());
  if (x.dim() < 2) return x.asStrided(x.sizes(), x.strides(), x.offset());
  return transpose(x, 0, 1);
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  int64_t d = normalizeDim(dim, t.dim() + 1);
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t stride = d >= t.dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return t.asStrided(sizes, strides, t.offset());
}

Tensor squeeze(const Tensor& t) {
  Shape sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) == 1) continue;
    sizes.push_back(t.size(d));
    strides.push_back(t.stride(d));
  }
  return t.asStrided(sizes, strides, t.offset());
}

Tensor squeeze(const Tensor& t, int64_t dim) {
  int64_t d = normalizeDim(dim, t.dim());
  Shape sizes = t.sizes(), strides = t.strides();
  if (t.dim() > 0 && sizes[d] == 1) {
    sizes.erase(sizes.begin() + d);
    strides.erase(strides.begin() + d);
  }
  return t.asStrided(sizes, strides, t.offset());
}

Tensor expand(const Tensor& t, const Shape& size) {
  Shape sizes = expandShape(t.sizes(), size, t.dtype());
  int64_t lead = (int64_t)sizes.size() - t.dim();
  Shape strides(sizes.size(), 0);
  for (int64_t d = 0; d < t.dim(); ++d) {
    // A broadcast dim reads the same element over and over: stride 0.
    strides[lead + d] = t.size(d) == sizes[lead + d] ? t.stride(d) : 0;
  }
  return t.asStrided(sizes, strides, t.offset());
}

Tensor flatten(const Tensor& t, int64_t startDim, int64_t endDim) {
  FlattenDims range = checkFlatten(startDim, endDim, t.dim());
  if (t.dim() == 0) return reshape(t, {1});
  if (range.start == range.end) return t.asStrided(t.sizes(), t.strides(), t.offset());
  return reshape(t, flattenShape(t.sizes(), range));
}

Tensor contiguous(const Tensor& t) { return t.isContiguous() ? t : t.clone(); }

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  checkNotZeroDim(t.dim(), "select");
  int64_t d = normalizeDim(dim, t.dim());
  // Shape inference already rejected indices known before the run, so one
  // out of range here was computed from data: a run-time failure.
  int64_t i = 0;
  try {
    i = checkSelectIndex(index, d, t.size(d));
  } catch (const UserError& e) {
    throw RuntimeFailure(e.message());
  }
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t offset = t.offset() + i * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return t.asStrided(sizes, strides, offset);
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> end, int64_t step) {
  checkNotZeroDim(t.dim(), "slice");
  int64_t d = normalizeDim(dim, t.dim());
  SliceRange r = sliceRange(start, end, step, t.size(d));
  return strideAlong(t, d, r.start, r.length, step);
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  checkNotZeroDim(t.dim(), "narrow");
  int64_t d = normalizeDim(dim, t.dim());
  int64_t s = checkNarrow(start, length, t.size(d));
  return strideAlong(t, d, s, length, 1);
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  checkAtLeastOneDim(t.dim(), "chunk");
  int64_t d = normalizeDim(dim, t.dim());
  return piecesAlong(t, d, chunkLengths(t.size(d), chunks));
}

std::vector<Tensor> split(const Tensor& t, int64_t splitSize, int64_t dim) {
  checkAtLeastOneDim(t.dim(), "split");
  int64_t d = normalizeDim(dim, t.dim());
  return piecesAlong(t, d, splitLengths(t.size(d), splitSize));
}

std::vector<Tensor> splitWithSizes(const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim) {
  checkAtLeastOneDim(t.dim(), "split");
  int64_t d = normalizeDim(dim, t.dim());
  checkSplitWithSizes(sizes, t.size(d), d);
  return piecesAlong(t, d, sizes);
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  if (t.dim() == 0) throw UserError("Dimension specified as 0 but tensor has no dimensions");
  int64_t d = normalizeDim(dim, t.dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < t.size(d); ++i) out.push_back(select(t, d, i));
  return out;
}

Tensor movedim(const Tensor& t, int64_t source, int64_t destination) {
  std::vector<int64_t> perm = movedimPermutation(source, destination, t.dim());
  return permute(t, perm);
}

Tensor reversed(const Tensor& t, const std::vector<int64_t>& dims) {
  std::vector<int64_t> flipDims = checkFlipDims(dims, t.dim());
  Shape strides = t.strides();
  int64_t offset = t.offset();
  for (int64_t d : flipDims) {
    if (t.dim() == 0 || t.size(d) == 0) continue;
    offset += (t.size(d) - 1) * strides[d];
    strides[d] = -strides[d];
  }
  return t.asStrided(t.sizes(), strides, offset);
}

}  // namespace stitch::views
