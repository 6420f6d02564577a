#include "interp/reduce_loops.h"

#include <algorithm>

namespace stitch {

namespace {

// Dims of one side (kept or reduced) in row-major order, size-1 dims dropped
// and neighbours merged where their strides line up.
struct MergedDims {
  Shape sizes, strides;
  void push(int64_t size, int64_t stride) {
    if (size == 1) return;
    if (!sizes.empty() && strides.back() == stride * size) {
      sizes.back() *= size;
      strides.back() = stride;
      return;
    }
    sizes.push_back(size);
    strides.push_back(stride);
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

void splitInner(const MergedDims& m, Shape& outerSizes, Shape& outerStrides, int64_t& inner,
                int64_t& innerStride) {
  if (m.sizes.empty()) {
    inner = 1;
    innerStride = 0;
    return;
  }
  outerSizes.assign(m.sizes.begin(), m.sizes.end() - 1);
  outerStrides.assign(m.strides.begin(), m.strides.end() - 1);
  inner = m.sizes.back();
  innerStride = m.strides.back();
}

}  // namespace

ReduceGeometry makeReduceGeometry(const Tensor& in, const std::vector<int64_t>& reduced) {
  MergedDims kept, red;
  for (int64_t d = 0; d < in.dim(); ++d) {
    bool isReduced = std::binary_search(reduced.begin(), reduced.end(), d);
    (isReduced ? red : kept).push(in.size(d), in.stride(d));
  }
  ReduceGeometry g;
  g.baseOffset = in.offset();
  g.numOut = kept.numel();
  g.numRed = red.numel();
  splitInner(kept, g.keptOuterSizes, g.keptOuterStrides, g.keptInner, g.keptInnerStride);
  splitInner(red, g.redOuterSizes, g.redOuterStrides, g.redInner, g.redInnerStride);
  // Walk output by output unless the kept side is the one contiguous in memory.
  bool keptIsInner = !kept.sizes.empty() && !red.sizes.empty() &&
                     std::abs(g.keptInnerStride) < std::abs(g.redInnerStride);
  g.innerReduced = !keptIsInner;
  return g;
}

}  // namespace stitch
