// loop-built-lists: a list that a loop fills with one view per iteration
// (`rows.append(x[i])`, from an empty list, a constant trip count, no
// break) holds, after the loop, exactly the views taken with i = 0, 1, ...
// Reads of it become those views, taken again from the base where they are
// read (a view only names memory, so it reads the base as it is then), and
// the loop stops carrying the list:
//
//   %rows = prim.list_construct()
//   %r = prim.loop(3, true, %rows)              prim.loop(3, true)
//     block0(%i, %rp):                             block0(%i): -> (true)
//       %v = select(%x, 0, %i)          ->      ...
//       -> (true, list.append(%rp, %v))         %e = select(%x, 0, 2)
//   ...                                          ... %e ...
//   %e = list.get(%r, 2)
//
// Only when every read is a constant index in range or reads the whole list
// (stack, cat, len, the graph's result), the view's other arguments come
// from outside the loop, and the index only picks a row (select, checked
// in range for every iteration) or bounds a slice, so no iteration's view
// would have raised. Runs on the imperative graph, before rewrite-mutation.
#pragma once
#include "ir/graph.h"

namespace stitch {

// Returns whether it changed the graph.
bool resolveLoopBuiltLists(Graph& graph);

}  // namespace stitch
