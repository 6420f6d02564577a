// The elementwise tail a predefined contraction kernel applies to each tile
// of its product while the tile is in cache: a bias added to every row,
// then an activation (Mirage's / mini_jit's "last touch"). The kernel
// planner merges such a group into the contraction's kernel; the runtime's
// contraction routine computes the same float32 operations, so the values
// are those of the group run as a kernel of its own: the bias and relu in
// the host's code, the other activations in a function rendered with the
// program's kernels (codegen/tile_activation.h), the same C expression a
// kernel of their own would have.
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ugraph/alu_op.h"

namespace stitch {

struct ContractionEpilogue {
  const Value* bias = nullptr;        // f32 [n], added to every row of the product; or none
  std::optional<AluOp> activation;    // applied last (epilogueActivation)
  const Value* output = nullptr;      // the group's result: the kernel's output
};

// The epilogue that `group` (nodes in program order, constants ignored)
// is for contraction `product`, if it is one: product -> add(bias) ->
// activation, either step optional but not both, each intermediate value
// read by the next step alone, all f32 of the product's shape, in the
// product's block.
std::optional<ContractionEpilogue> contractionEpilogue(const Node* product, const std::vector<const Node*>& group);

// The activation node `n` applies, if an epilogue can apply it: relu,
// gelu (either form), sigmoid, tanh, silu on one tensor.
std::optional<AluOp> epilogueActivation(const Node* n);
// Every activation epilogueActivation gives.
const std::vector<AluOp>& epilogueActivations();

}  // namespace stitch
