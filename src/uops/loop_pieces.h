// Loop pieces (index-set splitting): where a loop variable is compared with
// constants (x[a:b] = v writes are lowered as `i == clamp(i - a, 0, b-a-1) + a
// ? v : x`, cat as selects over its pieces' ranges), the loop runs as
// consecutive pieces whose bounds are those constants. In each piece the
// variable's range decides every such comparison and clamp, so the uop
// simplifier folds them, the selects keep one branch and the other
// branch's work (a sigmoid over columns the write does not touch) is
// gone: the YOLO head's row of 85 computes 2 sigmoids for x[..., 0:2], not
// 85.
#pragma once
#include <cstdint>
#include <vector>

#include "ugraph/thread_graph.h"

namespace stitch {

// At most this many pieces per loop; more cut points: no split.
constexpr int64_t kMaxLoopPieces = 8;

// Cut points are where each comparison changes as the variable grows
// (`var < c`: at c; `var == c`: at c and c + 1; a clamp at its switch
// point; a variable compared with a clamp of itself also just after it).
// The bounds [0, c1, .., extent] of the pieces of the loop over variable
// node `var` (an IterVar or ReduceVar of extent `extent`), from the nodes
// among `nodes` (ids into tg) comparing an expression `var + k` (through
// adds, subtractions and clamps by constants) with a constant; empty when
// there is nothing to split or too much.
std::vector<int64_t> loopPieces(const ThreadGraph& tg, const std::vector<int>& nodes, int var, int64_t extent);

}  // namespace stitch
