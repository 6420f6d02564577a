// constant-list-reads: reading a list built in place at a constant index is
// the element itself (the same tensor object, as in PyTorch), so writes
// through it are writes to that element, which rewrite-mutation follows;
// a list nobody reads any more is dropped:
//
//   %xs = prim.list_construct(%x, %y)
//   %e = list.get(%xs, 1)            ->   copy_(%y, %v)
//   copy_(%e, %v)
//
// A list read only as a whole (stack, cat, len, or returned) is built again
// right before each such read, where it holds the tensors' versions of that
// moment. Lists are values in the IR (list.set and list.append make new lists), so
// %xs always holds its construct's elements. Only lists read at constant
// indices (or whole, by stack, cat, len) and only in graphs that write;
// out-of-range indices stay for run time. Runs on the imperative graph,
// before rewrite-mutation.
#pragma once
#include "ir/graph.h"

namespace stitch {

// Returns whether it changed the graph.
bool resolveConstantListReads(Graph& graph);

}  // namespace stitch
