// The elementwise tail a predefined contraction kernel applies to each tile
// of its product while the tile is in cache (Mirage's / mini_jit's "last
// touch"): a bias added to every row, then a chain of steps, each an
// activation of the tile or the tile added to or multiplied by a tensor of
// its own shape (a residual; SwiGLU's silu(x wg) * (x wu) as the second
// product's epilogue), that tensor through an activation or not. The
// kernel planner merges such a group into the contraction's kernel; the
// runtime's contraction routine computes the same float32 operations, so
// the values are those of the group run as a kernel of its own: the bias
// and a lone relu in the host's code, the other steps in a function
// rendered with the program's kernels (codegen/tile_epilogue.h), the
// same C expressions a kernel of their own would have.
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ugraph/alu_op.h"

namespace stitch {

// One step on the tile's value c, after the bias.
struct EpilogueStep {
  std::optional<AluOp> activation;         // c = activation(c); else:
  AluOp combine = AluOp::Add;              // c = c + t or c * t, where
  std::optional<AluOp> operandActivation;  // t = operandActivation(operand), or the operand
};

struct ContractionEpilogue {
  const Value* bias = nullptr;        // f32 [n], added to every row of the product; or none
  std::vector<EpilogueStep> steps;    // then these, in order
  std::vector<const Value*> operands; // the combining steps' tensors, in order: f32 of the product's shape
  const Value* output = nullptr;      // the group's result: the kernel's output
  // A second product of the same A whose result only the steps read, as
  // an operand (SwiGLU's gate x wg for the up product x wu): the kernel
  // computes it tile by tile with its own product, so it is never a tensor
  // of its own; or none.
  const Node* sibling = nullptr;
};

// Whether `steps` run in compiled code (codegen/tile_epilogue.h): all but
// none and a lone relu, which the host's code applies.
bool compiledSteps(const std::vector<EpilogueStep>& steps);

// The most steps an epilogue takes after its bias.
inline constexpr size_t kMaxEpilogueSteps = 4;

// The epilogue that `group` (nodes in program order, constants ignored)
// is for contraction `product`, if it is one: [sibling], then product ->
// add(bias) -> steps, the bias optional, at least one of them; each step's
// input value read by that step alone, an operand's activation read by its
// step alone, the operands computed outside the group (but the sibling's
// product, which an operand must then be); all f32 of the product's shape,
// in the product's block.
std::optional<ContractionEpilogue> contractionEpilogue(const Node* product, const std::vector<const Node*>& group);

// The activation node `n` applies, if an epilogue can apply it: relu,
// gelu (either form), sigmoid, tanh, silu on one tensor.
std::optional<AluOp> epilogueActivation(const Node* n);
// Every activation epilogueActivation gives.
const std::vector<AluOp>& epilogueActivations();

}  // namespace stitch
