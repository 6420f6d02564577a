// dce: removes pure nodes none of whose outputs is used, inner blocks first,
// last node first, so a chain of dead nodes goes in one sweep. A prim.if or
// prim.loop whose outputs are all unused goes too when its blocks hold only
// pure nodes. Of the control-flow nodes that stay, unused branch outputs are
// dropped, and so are loop-carried values that only feed their own next
// iteration (an accumulator nobody reads after the loop). A loop that never
// runs (constant trip count <= 0, or constant false start condition) is
// replaced by the values it starts from, whatever its body holds. Nodes with
// effects (prim.raise, in-place ops, random ops) stay.
//
//   %a = add(%x, %y, 1)              %b = mul(%x, %x)
//   %b = mul(%x, %x)          ->     return (%b)
//   return (%b)
//
// Returns whether anything was removed.
#pragma once
#include "ir/graph.h"

namespace stitch {

bool eliminateDeadCode(Graph& graph);

}  // namespace stitch
