#include "passes/constant_folding.h"

#include "passes/static_eval.h"

namespace stitch {

namespace {

// A constant of exactly the value's type, or nothing (an int list known
// only in part, a value whose static type is wider than the constant's).
std::optional<Constant> foldedConstant(const StaticValue& s) {
  if (const Constant* c = std::get_if<Constant>(&s)) return *c;
  const PartialIntList* list = std::get_if<PartialIntList>(&s);
  if (!list) return std::nullopt;
  std::vector<int64_t> ints;
  for (const std::optional<int64_t>& element : *list) {
    if (!element) return std::nullopt;
    ints.push_back(*element);
  }
  return Constant(std::move(ints));
}

bool isFoldable(const Node* node) {
  return node->blocks().empty() && node->schema().isPure() && !node->is("prim.constant");
}

class Folder {
 public:
  explicit Folder(Graph& graph) : graph_(graph) {}

  bool foldBlock(Block& block) {
    bool changed = false;
    for (Node* node : block.nodes()) {
      for (Block* sub : node->blocks()) changed |= foldBlock(*sub);
      if (node->is("prim.constant")) {
        known_.set(node->output(), node->attr("value"));
        continue;
      }
      if (!isFoldable(node)) continue;
      changed |= foldNode(node);
    }
    return changed;
  }

 private:
  bool foldNode(Node* node) {
    std::vector<StaticValue> values = evaluateStatically(*node, known_);
    bool changed = false;
    for (size_t i = 0; i < values.size(); ++i) {
      Value* out = node->output(i);
      std::optional<Constant> c = foldedConstant(values[i]);
      if (!c) continue;
      known_.set(out, *c);
      if (!out->hasUses() || !(*c->type() == *out->type())) continue;
      Node* constant = graph_.createConstant(*c);
      constant->setLoc(node->loc());
      node->owningBlock()->insertBefore(node, constant);
      out->replaceAllUsesWith(constant->output());
      changed = true;
    }
    return changed;
  }

  Graph& graph_;
  PropagatedValues known_;
};

}  // namespace

bool foldConstants(Graph& graph) { return Folder(graph).foldBlock(*graph.top()); }

}  // namespace stitch
