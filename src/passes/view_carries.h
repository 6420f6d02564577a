// view-carries: a view that flows through a loop (loop-carried) or out of a
// branch becomes its base plus the scalars that pick the view. When every
// value entering a slot is the same chain of view ops on one tensor defined
// outside the node, differing only in scalar arguments, the slot carries
// those scalars and the view is re-derived from the base where it is read:
//
//   %v = select(%x, 0, 0)                   %v = select(%x, 0, 0)
//   %v1 = prim.loop(%n, %true, %v)          %k1 = prim.loop(%n, %true, 0)
//     block0(%i, %vp):                        block0(%i, %kp):
//       ... %vp ...                 ->          %vp = select(%x, 0, %kp)
//       %w = select(%x, 0, %i)                  ... %vp ...
//       -> (%true, %w)                          -> (%true, %i)
//   mul_(%v1, -1.0)                         %v1 = select(%x, 0, %k1)
//                                           mul_(%v1, -1.0)
//
// Views handed between nested loops and branches are handled together: every
// slot of such a web carries the scalars. A slot cut shorter every iteration (`v = v[1:]`, constant trip count,
// never past the end) carries its offset: slice(%init, 0, %off), off += 1.
// Afterwards the views are ordinary views of %x, which rewrite-mutation and
// block-propagation follow (writes to %x inside the loop carry %x itself).
// Runs on the imperative graph, before rewrite-mutation.
#pragma once
#include "ir/graph.h"

namespace stitch {

// Returns whether it changed the graph.
bool carryViewsAsScalars(Graph& graph);

}  // namespace stitch
