// block-propagation (FuncTs): a tssa.update(new, old) inside a prim.loop or
// prim.if body whose `old` is defined outside that node makes `old` flow
// through the node, innermost nodes first:
//
//   prim.loop(%n, %true)                 %x2 = prim.loop(%n, %true, %x)
//     block0(%i):                          block0(%i, %xp):
//       tssa.update(%x1, %x)      ->         tssa.update(%xp, %x)
//       -> (%true)                           tssa.update(%x1, %x)
//                                            -> (%true, %x)
//                                        tssa.update(%x2, %x)
//
// prim.if gets one more output per such value, returned by both branches.
// Returns stay spelled with the old value; rename resolves each to the
// version current at its position.
#pragma once
#include "ir/graph.h"

namespace stitch {

void propagateBlocks(Graph& graph);

}  // namespace stitch
