// The linearizer: a graph-defined kernel's BlockGraph -> its UOps.
//
//   DEFINE_GLOBAL per buffer slot (outputs first, "data0" ...), DEFINE_VAR
//   per scalar parameter ("p0" ...), SPECIAL gidx0 < grid[0], then the loop
//   nest of block.loops: loops[0] runs over this block's share,
//   [gidx0*blockExtent, min((gidx0+1)*blockExtent, extent)), the others over
//   [0, extent). IterVar(d) is rebuilt from its loop's variable as
//   (loop / sizes after d in the loop) % size(d); the simplifier turns the
//   index of a contiguous access back into the loop variable.
//
// Thread-graph nodes are emitted in dependency order at the outermost loop
// depth where all their operands exist (loop-invariant values are hoisted).
// A Reduce becomes DEFINE_ACC, LOOPs over its variables (first variable
// outermost), the body, ALU(acc, value), PHI, ENDLOOPs; its value is the PHI.
// A long one whose result does not depend on the order up to rounding
// (lane_reduce.h) accumulates in 16 lanes of a DEFINE_LOCAL instead, so the
// C compiler vectorizes it (on a GPU: a block's threads), and combines the
// lanes in a fixed order.
// A Fill (block-local buffer, local_buffers.h) is a loop nest that stores a
// tile before its first reader. A Column kernel folds each block's part of
// the reduction into shared partials, then, after the grid, combines them in
// block order. An innermost output loop of at most 4 iterations is written
// out per iteration when the loop around it stays free of index division.
// Every output is stored at the flat row-major index of the iteration
// variables. Uops left unused by the simplifier are dropped at the end.
//
// Loop order (reduce_order.h), all computing the same elements:
//  - output loops that no reduction depends on go inside the ones they do
//    (softmax over dim 0: each column's sums once, not once per element);
//    when that moves loops[0] inward, the grid's grid[0] blocks split the
//    new outermost loop instead (in chunks of ceil(extent / grid[0])), so
//    blocks do not all redo the reductions;
//  - a column reduction (contiguous along the innermost output dim, strided
//    along its reduce variable) runs its reduce loops outside the innermost
//    output loop, accumulating in a DEFINE_LOCAL array (one accumulator per
//    inner element, same order of accumulation per element).
#pragma once
#include "ugraph/kernel_graph.h"
#include "uops/uop.h"

namespace stitch {

struct LinearizeOptions {
  // Lane-split reductions take their lanes from a GPU block's threads
  // (lane_reduce.h, threadReduceLanes) instead of the host's vector lanes:
  // the CUDA target.
  bool threadLanes = false;
  // A tile that an output takes element for element is filled in the
  // output's memory (output_tile.h): the C target (on a GPU the tile is
  // shared memory, cheaper than the output's global memory).
  bool tilesInOutputs = true;
  // A row loop around a slice of its columns runs as one flat loop when the
  // block writes the other columns again right after (flat_rows.h): the C
  // target, where one thread runs a block's loops in order.
  bool flatRows = true;
};

// kernel.kind must be KernelKind::GraphDefined.
KernelUOps linearize(const Kernel& kernel, const LinearizeOptions& options = {});

// A copy of `g` without the uops that nothing with an effect depends on
// (definitions, control flow and stores are kept).
UOpGraph withoutDeadUOps(const UOpGraph& g);

}  // namespace stitch
