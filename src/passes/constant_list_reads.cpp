#include "passes/constant_list_reads.h"

#include <set>

#include "passes/writes.h"

namespace stitch {

namespace {

// The element list.get(%xs, k) reads when %xs is a construct and k a
// constant in range; null otherwise.
Value* constantElement(const Node* get) {
  const Node* list = get->input(0)->node();
  if (!list || !list->is("prim.list_construct")) return nullptr;
  const Constant* index = constantOf(get->input(1));
  if (!index || !index->isInt()) return nullptr;
  int64_t n = (int64_t)list->inputs().size();
  int64_t k = index->toInt();
  if (k < -n || k >= n) return nullptr;
  Value* element = list->input(k < 0 ? k + n : k);
  // A list of tensors of several shapes reads as f32[*]: the element is the
  // same tensor with a more precise type (shape inference runs again).
  const TypePtr& want = get->output()->type();
  if (!want->isTensor() || !element->type()->isTensor()) return *element->type() == *want ? element : nullptr;
  if (want->dtype() && element->type()->dtype() != want->dtype()) return nullptr;
  return element;
}

// Every use of the list reads an element at a constant index or reads the
// list as a whole: nothing writes through an element the list hands out
// later, so reads taken directly see every write.
bool onlyConstantlyRead(const Value* list) {
  static const std::set<std::string> readers = {"stack", "cat", "list.len"};
  for (const Use& u : list->uses()) {
    const Node* user = u.user;
    if (user->is("list.get") ? constantElement(user) == nullptr : !readers.count(user->kind())) return false;
  }
  return true;
}

bool resolve(Block* b) {
  bool changed = false;
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) changed |= resolve(sub);
    if (!n->is("list.get")) continue;
    Value* element = constantElement(n);
    if (!element || !onlyConstantlyRead(n->input(0))) continue;
    n->output()->replaceAllUsesWith(element);
    n->destroy();
    changed = true;
  }
  return changed;
}

bool readsWholeList(const Node* user) { return user->is("stack") || user->is("cat") || user->is("list.len"); }

// A construct read only as a whole (stack, cat, len, the graph's result) is
// built again right before each read: the list holds the tensors
// themselves, so a read sees their contents as they are at that point.
bool sinkToReaders(Graph& g, Node* construct) {
  Value* list = construct->output();
  if (!list->hasUses()) return false;
  Block* top = g.top();
  for (const Use& u : list->uses()) {
    bool graphResult = u.user == top->returnNode();
    if (!readsWholeList(u.user) && !graphResult) return false;
    bool alreadyThere = graphResult ? top->back() == construct : u.user->prev() == construct;
    if (alreadyThere && list->uses().size() == 1) return false;
  }
  std::vector<Use> uses = list->uses();
  for (const Use& u : uses) {
    Node* again = g.create(construct->schema(), construct->inputs());
    again->output()->setType(list->type());
    again->output()->setDebugName(list->debugName());
    again->setLoc(construct->loc());
    if (u.user == top->returnNode()) {
      top->append(again);
      top->replaceReturn(u.index, again->output());
    } else {
      u.user->owningBlock()->insertBefore(u.user, again);
      u.user->replaceInput(u.index, again->output());
    }
  }
  return true;
}

bool sinkConstructs(Graph& g, Block* b) {
  bool changed = false;
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) changed |= sinkConstructs(g, sub);
    if (n->is("prim.list_construct")) changed |= sinkToReaders(g, n);
  }
  return changed;
}

// Walks backwards so a construct whose reads all went is seen unused.
void dropUnusedConstructs(Block* b) {
  std::vector<Node*> nodes = b->nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    for (Block* sub : (*it)->blocks()) dropUnusedConstructs(sub);
    if ((*it)->is("prim.list_construct") && !(*it)->output()->hasUses()) (*it)->destroy();
  }
}

}  // namespace

bool resolveConstantListReads(Graph& graph) {
  if (!containsWrite(graph.top())) return false;
  bool changed = resolve(graph.top());
  changed |= sinkConstructs(graph, graph.top());
  if (changed) dropUnusedConstructs(graph.top());
  return changed;
}

}  // namespace stitch
