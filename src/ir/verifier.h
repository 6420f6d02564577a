// Checks a graph's structural invariants and throws InternalError naming the
// first one broken: values defined before use (a sub-block sees what its
// enclosing blocks defined before it), use lists matching inputs, node input
// and output counts and input types matching the op's schema, prim.loop /
// prim.if block shapes, prim.constant values. Runs at every IR boundary in
// tests.
#pragma once
#include "ir/graph.h"

namespace stitch {

void verifyGraph(const Graph& graph);

}  // namespace stitch
