// Lane-split reductions. A serial reduction is one dependency chain (an add
// every few cycles, a NaN-propagating max through selects), and the C
// compiler may not reorder it. The linearizer accumulates in W independent
// lanes instead (W = reduceLanes(N), N the innermost loop's extent):
//
//   lanes[W] = init                      (DEFINE_LOCAL, one per reduction)
//   for o < N / (W U): for l < W:        the lane loop vectorizes
//     v = lanes[l]
//     v = combine(v, x[(o U + u) W + l])  for u < U (2 or 4 when N / W
//     lanes[l] = v                         allows: fewer lane-array trips)
//   for t < N % W:                       the tail, into the first lanes
//     lanes[t] = combine(lanes[t], x[N / W * W + t])
//   for h = W/2, .., 1: lanes[l < h] = combine(lanes[l], lanes[l + h])
//   acc = lanes[0]                                        (fixed order)
//
// so lane l folds the elements whose innermost reduce index is l mod W, in
// order, under any outer reduce loops. W depends on N only: results never
// depend on the thread count or the block split. Float sums differ from
// the serial fold by rounding only (ugraph/numerics.h: kernels are
// compared with the interpreter under a tolerance), and are more accurate
// than it on long rows (W shorter chains).
#pragma once
#include <cstdint>
#include <functional>

#include "ugraph/alu_op.h"
#include "uops/uop.h"

namespace stitch {

// The lane array goes through memory in every iteration (the compiler
// vectorizes the lane loop but keeps the array on the stack), so one
// vector of lanes is one chain bound by store-to-load latency: a 4096-long
// softmax row took 0.97 ms per 256 rows on one core, against 0.74 ms with
// four vectors (64 lanes). Short loops keep 16 lanes: the wider combine
// costs more than it hides (a 64-long dot product: 3x slower with 64).
constexpr int64_t kReduceLanes = 16;
constexpr int64_t kWideReduceLanes = 64;
constexpr int64_t kWideLaneExtent = 1024;
int64_t reduceLanes(int64_t extent);
// Shorter innermost reduce loops stay serial: the lanes' setup and final
// combine would cost more than the chain.
constexpr int64_t kMinLaneSplitExtent = 64;

// On a GPU the lanes are the threads of a block (linearizer.h,
// LinearizeOptions::threadLanes): W = kThreadLanes, the most threads a
// block's shared loop gets (codegen/c_renderer.h), or for a shorter
// extent the largest power of two up to half of it, so each lane folds at
// least two terms and the lanes' fold costs less than the terms. Each
// lane folds its terms in a loop of its own (lane loop outside, terms
// inside: one thread, one register chain, no barrier between terms), in
// the same order as the vector form, and the lanes fold in halves as
// there (warp shuffles for the last five halvings, codegen/c_renderer.cpp).
// Without outer reduce loops the lanes start from their first term (no
// pass setting them to the identity).
constexpr int64_t kThreadLanes = 128;
int64_t threadReduceLanes(int64_t extent);

// Whether a reduction `op` whose innermost reduce loop has `extent`
// iterations is lane-split: every sum, product, max and min (integer
// arithmetic wraps, so its order does not matter; max / min are exact, NaN
// still wins; float sums change by rounding) whose loop is long enough.
bool laneSplits(ReduceOp op, int64_t extent);

// Emits `DEFINE_LOCAL acc[width]` and a loop setting every lane to
// `init` (none when init < 0); returns the DEFINE_LOCAL.
int defineLanes(UOpGraph& g, DType acc, int init, int64_t width);

// lanes[lane] = combine(lanes[lane], value), combine(prev, value) giving
// the combined uop.
void accumulateLane(UOpGraph& g, DType acc, int lanes, int lane, int value,
                    const std::function<int(int prev, int value)>& combine);

// Folds the lanes pairwise, halving: for h = W/2, W/4, .., 1:
// lanes[l] = combine(lanes[l], lanes[l + h]) for l < h; returns the load
// of lanes[0], the reduction's value. log2(W) dependent steps of vector
// width h instead of W serial ones: a short reduction (a 64-long dot) is
// not dominated by its combine.
int combineLanes(UOpGraph& g, DType acc, int lanes, int64_t width,
                 const std::function<int(int prev, int value)>& combine);

// The same fold as one FOLD_LANES uop; returns it. On the C target a
// float sum's (a vector-register helper); with lanes on threads every
// reduction's whose dtype a warp shuffle carries (f32, f64, i32, i64).
// Whether `op` on `acc` has one:
bool foldsInOneUOp(ReduceOp op, DType acc, bool threadLanes = false);
int foldLanes(UOpGraph& g, ReduceOp op, DType acc, int lanes, int64_t width);

}  // namespace stitch
