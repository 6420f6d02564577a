// rename (FuncTs): after a tssa.update(new, old), every later use of `old`
// (and of whatever `old` currently reads as) uses `new`; scoped per block, so
// a version made inside a branch or loop body never leaks out of it (block
// propagation has already routed such versions through the node's outputs).
// Terminates by construction: every marker's `new` is a value that no
// earlier marker in scope has named (a write's fresh result, a carried
// slot, a branch output), so each link points at a value without links and
// the version chains cannot form a cycle; the pass asserts it.
//
//   %a = immut.select_rev(%x, %s, 0, 1)      %a = immut.select_rev(%x, %s, 0, 1)
//   tssa.update(%a, %x)                ->    tssa.update(%a, %x)
//   %y = add(%x, %x)                         %y = add(%a, %a)
#pragma once
#include "ir/graph.h"

namespace stitch {

void renameVersions(Graph& graph);

}  // namespace stitch
