// Part of functionalization's preparation: a loop-carried value that the body
// returns unchanged (typically after `x += y`, whose in-place result is x
// itself) is the very same tensor object all along, so writes through the
// block parameter are writes into the loop's input. Such carries are removed,
// the parameter and the loop output replaced by the input; likewise an if
// output that every branch spells as the same outer value. Block propagation
// re-creates the carries functionally where writes need them.
//
//   %y = prim.loop(%n, %t, %x)            prim.loop(%n, %t)
//     block0(%i, %xp):             ->       block0(%i):
//       copy_(%xp, add(%xp, 1))               copy_(%x, add(%x, 1))
//       -> (%t, %xp)                          -> (%t)
//   ... %y ...                            ... %x ...
#pragma once
#include "ir/graph.h"

namespace stitch {

void removeIdentityCarries(Graph& graph);

}  // namespace stitch
