// Specializes a graph's types on concrete input types: every value gets its
// dtype and static shape where they follow from the inputs (dims that depend
// on data become -1). Loops iterate to a fixed point, joining types.
//
//   graph(%x : Tensor, %n : int)       inputs f32[4,3], int
//   %y : Tensor = sum(%x, %d, %k, %t)  ->  %y : f32[3] = sum(...)
//
// Throws UserError at the offending node's location on shape or dtype errors
// (broadcast mismatch, bad dim, bad view size, ...) in code that surely runs.
// An error inside a branch or loop body that might not run is left to run
// time, as PyTorch does: the node's types then come from the paths that work.
#pragma once
#include <vector>

#include "ir/graph.h"

namespace stitch {

void inferShapes(Graph& graph, const std::vector<TypePtr>& inputTypes);

}  // namespace stitch
