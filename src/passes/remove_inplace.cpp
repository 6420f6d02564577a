#include "passes/remove_inplace.h"

#include "ir/op_registry.h"

namespace stitch {

namespace {

// fill_ and zero_ stay: PyTorch lets them write through overlapping views
// (an expanded tensor), which copy_ refuses; rewrite-mutation treats them as
// writes of their own.
bool isFill(const Node& n) { return n.is("fill_") || n.is("zero_"); }

std::string outOfPlaceName(const Node& n) {
  const std::string& kind = n.kind();
  STITCH_ASSERT(!kind.empty() && kind.back() == '_', "in-place op without trailing _: " + kind);
  return kind.substr(0, kind.size() - 1);
}

// The out-of-place overload whose arguments match the in-place node's inputs.
const OpSchema& outOfPlaceSchema(const std::string& name, const std::vector<Value*>& ins) {
  std::vector<TypePtr> types;
  for (Value* v : ins) types.push_back(v->type());
  const OpSchema* s = findOverloadForInputs(name, types);
  STITCH_ASSERT(s != nullptr, "no out-of-place overload for " + name);
  return *s;
}

Node* insertBefore(Graph& g, Node* anchor, const OpSchema& schema, const std::vector<Value*>& ins,
                   TypePtr type) {
  Node* n = g.create(schema, ins);
  n->output()->setType(std::move(type));
  n->setLoc(anchor->loc());
  anchor->owningBlock()->insertBefore(anchor, n);
  return n;
}

// The out-of-place value of an in-place node, in self's dtype.
Value* computeOutOfPlace(Graph& g, Node* n) {
  Value* self = n->input(0);
  std::string name = outOfPlaceName(*n);
  std::vector<Value*> ins = n->inputs();
  Node* out = insertBefore(g, n, outOfPlaceSchema(name, ins), ins, self->type());
  std::vector<TypePtr> inferred = inferOutputTypes(*out);
  const TypePtr& got = inferred.at(0);
  const TypePtr& want = self->type();
  if (!got->dtype() || !want->dtype() || *got->dtype() == *want->dtype()) return out->output();
  out->output()->setType(Type::tensor(got->dtype(), want->shape()));
  Node* cast = insertBefore(g, n, OpRegistry::get().schema("to"), {out->output(), g.constant(Constant(*want->dtype()))},
                            want);
  return cast->output();
}

void rewriteNode(Graph& g, Node* n) {
  Value* self = n->input(0);
  if (!n->is("copy_") && !isFill(*n)) {
    Value* result = computeOutOfPlace(g, n);
    Node* copy = g.create("copy_", {self, result});
    copy->output()->setType(self->type());
    copy->setLoc(n->loc());
    n->owningBlock()->insertBefore(n, copy);
    n->output()->replaceAllUsesWith(self);
    n->destroy();
    return;
  }
  n->output()->replaceAllUsesWith(self);
}

void visitBlock(Graph& g, Block* b) {
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) visitBlock(g, sub);
    if (n->schema().isInPlace()) rewriteNode(g, n);
  }
}

}  // namespace

void removeInplace(Graph& graph) { visitBlock(graph, graph.top()); }

}  // namespace stitch
