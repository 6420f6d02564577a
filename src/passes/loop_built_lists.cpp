#include "passes/loop_built_lists.h"

#include <optional>

#include "ir/op_registry.h"
#include "passes/control_queries.h"
#include "passes/writes.h"

namespace stitch {

namespace {

constexpr int64_t kMaxTrips = 64;

std::optional<int64_t> constantInt(const Value* v) {
  const Constant* c = constantOf(v);
  if (!c || !c->isInt()) return std::nullopt;
  return c->toInt();
}

bool constantTrue(const Value* v) {
  const Constant* c = constantOf(v);
  return c && c->isBool() && c->toBool();
}

// Whether argument `input` of view node `view` may be the loop index: a
// select's index in range for every iteration, or a slice's bound.
bool indexMayPick(const Node* view, size_t input, int64_t trips) {
  if (view->is("slice")) return input == 2 || input == 3;
  if (!view->is("select") || input != 2) return false;
  auto dim = constantInt(view->input(1));
  const TypePtr& t = view->input(0)->type();
  if (!dim || !t->isTensor() || !t->fullyKnown()) return false;
  int64_t rank = (int64_t)t->shape()->size();
  int64_t d = *dim < 0 ? *dim + rank : *dim;
  return d >= 0 && d < rank && trips <= (*t->shape())[d];
}

// The views taken in the body to make the appended element, base first;
// nullopt when the element is not such a chain.
std::optional<std::vector<Node*>> appendedChain(Value* element, Node* loop, int64_t trips) {
  Value* index = loop->block(0)->param(0);
  std::vector<Node*> chain;
  Value* v = element;
  while (definedInside(v, loop)) {
    Node* view = v->node();
    if (view->owningBlock() != loop->block(0) || !view->schema().isView() || view->outputs().size() != 1 ||
        view->inputs().empty() || !view->blocks().empty())
      return std::nullopt;
    for (size_t i = 1; i < view->inputs().size(); ++i) {
      Value* arg = view->input(i);
      if (arg == index ? !indexMayPick(view, i, trips) : definedInside(arg, loop)) return std::nullopt;
    }
    chain.insert(chain.begin(), view);
    v = view->input(0);
  }
  return chain;
}

// The element of iteration k, taken again before `anchor` (appended to
// `block` when anchor is null).
Value* elementAt(Graph& g, Value* element, const std::vector<Node*>& chain, Node* loop, int64_t k,
                 Block* block, Node* anchor) {
  if (chain.empty()) return element;
  Value* index = loop->block(0)->param(0);
  Value* cur = chain.front()->input(0);
  for (const Node* view : chain) {
    std::vector<Value*> ins = view->inputs();
    ins[0] = cur;
    for (size_t i = 1; i < ins.size(); ++i)
      if (ins[i] == index) ins[i] = g.constant(Constant(k));
    Node* n = g.create(view->schema(), ins);
    for (const auto& [name, value] : view->attrs()) n->setAttr(name, value);
    n->output()->setType(view->output()->type());
    n->setLoc(view->loc());
    if (anchor) block->insertBefore(anchor, n);
    else block->append(n);
    cur = n->output();
  }
  return cur;
}

bool readsWholeList(const Node* user) { return user->is("stack") || user->is("cat") || user->is("list.len"); }

bool resolvable(const Graph& g, const Value* list, int64_t trips) {
  for (const Use& u : list->uses()) {
    if (u.user == g.top()->returnNode() || readsWholeList(u.user)) continue;
    if (!u.user->is("list.get")) return false;
    auto k = constantInt(u.user->input(1));
    if (!k || *k < -trips || *k >= trips) return false;
  }
  return true;
}

bool resolveSlot(Graph& g, Node* loop, size_t s, int64_t trips) {
  Block* body = loop->block(0);
  Value* init = loop->input(s + 2);
  Value* param = body->param(s + 1);
  Value* ret = body->ret(s + 1);
  Value* out = loop->output(s);
  if (!init->node()->is("prim.list_construct") || !init->node()->inputs().empty()) return false;
  if (!ret->node()->is("list.append") || ret->node()->input(0) != param || ret->uses().size() != 1) return false;
  if (param->uses().size() != 1 || !resolvable(g, out, trips)) return false;
  Value* element = ret->node()->input(1);
  auto chain = appendedChain(element, loop, trips);
  if (!chain) return false;

  std::vector<Use> uses = out->uses();
  for (const Use& u : uses) {
    bool result = u.user == g.top()->returnNode();
    Block* block = result ? g.top() : u.user->owningBlock();
    Node* anchor = result ? nullptr : u.user;
    if (u.user->is("list.get")) {
      int64_t k = *constantInt(u.user->input(1));
      Value* e = elementAt(g, element, *chain, loop, k < 0 ? k + trips : k, block, anchor);
      u.user->output()->replaceAllUsesWith(e);
      u.user->destroy();
      continue;
    }
    std::vector<Value*> all;
    for (int64_t k = 0; k < trips; ++k) all.push_back(elementAt(g, element, *chain, loop, k, block, anchor));
    Node* list = g.create("prim.list_construct", all);
    list->output()->setType(out->type());
    list->setLoc(loop->loc());
    if (anchor) block->insertBefore(anchor, list);
    else block->append(list);
    if (result) g.top()->replaceReturn(u.index, list->output());
    else u.user->replaceInput(u.index, list->output());
  }
  Node* append = ret->node();
  body->eraseReturn(s + 1);
  append->destroy();
  body->eraseParam(s + 1);
  loop->eraseOutput(s);
  loop->removeInput(s + 2);
  return true;
}

bool visit(Graph& g, Block* block) {
  bool changed = false;
  for (Node* n : block->nodes()) {
    for (Block* sub : n->blocks()) changed |= visit(g, sub);
    if (!n->is("prim.loop") || !constantTrue(n->input(1)) || !constantTrue(n->block(0)->ret(0))) continue;
    auto trips = constantInt(n->input(0));
    if (!trips || *trips < 0 || *trips > kMaxTrips) continue;
    for (size_t s = n->outputs().size(); s-- > 0;) changed |= resolveSlot(g, n, s, *trips);
  }
  return changed;
}

}  // namespace

bool resolveLoopBuiltLists(Graph& graph) {
  // Without writes, views through loops and lists of views are already
  // followed as they are.
  return containsWrite(graph.top()) && visit(graph, graph.top());
}

}  // namespace stitch
