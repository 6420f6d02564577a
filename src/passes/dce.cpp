#include "passes/dce.h"

#include <algorithm>

#include "ir/op_registry.h"

namespace stitch {

namespace {

bool anyOutputUsed(const Node* node) {
  const auto& outs = node->outputs();
  return std::any_of(outs.begin(), outs.end(), [](const Value* v) { return v->hasUses(); });
}

bool blockIsPure(const Block& block);

// Whether removing the node (when unused) cannot change what a run does.
bool isRemovable(const Node* node) {
  if (node->is("prim.if")) {
    return std::all_of(node->blocks().begin(), node->blocks().end(),
                       [](const Block* b) { return blockIsPure(*b); });
  }
  return node->blocks().empty() && node->schema().isPure();
}

bool blockIsPure(const Block& block) {
  for (const Node* node : block)
    if (!isRemovable(node)) return false;
  return true;
}

bool sweepBlock(Block& block) {
  bool changed = false;
  std::vector<Node*> nodes = block.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node* node = *it;
    for (Block* sub : node->blocks()) changed |= sweepBlock(*sub);
    if (anyOutputUsed(node) || !isRemovable(node)) continue;
    node->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace

bool eliminateDeadCode(Graph& graph) {
  bool changed = false;
  while (sweepBlock(*graph.top())) changed = true;
  return changed;
}

}  // namespace stitch
