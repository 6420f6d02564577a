// peel-first-iteration: a loop whose carried tensor starts from a tensor
// still visible under another name shares that tensor's buffer in the first
// iteration only (later iterations carry the value the body made): a write
// through the block parameter writes the other name, a write through the
// other name (`t = x; for ...: x[0] = 1; t = f(t)`) changes the parameter.
// When the body writes anything, the first iteration is copied before the
// loop, which then starts from the body's fresh value:
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
