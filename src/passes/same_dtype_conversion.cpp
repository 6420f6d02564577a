#include "passes/same_dtype_conversion.h"

namespace stitch {

namespace {

bool isSameDtypeConversion(const Node* n) {
  if (!n->is("to")) return false;
  const TypePtr& in = n->input(0)->type();
  const TypePtr& out = n->output()->type();
  if (!in || !out || !in->isTensor() || !out->isTensor()) return false;
  return in->dtype() && out->dtype() && *in->dtype() == *out->dtype() && *in == *out;
}

bool rewriteBlock(Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= rewriteBlock(*sub);
    if (!isSameDtypeConversion(node) || !node->output()->hasUses()) continue;
    node->output()->replaceAllUsesWith(node->input(0));
    changed = true;
  }
  return changed;
}

}  // namespace

bool removeSameDtypeConversions(Graph& graph) { return rewriteBlock(*graph.top()); }

}  // namespace stitch
