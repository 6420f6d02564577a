#include "passes/identity_carries.h"

namespace stitch {

namespace {

bool definedOutside(const Value* v, const Node* control) {
  for (const Block* b = v->node()->owningBlock(); b != nullptr;) {
    const Node* owner = b->owningNode();
    if (owner == control) return false;
    b = owner ? owner->owningBlock() : nullptr;
  }
  return true;
}

void collapseLoop(Node* loop) {
  Block* body = loop->block(0);
  for (size_t i = loop->outputs().size(); i-- > 0;) {
    Value* param = body->param(i + 1);
    if (body->ret(i + 1) != param || !param->type()->isTensor()) continue;
    Value* init = loop->input(i + 2);
    param->replaceAllUsesWith(init);
    loop->output(i)->replaceAllUsesWith(init);
    body->eraseReturn(i + 1);
    body->eraseParam(i + 1);
    loop->eraseOutput(i);
    loop->removeInput(i + 2);
  }
}

void collapseIf(Node* branch) {
  for (size_t i = branch->outputs().size(); i-- > 0;) {
    Value* same = branch->block(0)->ret(i);
    if (!same->type()->isTensor() || !definedOutside(same, branch)) continue;
    bool allSame = true;
    for (Block* b : branch->blocks()) allSame &= b->ret(i) == same;
    if (!allSame) continue;
    branch->output(i)->replaceAllUsesWith(same);
    for (Block* b : branch->blocks()) b->eraseReturn(i);
    branch->eraseOutput(i);
  }
}

void visit(Block* b) {
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) visit(sub);
    if (n->is("prim.loop")) collapseLoop(n);
    if (n->is("prim.if")) collapseIf(n);
  }
}

}  // namespace

void removeIdentityCarries(Graph& graph) { visit(graph.top()); }

}  // namespace stitch
