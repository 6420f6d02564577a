// remove-update (FuncTs): once rename has run, tssa.update markers carry no
// information; they are removed, and the Access ops that only fed them (the
// re-derived views nobody reads) go with them.
//
//   %v1 = immut.select(%x1, 0, %i)
//   tssa.update(%v1, %v)             ->   (nothing)
#pragma once
#include "ir/graph.h"

namespace stitch {

void removeUpdates(Graph& graph);

}  // namespace stitch
