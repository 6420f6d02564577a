#include "runtime/strided_layout.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "common/error.h"
#include "ir/shape_util.h"

namespace stitch {

namespace {

void eraseDim(StridedLayout& l, int64_t d) {
  std::copy(l.sizes + d + 1, l.sizes + l.rank, l.sizes + d);
  std::copy(l.strides + d + 1, l.strides + l.rank, l.strides + d);
  --l.rank;
}

void insertDim(StridedLayout& l, int64_t d, int64_t size, int64_t stride) {
  std::copy_backward(l.sizes + d, l.sizes + l.rank, l.sizes + l.rank + 1);
  std::copy_backward(l.strides + d, l.strides + l.rank, l.strides + l.rank + 1);
  l.sizes[d] = size;
  l.strides[d] = stride;
  ++l.rank;
}

}  // namespace

StridedLayout StridedLayout::dense(const Shape& shape) {
  STITCH_ASSERT(shape.size() <= (size_t)kMaxLoopRank, "strided layout of rank ", shape.size());
  StridedLayout l;
  l.rank = (int)shape.size();
  int64_t stride = 1;
  for (int d = l.rank - 1; d >= 0; --d) {
    l.sizes[d] = shape[(size_t)d];
    l.strides[d] = stride;
    stride *= std::max<int64_t>(shape[(size_t)d], 1);
  }
  return l;
}

bool applyLoopView(const LoopView& view, const LoopViewArgs& args, StridedLayout& l, int64_t& offset,
                   LoopViewFault& fault) {
  const int64_t d = view.dim;
  switch (view.op) {
    case LoopView::Op::Select: {
      const int64_t size = l.sizes[d];
      if (args.index < -size || args.index >= size) {
        fault = LoopViewFault{args.index, d, size};
        return false;
      }
      offset += (args.index < 0 ? args.index + size : args.index) * l.strides[d];
      eraseDim(l, d);
      return true;
    }
    case LoopView::Op::Slice: {
      const SliceRange r =
          sliceRange(args.hasStart ? std::optional<int64_t>(args.start) : std::nullopt,
                     args.hasEnd ? std::optional<int64_t>(args.end) : std::nullopt, view.step, l.sizes[d]);
      offset += r.start * l.strides[d];
      l.sizes[d] = r.length;
      l.strides[d] *= view.step;
      return true;
    }
    case LoopView::Op::Unsqueeze:
      insertDim(l, d, 1, d >= l.rank ? 1 : l.sizes[d] * l.strides[d]);
      return true;
    case LoopView::Op::Squeeze:
      if (l.sizes[d] == 1) eraseDim(l, d);
      return true;
    case LoopView::Op::Transpose:
      std::swap(l.sizes[d], l.sizes[view.dim1]);
      std::swap(l.strides[d], l.strides[view.dim1]);
      return true;
    case LoopView::Op::Same: return true;
  }
  return true;
}

int64_t copyRows(const StridedLayout& dst) { return dst.rank == 0 ? 1 : dst.sizes[0]; }

void copyStrided(char* dst, const StridedLayout& dl, const char* src, const StridedLayout& sl, size_t elemSize,
                 int64_t begin, int64_t end) {
  // src's strides over dst's dims: 0 where src broadcasts.
  int64_t ss[kMaxLoopRank] = {};
  const int lead = dl.rank - sl.rank;
  for (int i = 0; i < dl.rank; ++i) {
    const int j = i - lead;
    ss[i] = j >= 0 && sl.sizes[j] != 1 ? sl.strides[j] : 0;
  }
  if (dl.rank == 0) {
    if (begin < end) std::memcpy(dst, src, elemSize);
    return;
  }
  if (dl.rank == 1) {  // a row is one element
    for (int64_t e = begin; e < end; ++e)
      std::memcpy(dst + e * dl.strides[0] * (int64_t)elemSize, src + e * ss[0] * (int64_t)elemSize, elemSize);
    return;
  }
  for (int k = 1; k < dl.rank; ++k)
    if (dl.sizes[k] == 0) return;
  const int inner = dl.rank - 1;
  const int64_t n = dl.sizes[inner];
  const bool runs = dl.strides[inner] == 1 && ss[inner] == 1;
  for (int64_t row = begin; row < end; ++row) {
    // A counter over dims 1 .. rank-2 of this row.
    int64_t at[kMaxLoopRank] = {};
    at[0] = row;
    while (true) {
      int64_t od = 0, os = 0;
      for (int k = 0; k < inner; ++k) {
        od += at[k] * dl.strides[k];
        os += at[k] * ss[k];
      }
      char* o = dst + od * (int64_t)elemSize;
      const char* s = src + os * (int64_t)elemSize;
      if (runs) {
        std::memcpy(o, s, (size_t)n * elemSize);
      } else {
        for (int64_t e = 0; e < n; ++e)
          std::memcpy(o + e * dl.strides[inner] * (int64_t)elemSize, s + e * ss[inner] * (int64_t)elemSize, elemSize);
      }
      int k = inner - 1;
      while (k >= 1 && ++at[k] == dl.sizes[k]) at[k--] = 0;
      if (k < 1) break;
    }
  }
}

}  // namespace stitch
