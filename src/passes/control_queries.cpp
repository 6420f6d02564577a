#include "passes/control_queries.h"

#include "ir/op_registry.h"

namespace stitch {

bool definedInside(const Value* v, const Node* control) {
  for (const Block* b = v->node()->owningBlock(); b != nullptr;) {
    const Node* owner = b->owningNode();
    if (owner == control) return true;
    b = owner ? owner->owningBlock() : nullptr;
  }
  return false;
}

bool freshIn(const Value* v, const Block* block) {
  const Node* def = v->node();
  if (v->isBlockParam() || def->owningBlock() != block) return false;
  if (def->schema().isView() || !def->blocks().empty()) return false;
  return !def->is("list.get") && !def->is("prim.list_unpack") && !def->is("prim.tuple_unpack") &&
         !def->is("prim.tuple_index");
}

size_t countNodes(const Block* block) {
  size_t count = 0;
  for (const Node* n : *block) {
    ++count;
    for (const Block* sub : n->blocks()) count += countNodes(sub);
  }
  return count;
}

const Node* carrierOf(const Value* v) {
  const Node* n = v->isBlockParam() ? v->node()->owningBlock()->owningNode() : v->node();
  if (!n || !(n->is("prim.loop") || (n->is("prim.if") && !v->isBlockParam()))) return nullptr;
  return n;
}

std::vector<const Value*> passedOnAs(const Value* v) {
  const Node* n = carrierOf(v);
  if (!n) return {};
  if (n->is("prim.loop")) {
    if (v->isBlockParam() && v->offset() == 0) return {};  // the iteration index
    size_t slot = v->isBlockParam() ? v->offset() - 1 : v->offset();
    return {n->input(slot + 2), n->block(0)->ret(slot + 1)};
  }
  std::vector<const Value*> out;
  for (const Block* b : n->blocks()) out.push_back(b->ret(v->offset()));
  return out;
}

}  // namespace stitch
