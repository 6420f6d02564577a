#include "passes/unroll.h"

#include <algorithm>
#include <map>
#include <optional>

#include "passes/control_queries.h"
#include "passes/parallel_map.h"

namespace stitch {

namespace {

// The trip count when the loop is marked and small enough to copy.
std::optional<int64_t> unrollableTrips(const Node* loop) {
  if (!loop->hasAttr(kParallelMapAttr)) return std::nullopt;
  const Constant* mark = &loop->attr(kParallelMapAttr);
  if (!mark->isBool() || !mark->toBool()) return std::nullopt;
  const Constant* trips = constantOf(loop->input(0));
  if (!trips || !trips->isInt()) return std::nullopt;
  int64_t n = std::max<int64_t>(trips->toInt(), 0);  // a negative count runs no iteration
  if (n > kMaxUnrolledTrips) return std::nullopt;
  if ((size_t)n * countNodes(loop->block(0)) > kMaxUnrolledNodes) return std::nullopt;
  return n;
}

// Copies the body once before the loop; returns what it gives back for the
// carried values.
std::vector<Value*> copyIteration(Node* loop, int64_t i, const std::vector<Value*>& carried) {
  Graph& graph = *loop->graph();
  Block* body = loop->block(0);
  Block* owner = loop->owningBlock();
  std::map<const Value*, Value*> env;
  env[body->param(0)] = graph.constant(Constant(i), loop->loc());
  for (size_t k = 0; k < carried.size(); ++k) env[body->param(1 + k)] = carried[k];
  Node* last = owner->back();
  Graph::cloneBlockInto(body, owner, env);
  // The copies were appended at the block's end; they belong before the loop.
  std::vector<Node*> copies;
  for (Node* n = last->next(); n; n = n->next()) copies.push_back(n);
  for (Node* n : copies) n->moveBefore(loop);
  std::vector<Value*> next;
  for (size_t k = 0; k < carried.size(); ++k) {
    Value* r = body->ret(1 + k);
    auto it = env.find(r);
    next.push_back(it == env.end() ? r : it->second);
  }
  return next;
}

void unroll(Node* loop, int64_t trips) {
  std::vector<Value*> carried(loop->inputs().begin() + 2, loop->inputs().end());
  for (int64_t i = 0; i < trips; ++i) carried = copyIteration(loop, i, carried);
  for (size_t k = 0; k < carried.size(); ++k) loop->output(k)->replaceAllUsesWith(carried[k]);
  loop->destroy();
}

bool unrollBlock(Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= unrollBlock(*sub);
    if (!node->is("prim.loop")) continue;
    std::optional<int64_t> trips = unrollableTrips(node);
    if (!trips) continue;
    unroll(node, *trips);
    changed = true;
  }
  return changed;
}

}  // namespace

bool unrollParallelMaps(Graph& graph) { return unrollBlock(*graph.top()); }

}  // namespace stitch
