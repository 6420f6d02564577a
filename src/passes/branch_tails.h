// branch-tails: when a prim.if output may be an alias in one branch and
// something else in another (the input itself or a fresh copy), and the code
// after the branch writes that output or the tensor it may alias, that code
// is copied into every branch, so each copy knows statically what the name
// aliases:
//
//   %y = prim.if(%share)                  %x2, %y2 = prim.if(%share)
//     block0(): -> (%x)                     block0(): copy_(%x, add(%x, 1))
//     block1(): %c = clone(%x)        ->              -> (%x, %x)
//               -> (%c)                     block1(): %c = clone(%x)
//   copy_(%y, add(%y, 1))                             copy_(%c, add(%c, 1))
//   return (%x, %y)                                   -> (%x, %c)
//                                         return (%x2, %y2)
//
// The rest of the enclosing block (its nodes and returns) moves into the
// branches; the branch's outputs become that block's returns. Exactly the
// same program, run in the same order. Bounded: a tail of more than a few
// hundred nodes is left as it is (functionalization then refuses it).
// Runs on the imperative graph after remove-inplace (writes are copy_,
// fill_ and zero_), before rewrite-mutation.
#pragma once
#include "ir/graph.h"

namespace stitch {

// Returns whether it changed the graph.
bool duplicateBranchTails(Graph& graph);

}  // namespace stitch
