// Lane-split reductions. A serial reduction is one dependency chain (an f64
// add every few cycles, a NaN-propagating max through selects), and the C
// compiler may not reorder it. Where reordering keeps the result equal to
// the serial one up to float rounding, the linearizer accumulates in
// kReduceLanes independent lanes instead:
//
//   lanes[W] = init                      (DEFINE_LOCAL, one per reduction)
//   for o < N / W: for l < W:            the lane loop vectorizes
//     lanes[l] = combine(lanes[l], x[o * W + l])
//   for t < N % W:                       the tail, into the first lanes
//     lanes[t] = combine(lanes[t], x[N / W * W + t])
//   acc = init; for l < W: acc = combine(acc, lanes[l])   (fixed order)
//
// so lane l folds the elements whose innermost reduce index is l mod W, in
// order, under any outer reduce loops. W is a constant: results never
// depend on the thread count or the block split.
#pragma once
#include <cstdint>
#include <functional>

#include "ugraph/alu_op.h"
#include "uops/uop.h"

namespace stitch {

constexpr int64_t kReduceLanes = 16;
// Shorter innermost reduce loops stay serial: the lanes' setup and final
// combine would cost more than the chain.
constexpr int64_t kMinLaneSplitExtent = 64;

// Whether a reduction `op` accumulating in `acc` is lane-split, given the
// dtype of its values before widening to `acc` (`narrow`) and the extent of
// its innermost reduce loop. Yes for: integer sums and products (wrapping
// arithmetic is associative and commutative), max / min of any dtype
// (exact; NaN still wins), and sums / products of f32 (or integer) values
// accumulated in f64 (reordering changes the f64 sum by far less than the
// f32 result's rounding). f64 sums stay serial: there reordering would
// change the result's last bits.
bool laneSplits(ReduceOp op, DType acc, DType narrow, int64_t extent);

// Emits `DEFINE_LOCAL acc[kReduceLanes]` and a loop setting every lane to
// `init`; returns the DEFINE_LOCAL.
int defineLanes(UOpGraph& g, DType acc, int init);

// lanes[lane] = combine(lanes[lane], value), combine(prev, value) giving
// the combined uop.
void accumulateLane(UOpGraph& g, DType acc, int lanes, int lane, int value,
                    const std::function<int(int prev, int value)>& combine);

// acc = init; for l < kReduceLanes: acc = combine(acc, lanes[l]); returns
// the PHI (the reduction's value after the loop).
int combineLanes(UOpGraph& g, DType acc, int lanes, int init,
                 const std::function<int(int prev, int value)>& combine);

}  // namespace stitch
