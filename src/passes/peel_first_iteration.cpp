#include "passes/peel_first_iteration.h"

#include <map>
#include <optional>

#include "ir/op_registry.h"
#include "passes/control_queries.h"
#include "passes/writes.h"

namespace stitch {

namespace {

constexpr size_t kMaxBodyNodes = 256;

// Some carried tensor slot needs peeling: its initial value visible
// elsewhere, a fresh value returned, and the body writes (through the
// parameter, or through any other name, which may be the initial value's
// too).
bool needsPeeling(const Node* loop) {
  const Block* body = loop->block(0);
  if (!containsWrite(body)) return false;
  for (size_t s = 0; s < loop->outputs().size(); ++s) {
    const Value* init = loop->input(s + 2);
    if (!init->type()->isTensor()) continue;
    bool shared = init->uses().size() > 1 || init->isBlockParam() || init->node()->schema().isView();
    if (shared && freshIn(body->ret(s + 1), body)) return true;
  }
  return false;
}

std::optional<int64_t> constantTrips(const Node* loop) {
  const Constant* trips = constantOf(loop->input(0));
  const Constant* cond = constantOf(loop->input(1));
  if (!trips || !trips->isInt() || !cond || !cond->isBool() || !cond->toBool()) return std::nullopt;
  return trips->toInt();
}

Value* mapped(const std::map<const Value*, Value*>& env, Value* v) {
  auto it = env.find(v);
  return it == env.end() ? v : it->second;
}

void peel(Graph& g, Node* loop, int64_t trips) {
  Block* body = loop->block(0);
  Block* home = loop->owningBlock();
  // The first iteration, in a scratch if so its nodes can be cloned in
  // order and then moved before the loop.
  std::map<const Value*, Value*> env;
  env[body->param(0)] = g.constant(Constant((int64_t)0));
  for (size_t s = 0; s < loop->outputs().size(); ++s) env[body->param(s + 1)] = loop->input(s + 2);
  Node* scratch = g.create("prim.if", {g.constant(Constant(true))}, 0);
  home->insertBefore(loop, scratch);
  Block* first = scratch->addBlock();
  Graph::cloneBlockInto(body, first, env);
  for (Node* n : first->nodes()) n->moveBefore(scratch);
  scratch->destroy();

  // The remaining iterations: index j stands for iteration j + 1.
  loop->replaceInput(0, g.constant(Constant(trips - 1)));
  loop->replaceInput(1, mapped(env, body->ret(0)));
  for (size_t s = 0; s < loop->outputs().size(); ++s) loop->replaceInput(s + 2, mapped(env, body->ret(s + 1)));
  Value* j = body->param(0);
  Node* index = g.create("scalar.add", {j, g.constant(Constant((int64_t)1))});
  index->output()->setType(Type::intT());
  index->setLoc(loop->loc());
  body->prepend(index);
  j->replaceAllUsesWith(index->output());
  index->replaceInput(0, j);
}

bool visit(Graph& g, Block* block) {
  bool changed = false;
  for (Node* n : block->nodes()) {
    for (Block* sub : n->blocks()) changed |= visit(g, sub);
    if (!n->is("prim.loop")) continue;
    std::optional<int64_t> trips = constantTrips(n);
    if (!trips || *trips < 1 || countNodes(n->block(0)) > kMaxBodyNodes || !needsPeeling(n)) continue;
    peel(g, n, *trips);
    changed = true;
  }
  return changed;
}

}  // namespace

bool peelFirstIterations(Graph& graph) { return visit(graph, graph.top()); }

}  // namespace stitch
