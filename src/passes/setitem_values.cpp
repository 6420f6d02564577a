#include "passes/setitem_values.h"

#include "ir/view_shape.h"
#include "passes/alias_analysis.h"

namespace stitch {

namespace {

// The squeeze views the marker stands for; its pure twin when v's leading
// dims are not static (the graph is not specialized, or v's shape depends
// on the data).
Value* droppedLeadingDims(Graph& g, Node* marker) {
  Value* v = marker->input(0);
  const TypePtr& t = v->type();
  std::optional<size_t> dropped = t->shape() ? setitemDroppedDims(*t->shape()) : std::nullopt;
  if (!dropped) return emitBefore(g, marker, "immut.setitem_value", {v}, marker->output()->type())->output();
  std::vector<int64_t> shape = *t->shape();
  Value* zero = g.constant(Constant((int64_t)0));
  for (size_t i = 0; i < *dropped; ++i) {
    shape.erase(shape.begin());
    v = emitBefore(g, marker, "squeeze", {v, zero}, Type::tensor(t->dtype(), shape))->output();
  }
  return v;
}

bool rewriteBlock(Graph& g, Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= rewriteBlock(g, *sub);
    if (!node->is("prim.setitem_value")) continue;
    node->output()->replaceAllUsesWith(droppedLeadingDims(g, node));
    node->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace

bool lowerSetitemValues(Graph& graph) { return rewriteBlock(graph, *graph.top()); }

}  // namespace stitch
