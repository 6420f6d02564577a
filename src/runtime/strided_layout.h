// A tensor register's layout inside a loop kernel (runtime/loop_kernel.h):
// sizes and strides in fixed arrays, so a view taken in every iteration
// (`cache[:, :, :t + 1]`) allocates nothing. The views follow the
// interpreter's rules (interp/view_ops.h): the same sizes, strides and
// element offsets.
#pragma once
#include <cstddef>
#include <cstdint>

#include "interp/tensor.h"
#include "ugraph/loop_kernels.h"

namespace stitch {

struct StridedLayout {
  int rank = 0;
  int64_t sizes[kMaxLoopRank] = {};
  int64_t strides[kMaxLoopRank] = {};

  // Row-major strides over `shape` (at most kMaxLoopRank dims).
  static StridedLayout dense(const Shape& shape);
};

// The run-time operands of a view: Select's index, Slice's bounds.
struct LoopViewArgs {
  int64_t index = 0;
  bool hasStart = false, hasEnd = false;
  int64_t start = 0, end = 0;
};

// A select index outside its dim: what the interpreter's error names.
struct LoopViewFault {
  int64_t index = 0, dim = 0, size = 0;
};

// Applies `view` to `layout` and adds the elements the view's start moves
// by to `offset`. False, with `fault` filled and nothing changed, when a
// select index is out of range.
bool applyLoopView(const LoopView& view, const LoopViewArgs& args, StridedLayout& layout, int64_t& offset,
                   LoopViewFault& fault);

// The outermost rows of a copy into `dst` (its first dim; 1 for a 0-dim
// tensor): the unit a team splits.
int64_t copyRows(const StridedLayout& dst);

// Copies src, broadcast to dst's sizes (dims aligned right, size-1 dims
// repeated), into dst's rows [begin, end); elements of `elemSize` bytes.
void copyStrided(char* dst, const StridedLayout& dl, const char* src, const StridedLayout& sl, size_t elemSize,
                 int64_t begin, int64_t end);

}  // namespace stitch
