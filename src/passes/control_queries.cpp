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

}  // namespace stitch
