#include "passes/dce.h"

#include <algorithm>
#include <unordered_set>

#include "ir/op_registry.h"

namespace stitch {

namespace {

bool anyOutputUsed(const Node* node) {
  const auto& outs = node->outputs();
  return std::any_of(outs.begin(), outs.end(), [](const Value* v) { return v->hasUses(); });
}

bool blockIsPure(const Block& block);

// Whether removing the node (when unused) cannot change what a run does.
// A loop runs a bounded or condition-ended number of pure iterations, so a
// pure one whose results nobody reads may go like a pure branch.
bool isRemovable(const Node* node) {
  if (node->is("prim.if") || node->is("prim.loop")) {
    return std::all_of(node->blocks().begin(), node->blocks().end(),
                       [](const Block* b) { return blockIsPure(*b); });
  }
  return node->blocks().empty() && node->schema().isPure();
}

bool blockIsPure(const Block& block) {
  for (const Node* node : block)
    if (!isRemovable(node)) return false;
  return true;
}

void markEveryUseInside(const Block& block, std::unordered_set<const Value*>& live) {
  for (const Node* node : block) {
    for (const Value* in : node->inputs()) live.insert(in);
    for (const Block* sub : node->blocks()) markEveryUseInside(*sub, live);
  }
  for (const Value* r : block.returns()) live.insert(r);
}

// The values of `block` that something other than return `ignoredReturn`
// needs: the other returns, and the inputs of effectful or live nodes
// (everything a live node's sub-blocks read counts, conservatively).
std::unordered_set<const Value*> liveValues(const Block& block, size_t ignoredReturn) {
  std::unordered_set<const Value*> live;
  for (size_t i = 0; i < block.returns().size(); ++i)
    if (i != ignoredReturn) live.insert(block.ret(i));
  std::vector<Node*> nodes = block.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node* node = *it;
    bool needed = !isRemovable(node) ||
                  std::any_of(node->outputs().begin(), node->outputs().end(),
                              [&](const Value* v) { return live.count(v) != 0; });
    if (!needed) continue;
    for (const Value* in : node->inputs()) live.insert(in);
    for (const Block* sub : node->blocks()) markEveryUseInside(*sub, live);
  }
  return live;
}

bool sweepBlock(Block& block);

// Branch outputs nobody reads: both branches stop returning them.
bool pruneIfOutputs(Node* node) {
  bool changed = false;
  for (size_t i = node->outputs().size(); i-- > 0;) {
    if (node->output(i)->hasUses()) continue;
    for (Block* b : node->blocks()) b->eraseReturn(i);
    node->eraseOutput(i);
    changed = true;
  }
  if (changed)
    for (Block* b : node->blocks()) sweepBlock(*b);
  return changed;
}

// A loop-carried value is dead when the loop's result for it is unused and
// the body needs it only to compute its own next value (e.g. an accumulator
// nobody reads after the loop). Carried k: loop input k + 2, body param
// k + 1, body return k + 1, loop output k.
bool pruneLoopCarried(Node* node) {
  bool changed = false;
  Block* body = node->block(0);
  for (size_t k = node->outputs().size(); k-- > 0;) {
    if (node->output(k)->hasUses()) continue;
    if (liveValues(*body, k + 1).count(body->param(k + 1))) continue;
    body->eraseReturn(k + 1);
    node->eraseOutput(k);
    while (sweepBlock(*body)) {
    }
    STITCH_ASSERT(!body->param(k + 1)->hasUses(), "dead carried value still used in the loop body");
    body->eraseParam(k + 1);
    node->removeInput(k + 2);
    changed = true;
  }
  return changed;
}

// A loop whose trip count is a constant <= 0, or whose start condition is
// the constant false, never runs its body: its results are the values it
// starts from.
bool neverRuns(const Node* loop) {
  const Constant* trips = constantOf(loop->input(0));
  const Constant* cond = constantOf(loop->input(1));
  return (trips && trips->isInt() && trips->toInt() <= 0) || (cond && cond->isBool() && !cond->toBool());
}

bool sweepBlock(Block& block) {
  bool changed = false;
  std::vector<Node*> nodes = block.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node* node = *it;
    if (node->is("prim.loop") && neverRuns(node)) {
      for (size_t k = 0; k < node->outputs().size(); ++k) node->output(k)->replaceAllUsesWith(node->input(k + 2));
      node->destroy();
      changed = true;
      continue;
    }
    for (Block* sub : node->blocks()) changed |= sweepBlock(*sub);
    if (anyOutputUsed(node) || !isRemovable(node)) {
      if (node->is("prim.if")) changed |= pruneIfOutputs(node);
      if (node->is("prim.loop")) changed |= pruneLoopCarried(node);
      continue;
    }
    node->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace

bool eliminateDeadCode(Graph& graph) {
  bool changed = false;
  while (sweepBlock(*graph.top())) changed = true;
  return changed;
}

}  // namespace stitch
