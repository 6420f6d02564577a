#include "passes/specialize_lists.h"

#include "ir/op_registry.h"
#include "ir/printer.h"

namespace stitch {

namespace {

bool specializable(const TypePtr& t) {
  if (t->isScalar()) return true;
  return t->isTensor() && t->dtype() && t->fullyKnown();
}

bool allSpecializable(const std::vector<TypePtr>& elems) {
  if (elems.size() > kMaxSpecializedListLength) return false;
  for (const TypePtr& t : elems)
    if (!t || !specializable(t)) return false;
  return true;
}

std::string typeList(const std::vector<TypePtr>& elems) {
  std::string s;
  for (size_t i = 0; i < elems.size(); ++i) s += (i ? ", " : "") + elems[i]->str();
  return s;
}

// Builds the nodes at the top of the graph, after its constants, in order.
class Builder {
 public:
  Builder(Graph& graph, SourceLoc loc) : graph_(graph), loc_(std::move(loc)) {
    anchor_ = graph.top()->front();
    while (anchor_ && anchor_->is("prim.constant")) anchor_ = anchor_->next();
  }

  Value* add(const std::string& op, const std::vector<Value*>& inputs) {
    std::vector<TypePtr> types;
    for (const Value* v : inputs) types.push_back(v->type());
    const OpSchema* schema = findOverloadForInputs(op, types);
    STITCH_ASSERT(schema, "no overload of ", op, " for the list specialization's inputs");
    Node* n = graph_.create(*schema, inputs);
    n->setLoc(loc_);
    insert(n);
    std::vector<TypePtr> out = inferOutputTypes(*n);
    for (size_t i = 0; i < out.size(); ++i) n->output(i)->setType(out[i]);
    return n->outputs().empty() ? nullptr : n->output();
  }

  Value* constant(const Constant& c) { return graph_.constant(c, loc_); }

  // prim.if(cond) {} else { prim.raise(message) }
  void guard(Value* cond, const std::string& message) {
    Node* ifNode = graph_.create("prim.if", {cond});
    ifNode->setLoc(loc_);
    ifNode->addBlock();
    Block* fail = ifNode->addBlock();
    Node* raise = graph_.create("prim.raise", {constant(Constant(message))});
    raise->setLoc(loc_);
    fail->append(raise);
    insert(ifNode);
  }

 private:
  void insert(Node* n) {
    if (anchor_) graph_.top()->insertBefore(anchor_, n);
    else graph_.top()->append(n);
  }

  Graph& graph_;
  SourceLoc loc_;
  Node* anchor_;
};

Value* andAlso(Builder& b, Value* all, Value* cond) {
  return all ? b.add("scalar.and", {all, cond}) : cond;
}

// `all` and t has exactly `shape`: the dims t's static type leaves open are
// compared one by one. The dims it knows are not (constant folding would
// take the static type's word for them); the element count and the expand
// in exactElements catch a tensor that breaks the static type there. Null
// when nothing needs checking (the static type is the exact one).
Value* andShapeMatches(Builder& b, Value* all, Value* t, const std::vector<int64_t>& shape) {
  const std::vector<int64_t>& known = *t->type()->shape();
  int64_t numel = 1;
  bool someKnown = false, someOpen = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    numel *= shape[d];
    if (known[d] != Type::kUnknownDim) {
      someKnown = true;
      continue;
    }
    someOpen = true;
    Value* size = b.add("size", {t, b.constant(Constant((int64_t)d))});
    all = andAlso(b, all, b.add("scalar.eq", {size, b.constant(Constant(shape[d]))}));
  }
  if (!someKnown || !someOpen) return all;
  Value* count = b.add("numel", {t});
  return andAlso(b, all, b.add("scalar.eq", {count, b.constant(Constant(numel))}));
}

// Whether a value of type `joined` (what list.get gives) can be checked to
// be of type `exact` at run time: same kind, dtype and rank, and every dim
// the joined type knows is the exact one.
bool refinable(const TypePtr& joined, const TypePtr& exact) {
  if (exact->isScalar()) return joined->kind() == exact->kind();
  if (!joined->isTensor() || !joined->dtype() || joined->dtype() != exact->dtype() ||
      joined->rank() != exact->rank())
    return false;
  for (int64_t d = 0; d < exact->rank(); ++d) {
    int64_t j = (*joined->shape())[d];
    if (j != Type::kUnknownDim && j != (*exact->shape())[d]) return false;
  }
  return true;
}

// The elements with their exact types: the tensors' shapes are checked in
// one guard, then each tensor is expanded to its exact shape, which gives it
// its exact static type. Once the guard passed the expand is the identity;
// it fails on a dim the static type knows wrongly (neither equal nor 1),
// and together with the element count that leaves only the exact shape.
std::vector<Value*> exactElements(Builder& b, Value* list, const std::vector<TypePtr>& types,
                                  const std::string& message) {
  std::vector<Value*> elems;
  Value* ok = nullptr;
  for (size_t i = 0; i < types.size(); ++i) {
    elems.push_back(b.add("list.get", {list, b.constant(Constant((int64_t)i))}));
    if (types[i]->isTensor()) ok = andShapeMatches(b, ok, elems[i], *types[i]->shape());
  }
  if (ok) b.guard(ok, message);
  for (size_t i = 0; i < types.size(); ++i) {
    if (!types[i]->isTensor() || *elems[i]->type() == *types[i]) continue;
    elems[i] = b.add("immut.expand", {elems[i], b.constant(Constant(*types[i]->shape()))});
    elems[i]->setType(types[i]);
    elems[i]->setDebugName(list->debugName());
  }
  return elems;
}

bool specializeInput(Builder& b, Value* input, const std::vector<TypePtr>& elems) {
  if (!input->type() || input->type()->kind() != TypeKind::List || !input->hasUses()) return false;
  if (!allSpecializable(elems)) return false;
  for (const TypePtr& t : elems)
    if (!refinable(input->type()->elem(), t)) return false;
  std::string name = printedName(*input);
  std::string message = errorMessage("input '", name, "' was compiled for a list of ", elems.size(),
                                     " elements (", typeList(elems),
                                     "); this run's list differs (compile again for it)");
  std::vector<Use> uses = input->uses();
  Value* length = b.add("list.len", {input});
  b.guard(b.add("scalar.eq", {length, b.constant(Constant((int64_t)elems.size()))}), message);
  std::vector<Value*> exact = exactElements(b, input, elems, message);
  Value* rebuilt = b.add("prim.list_construct", exact);
  // An empty list keeps the input's element type.
  if (exact.empty()) rebuilt->setType(input->type());
  rebuilt->setDebugName(input->debugName());
  for (const Use& u : uses) u.user->replaceInput(u.index, rebuilt);
  return true;
}

}  // namespace

bool specializeListInputs(Graph& graph, const ListInputTypes& elementTypes) {
  // One builder: the inputs' guards come in parameter order.
  Builder b(graph, {});
  bool changed = false;
  for (size_t i = 0; i < graph.inputs().size() && i < elementTypes.size(); ++i)
    if (elementTypes[i]) changed |= specializeInput(b, graph.inputs()[i], *elementTypes[i]);
  return changed;
}

}  // namespace stitch
