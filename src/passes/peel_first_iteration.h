// peel-first-iteration: a loop whose carried tensor is written through its
// block parameter while the tensor it starts from is still visible under
// another name writes that other name in the first iteration only (later
// iterations write the value the body made). The first iteration is copied
// before the loop, which then starts from the body's fresh value:
//
//   %first = clone(%x)                     %first = clone(%x)
//   %y = prim.loop(3, true, %first)        copy_(%first, add(%first, 1))
//     block0(%i, %yp):              ->     %y0 = mul(%first, 2)
//       copy_(%yp, add(%yp, 1))            %y = prim.loop(2, true, %y0)
//       %y1 = mul(%yp, 2)                    block0(%j, %yp):
//       -> (true, %y1)                         %i = scalar.add(%j, 1)
//   return (%first, %y)                        ... (the body, on %i)
//
// Only loops with a constant trip count of at least 1 and a constant true
// start condition, whose written slot gets a fresh value from the body.
// Runs on the imperative graph after remove-inplace.
#pragma once
#include "ir/graph.h"

namespace stitch {

// Returns whether it changed the graph.
bool peelFirstIterations(Graph& graph);

}  // namespace stitch
