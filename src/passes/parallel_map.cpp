#include "passes/parallel_map.h"

#include "ir/op_registry.h"

namespace stitch {

namespace {

bool isConstantTrue(const Value* v) {
  const Constant* c = constantOf(v);
  return c && c->isBool() && c->toBool();
}

// Whether `block` is `loop`'s body or nested inside it.
bool isInside(const Block* block, const Node* loop) {
  while (block) {
    const Node* owner = block->owningNode();
    if (owner == loop) return true;
    block = owner ? owner->owningBlock() : nullptr;
  }
  return false;
}

bool definedOutside(const Value* v, const Node* loop) {
  return !isInside(v->node()->owningBlock(), loop);
}

// Pure ops only (nested loops and branches with pure contents too): an
// iteration then has no effect but its results.
bool isPureBlock(const Block* block) {
  for (const Node* n : *block) {
    bool control = n->is("prim.loop") || n->is("prim.if");
    if (!control && !n->schema().isPure()) return false;
    for (const Block* sub : n->blocks())
      if (!isPureBlock(sub)) return false;
  }
  return true;
}

class LoopAnalysis {
 public:
  explicit LoopAnalysis(const Node* loop) : loop_(loop), body_(loop->block(0)) {}

  bool isParallelMap() const {
    if (!isConstantTrue(loop_->input(1)) || !isConstantTrue(body_->ret(0))) return false;
    if (!isPureBlock(body_)) return false;
    for (size_t k = 0; k < loop_->outputs().size(); ++k)
      if (!isIndependentCarry(k)) return false;
    return true;
  }

 private:
  bool isIndependentCarry(size_t k) const {
    const Value* param = body_->param(1 + k);
    if (body_->ret(1 + k) == param) return true;  // invariant
    if (param->type() && param->type()->kind() == TypeKind::List) return isAppendOnly(k);
    if (param->type() && param->type()->isScalar()) return isInduction(body_->ret(1 + k), param);
    return false;
  }

  // param -> list.append -> list.append -> ... -> return slot k, each list
  // used by the next step only.
  bool isAppendOnly(size_t k) const {
    const Value* list = body_->param(1 + k);
    while (list->uses().size() == 1) {
      const Use& use = list->uses()[0];
      if (use.user == body_->returnNode()) return use.index == 1 + k;
      if (!use.user->is("list.append") || use.index != 0 || use.user->owningBlock() != body_)
        return false;
      list = use.user->output();
    }
    return false;
  }

  // v is computed by scalar ops (in the body's own block) from the carried
  // scalar `self`, the counter, constants and values from outside the loop.
  bool isInduction(const Value* v, const Value* self) const {
    if (v == self || v == body_->param(0) || definedOutside(v, loop_)) return true;
    const Node* n = v->node();
    if (n->owningBlock() != body_) return false;
    if (n->is("prim.constant")) return true;
    if (n->kind().rfind("scalar.", 0) != 0) return false;
    for (const Value* in : n->inputs())
      if (!isInduction(in, self)) return false;
    return true;
  }

  const Node* loop_;
  const Block* body_;
};

bool markBlock(Block& block) {
  bool changed = false;
  for (Node* node : block) {
    for (Block* sub : node->blocks()) changed |= markBlock(*sub);
    if (!node->is("prim.loop") || node->hasAttr(kParallelMapAttr)) continue;
    if (!LoopAnalysis(node).isParallelMap()) continue;
    node->setAttr(kParallelMapAttr, Constant(true));
    changed = true;
  }
  return changed;
}

}  // namespace

bool markParallelMaps(Graph& graph) { return markBlock(*graph.top()); }

}  // namespace stitch
