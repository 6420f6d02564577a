#include "passes/setitem_values.h"

#include <algorithm>

#include "ir/view_shape.h"
#include "passes/alias_analysis.h"

namespace stitch {

namespace {

bool fullyKnown(const std::optional<std::vector<int64_t>>& shape) {
  return shape && std::all_of(shape->begin(), shape->end(), [](int64_t d) { return d >= 0; });
}

// `from` broadcasts to `to` without growing it.
bool expandsTo(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}

// The static shape of the tensor the marker's value is stored into: the
// destination of the copy_ the frontend put right after the marker.
std::optional<std::vector<int64_t>> destinationShape(const Node* marker) {
  for (const Use& use : marker->output()->uses())
    if (use.user->is("copy_") && use.index == 1) return use.user->input(0)->type()->shape();
  return std::nullopt;
}

// What PyTorch's setitem copies (copy_to): v itself when its shape is the
// destination's; else v without its leading size-1 dims (squeeze views),
// expanded to the destination's shape. The expand matters to the overlap
// check of the write (write_overlap.h): PyTorch checks the expanded value,
// whose broadcast dims (stride 0) leave the overlap undecided. The pure
// twin where v's leading dims are not static (the graph is not specialized,
// or v's shape depends on the data).
Value* storedValue(Graph& g, Node* marker) {
  Value* v = marker->input(0);
  const TypePtr& t = v->type();
  std::optional<std::vector<int64_t>> to = destinationShape(marker);
  if (fullyKnown(t->shape()) && fullyKnown(to) && *t->shape() == *to) return v;
  std::optional<size_t> dropped = t->shape() ? setitemDroppedDims(*t->shape()) : std::nullopt;
  if (!dropped) return emitBefore(g, marker, "immut.setitem_value", {v}, marker->output()->type())->output();
  std::vector<int64_t> shape = *t->shape();
  Value* zero = g.constant(Constant((int64_t)0));
  for (size_t i = 0; i < *dropped; ++i) {
    shape.erase(shape.begin());
    v = emitBefore(g, marker, "squeeze", {v, zero}, Type::tensor(t->dtype(), shape))->output();
  }
  if (fullyKnown(t->shape()) && fullyKnown(to) && shape != *to && expandsTo(shape, *to))
    v = emitBefore(g, marker, "expand", {v, g.constant(Constant(*to))},
                   Type::tensor(t->dtype(), *to))->output();
  return v;
}

bool rewriteBlock(Graph& g, Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= rewriteBlock(g, *sub);
    if (!node->is("prim.setitem_value")) continue;
    node->output()->replaceAllUsesWith(storedValue(g, node));
    node->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace

bool lowerSetitemValues(Graph& graph) { return rewriteBlock(graph, *graph.top()); }

}  // namespace stitch
