// cse: merges pure nodes that compute the same thing: same op overload, same
// input Values, same attributes (so equal constants merge too). A node is
// replaced by an earlier one that dominates it: one in the same block or in
// an enclosing one, never one inside a sibling branch or loop body.
//
//   %a = add(%x, %y, 1)              %a = add(%x, %y, 1)
//   %b = add(%x, %y, 1)      ->      %c = mul(%a, %a)
//   %c = mul(%a, %b)
//
// Only for functional graphs (no in-place op may write a merged tensor).
// Returns whether anything was merged.
#pragma once
#include "ir/graph.h"

namespace stitch {

bool eliminateCommonSubexpressions(Graph& graph);

}  // namespace stitch
