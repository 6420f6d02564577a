// expanded-selects: picking one index along a broadcast dim of an expanded
// tensor gives a view of the base itself (every index along that dim is
// the same memory), so a write through it is a write into the base, which
// rewrite-mutation follows:
//
//   %e = expand(%b, [3, 4])            (%b : f32[1, 4])
//   %r = select(%e, 0, 1)        ->    %s = select(%b, 0, 0)
//   fill_(%r, 2.0)                     %r = expand(%s, [4])
//                                      fill_(%r, 2.0)
//
// Only for constant in-range indices and static shapes (an index out of
// range stays an error at run time), and only for selects written through.
// Runs on the imperative graph after remove-inplace.
#pragma once
#include "ir/graph.h"

namespace stitch {

// Returns whether it changed the graph.
bool selectThroughExpands(Graph& graph);

}  // namespace stitch
