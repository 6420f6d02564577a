#include "passes/canonicalize.h"

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

// The value the node's output equals, or null.
Value* replacementFor(const Node* n) {
  if (n->is("immut.select")) return accessOfAssign(n, "immut.select_rev");
  if (n->is("immut.slice")) return accessOfAssign(n, "immut.slice_rev");
  if (n->is("immut.assign"))
    return sameStaticType(n->input(1), n->input(0)) ? n->input(1) : nullptr;
  if (n->is("immut.view") || n->is("to"))
    return sameStaticType(n->input(0), n->output()) ? n->input(0) : nullptr;
  return nullptr;
}

bool canonicalizeBlock(Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= canonicalizeBlock(*sub);
    Value* replacement = replacementFor(node);
    if (!replacement || !node->output()->hasUses()) continue;
    node->output()->replaceAllUsesWith(replacement);
    changed = true;
  }
  return changed;
}

}  // namespace

bool canonicalize(Graph& graph) { return canonicalizeBlock(*graph.top()); }

}  // namespace stitch
