// What never fuses (XLA's rules and ours). A group of one is always allowed;
// a larger group must not contain
//   - a node that cannot run in a kernel (FusionOptions::kernelOp: side
//     effects, views, in-place ops, prim.loop / prim.if, unknown shapes),
//   - a predefined kernel (a large contraction runs as the library routine),
//   - an Assign op (immut.assign, immut.*_rev) whose base is not produced
//     inside the group: alone, the runtime writes just the slice into the
//     base in place, so a loop writing rows stays linear,
//   - an expensive producer (OpSchema kExpensive: contractions) whose value
//     is used both inside and outside the group: the group's consumers would
//     compute it again instead of reading the stored result,
//   - a contraction whose operand is computed inside the group beyond index
//     arithmetic (access ops, clones): the contraction asks for each operand
//     element once per output it feeds, so the computation would run that
//     many times, and a chain of contractions multiplies these factors (four
//     chained 4x32x32 matmuls took a second instead of microseconds).
//
//   %5 = immut.select_rev(%dup, %4, -1, 0)   %dup made by a group member: fuses
//   %25 = immut.select_rev(%state, %c, 0, %j) %state a loop carry: alone
#pragma once
#include <unordered_set>
#include <vector>

#include "fusion/block_deps.h"
#include "fusion/fusion.h"

namespace stitch {

// immut.assign and the immut.*_rev ops: input 0 is the base written into.
bool isAssignOp(const Node* n);

// mm / bmm / matmul / linear above 2^18 multiply-adds (the kernel planner's
// threshold for running the library routine instead of a generated loop nest).
bool isLargeContraction(const Node* n);

// Whether n may be a member of a group of more than one node.
bool mayFuse(const Node* n, const FusionOptions& options);

// Why `members` (nodes of deps' block) may not form one group, or null when
// the never-fuse rules allow it. `inGroup` holds the same nodes.
const char* neverFuseReason(const std::vector<const Node*>& members, const std::unordered_set<const Node*>& inGroup,
                            const BlockDeps& deps, const FusionOptions& options);

}  // namespace stitch
