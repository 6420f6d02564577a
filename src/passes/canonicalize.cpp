#include "passes/canonicalize.h"

#include <set>

#include "ir/op_registry.h"
#include "passes/alias_analysis.h"
#include "passes/control_queries.h"

namespace stitch {

namespace {

bool sameStaticType(const Value* a, const Value* b) {
  const TypePtr& ta = a->type();
  const TypePtr& tb = b->type();
  if (!ta || !tb || !ta->isTensor() || !tb->isTensor()) return false;
  return ta->fullyKnown() && *ta == *tb;
}

// The same Value, or two constants of equal value.
bool sameArgument(const Value* a, const Value* b) {
  if (a == b) return true;
  const Node* na = a->node();
  const Node* nb = b->node();
  if (!na || !nb || !na->is("prim.constant") || !nb->is("prim.constant")) return false;
  return na->attr("value") == nb->attr("value");
}

// access(assign(x, v, args...), args...) -> v: the arguments after the
// tensor(s) must match one for one.
Value* accessOfAssign(const Node* access, const char* assignKind) {
  const Node* assign = access->input(0)->node();
  if (!assign || !assign->is(assignKind)) return nullptr;
  size_t args = access->inputs().size() - 1;
  if (assign->inputs().size() != args + 2) return nullptr;
  for (size_t i = 0; i < args; ++i)
    if (!sameArgument(access->input(1 + i), assign->input(2 + i))) return nullptr;
  Value* v = assign->input(1);
  return sameStaticType(v, access->output()) ? v : nullptr;
}

// list.get(prim.list_construct(%a, %b, ...), i) with a constant i in range
// -> that element (Python's negative indices count from the end).
Value* elementOfConstructedList(const Node* get) {
  const Node* list = get->input(0)->node();
  const Constant* index = constantOf(get->input(1));
  if (!list || !list->is("prim.list_construct") || !index || !index->isInt()) return nullptr;
  int64_t size = (int64_t)list->inputs().size();
  int64_t i = index->toInt() < 0 ? index->toInt() + size : index->toInt();
  return i >= 0 && i < size ? list->input(i) : nullptr;
}

// list.append(prim.list_construct(%a, ...), %v) -> prim.list_construct(%a,
// ..., %v) (lists are values here: append makes a new one, so this holds
// even when the append runs in a loop). Only where the list is used nowhere
// else, or empty (cse merges empty lists): other uses would keep the old
// construct, and its elements would be listed twice.
Value* longerConstructedList(Node* append) {
  Node* list = append->input(0)->node();
  if (!list || !list->is("prim.list_construct")) return nullptr;
  if (append->input(0)->uses().size() != 1 && !list->inputs().empty()) return nullptr;
  std::vector<Value*> elems = list->inputs();
  elems.push_back(append->input(1));
  Node* longer = append->graph()->create("prim.list_construct", elems);
  TypePtr type = inferOutputTypes(*longer).at(0);
  // The elements must give the list its kind of element (an int appended to
  // an empty List[float] would make a List[int]).
  const TypePtr& was = append->output()->type();
  if (was->kind() != TypeKind::List || type->elem()->kind() != was->elem()->kind()) {
    longer->destroy();
    return nullptr;
  }
  longer->setLoc(append->loc());
  append->owningBlock()->insertBefore(append, longer);
  longer->output()->setType(type);
  longer->output()->setDebugName(append->output()->debugName());
  return longer->output();
}

// The value the node's output equals, or null.
Value* replacementFor(Node* n) {
  if (n->is("list.get")) return elementOfConstructedList(n);
  if (n->is("list.append")) return longerConstructedList(n);
  if (n->is("immut.select")) return accessOfAssign(n, "immut.select_rev");
  if (n->is("immut.slice")) return accessOfAssign(n, "immut.slice_rev");
  if (n->is("immut.assign"))
    return sameStaticType(n->input(1), n->input(0)) ? n->input(1) : nullptr;
  if (n->is("immut.view") || n->is("to"))
    return sameStaticType(n->input(0), n->output()) ? n->input(0) : nullptr;
  return nullptr;
}

// Whether v may be a graph input at run time: the input itself, or a loop's
// or branch's value that may pass one on unchanged (a loop that runs no
// iteration or breaks before writing, an arm returning it).
bool mayBeGraphInput(const Value* v, std::set<const Value*>& seen) {
  if (!v->type()->isTensor() || !seen.insert(v).second) return false;
  if (v->isBlockParam() && v->node() == v->graph()->top()->paramNode()) return true;
  for (const Value* source : passedOnAs(v))
    if (mayBeGraphInput(source, seen)) return true;
  return false;
}

bool mayBeGraphInput(const Value* v) {
  std::set<const Value*> seen;
  return mayBeGraphInput(v, seen);
}

// The node's output is replaced by the value it equals. Where it leaves a
// block (a graph output, a loop-carried or branch result) and that value
// may be a graph input, it gets a copy instead: the input's buffer is overwritten
// with the input's written-back value after the run (functionalize.h), and
// the output was a copy the program made before that write.
void replaceOutput(Graph& g, Node* node, Value* replacement) {
  Value* out = node->output();
  Value* copy = nullptr;
  if (mayBeGraphInput(replacement)) {
    for (const Use& use : std::vector<Use>(out->uses())) {
      if (use.user != use.user->owningBlock()->returnNode()) continue;
      if (!copy) copy = emitBefore(g, node, "clone", {replacement}, out->type())->output();
      use.user->replaceInput(use.index, copy);
    }
  }
  out->replaceAllUsesWith(replacement);
}

bool canonicalizeBlock(Graph& g, Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= canonicalizeBlock(g, *sub);
    if (node->outputs().size() != 1 || !node->output()->hasUses()) continue;
    Value* replacement = replacementFor(node);
    if (!replacement) continue;
    replaceOutput(g, node, replacement);
    changed = true;
  }
  return changed;
}

}  // namespace

bool canonicalize(Graph& graph) { return canonicalizeBlock(graph, *graph.top()); }

}  // namespace stitch
