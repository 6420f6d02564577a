#include "passes/block_propagation.h"

#include <algorithm>

#include "passes/control_queries.h"

namespace stitch {

namespace {

// Values updated directly in control's blocks but defined outside it.
std::vector<Value*> outerUpdatedValues(const Node* control) {
  std::vector<Value*> out;
  for (const Block* b : control->blocks()) {
    for (Node* n : *b) {
      if (!n->is("tssa.update")) continue;
      Value* old = n->input(1);
      if (definedInside(old, control)) continue;
      if (std::find(out.begin(), out.end(), old) == out.end()) out.push_back(old);
    }
  }
  return out;
}

Node* makeUpdate(Graph& g, Value* newer, Value* old, const Node* locOf) {
  Node* u = g.create("tssa.update", {newer, old});
  u->setLoc(locOf->loc());
  return u;
}

void carryThroughLoop(Graph& g, Node* loop, Value* old) {
  Block* body = loop->block(0);
  loop->addInput(old);
  Value* param = body->addParam(old->type(), old->debugName());
  body->addReturn(old);
  Value* out = loop->addOutput(old->type(), old->debugName());
  body->prepend(makeUpdate(g, param, old, loop));
  loop->owningBlock()->insertAfter(loop, makeUpdate(g, out, old, loop));
}

void routeThroughIf(Graph& g, Node* branch, Value* old) {
  Value* out = branch->addOutput(old->type(), old->debugName());
  for (Block* b : branch->blocks()) b->addReturn(old);
  branch->owningBlock()->insertAfter(branch, makeUpdate(g, out, old, branch));
}

void propagate(Graph& g, Block* block) {
  for (Node* n : block->nodes()) {
    if (n->blocks().empty()) continue;
    for (Block* sub : n->blocks()) propagate(g, sub);
    std::vector<Value*> olds = outerUpdatedValues(n);
    // insertAfter puts each marker right after the node: reverse keeps order.
    std::reverse(olds.begin(), olds.end());
    for (Value* old : olds) {
      if (n->is("prim.loop")) {
        carryThroughLoop(g, n, old);
      } else {
        STITCH_ASSERT(n->is("prim.if"), "block propagation through unknown control op " + n->kind());
        routeThroughIf(g, n, old);
      }
    }
  }
}

}  // namespace

void propagateBlocks(Graph& graph) { propagate(graph, graph.top()); }

}  // namespace stitch
