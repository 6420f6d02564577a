// parallel-map: marks the loops whose iterations carry no dependence once
// the graph is functional (FuncTs' pmap), so each iteration could run on its
// own. A prim.loop is one when it runs its whole trip count (its condition is
// constant true before and after every iteration: no break), its body is
// pure, and every loop-carried value is
//   - invariant: given back unchanged,
//   - an append-only list: the body only appends to it (list.append in the
//     body's own block, one after another) and never reads it, or
//   - an induction scalar: its next value is computed by scalar ops from
//     itself, the counter and values from outside the loop (stride * 2), so
//     every iteration's value follows from the counter alone.
// Such a loop gets the attribute pmap=true, which the IR dump shows:
//
//   %boxes.1, %stride = prim.loop[pmap=true](%n, %true, %boxes, %stride.0)
//     block0(%i : int, %boxes.2 : List[Tensor], %stride.1 : float):
//       %box = ...                                   (from %i, %stride.1)
//       %boxes.3 = list.append(%boxes.2, %box)
//       %stride.2 = scalar.mul(%stride.1, 2.0)
//       -> (%true, %boxes.3, %stride.2)
//
// A tensor accumulated across iterations (acc = acc + x), a list that is
// read in the body, or a loop with a data-dependent exit is not a parallel
// map. Run it right before a pass that reads the mark (unroll.h): passes in
// between could add a dependence. Returns whether it marked a loop.
#pragma once
#include "ir/graph.h"

namespace stitch {

// The attribute name the pass sets on parallel-map loops.
inline constexpr const char* kParallelMapAttr = "pmap";

bool markParallelMaps(Graph& graph);

}  // namespace stitch
