// rename (FuncTs): after a tssa.update(new, old), every later use of `old`
// (and of whatever `old` currently reads as) uses `new`; scoped per block, so
// a version made inside a branch or loop body never leaks out of it (block
// propagation has already routed such versions through the node's outputs).
//
//   %a = immut.select_rev(%x, %s, 0, 1)      %a = immut.select_rev(%x, %s, 0, 1)
//   tssa.update(%a, %x)                ->    tssa.update(%a, %x)
//   %y = add(%x, %x)                         %y = add(%a, %a)
#pragma once
#include "ir/graph.h"

namespace stitch {

void renameVersions(Graph& graph);

}  // namespace stitch
