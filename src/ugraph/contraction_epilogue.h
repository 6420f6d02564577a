// The elementwise tail a predefined contraction kernel applies to each tile
// of its product while the tile is in cache: a bias added to every row,
// then an activation (Mirage's / mini_jit's "last touch"). The kernel
// planner merges such a group into the contraction's kernel; the runtime's
// contraction routine computes the same float32 operations, so the values
// are those of the group run as a kernel of its own.
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace stitch {

struct ContractionEpilogue {
  const Value* bias = nullptr;        // f32 [n], added to every row of the product; or none
  bool relu = false;                  // relu applied last (isEpilogueActivation)
  const Value* output = nullptr;      // the group's result: the kernel's output
};

// The epilogue that `group` (nodes in program order, constants ignored)
// is for contraction `product`, if it is one: product -> add(bias) ->
// activation, either step optional but not both, each intermediate value
// read by the next step alone, all f32 of the product's shape, in the
// product's block.
std::optional<ContractionEpilogue> contractionEpilogue(const Node* product, const std::vector<const Node*>& group);

// Whether node `n` is an activation an epilogue applies (relu alone).
bool isEpilogueActivation(const Node* n);

}  // namespace stitch
