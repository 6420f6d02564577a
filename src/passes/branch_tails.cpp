#include "passes/branch_tails.h"

#include <map>
#include <set>

#include "ir/op_registry.h"
#include "passes/control_queries.h"
#include "passes/writes.h"

namespace stitch {

namespace {

constexpr size_t kMaxTailNodes = 256;     // per branch copied into
constexpr size_t kMaxCopiedNodes = 4096;  // per graph

void collectWrittenBases(const Block* b, std::set<const Value*>& out) {
  for (const Node* n : *b) {
    if (isWrite(n)) out.insert(writtenBase(n));
    for (const Block* sub : n->blocks()) collectWrittenBases(sub, out);
  }
}

// The tensors a branch output may share with: the output itself and, for a
// branch returning something it did not make, the base of that value.
std::set<const Value*> sharedNames(const Node* branch) {
  std::set<const Value*> names;
  for (size_t i = 0; i < branch->outputs().size(); ++i) {
    if (!branch->output(i)->type()->isTensor() || !branch->output(i)->hasUses()) continue;
    bool mixed = false;
    for (const Block* b : branch->blocks()) {
      if (freshIn(b->ret(i), b)) continue;
      mixed = true;
      const Value* v = b->ret(i);
      while (v->node() && v->node()->schema().isView() && !v->node()->inputs().empty()) v = v->node()->input(0);
      names.insert(v);
    }
    if (mixed) names.insert(branch->output(i));
  }
  return names;
}

Value* mapped(const std::map<const Value*, Value*>& env, Value* v) {
  auto it = env.find(v);
  return it == env.end() ? v : it->second;
}

class TailMover {
 public:
  explicit TailMover(Graph& g) : g_(g) {}

  bool changed() const { return copied_ != 0; }

  void visit(Block* block) {
    for (Node* n : block->nodes()) {
      if (n->is("prim.if") && tryMoveTail(n)) {
        for (Block* sub : n->blocks()) visit(sub);
        return;  // the rest of this block now lives in n's branches
      }
      for (Block* sub : n->blocks()) visit(sub);
    }
  }

 private:
  bool tryMoveTail(Node* branch) {
    std::vector<Node*> tail;
    size_t size = 0;
    std::set<const Value*> written;
    for (Node* t = branch->next(); t != nullptr; t = t->next()) {
      tail.push_back(t);
      size += 1;
      for (const Block* sub : t->blocks()) size += countNodes(sub);
      if (isWrite(t)) written.insert(writtenBase(t));
      for (const Block* sub : t->blocks()) collectWrittenBases(sub, written);
    }
    bool needed = false;
    for (const Value* name : sharedNames(branch)) needed |= written.count(name) != 0;
    if (!needed) return false;
    size_t copies = size * branch->blocks().size();
    if (size > kMaxTailNodes || copied_ + copies > kMaxCopiedNodes) return false;
    copied_ += copies;
    moveTail(branch, tail);
    return true;
  }

  void moveTail(Node* branch, const std::vector<Node*>& tail) {
    Block* home = branch->owningBlock();
    size_t oldOutputs = branch->outputs().size();
    std::vector<std::vector<Value*>> finals;  // per branch: home's returns
    for (Block* b : branch->blocks()) {
      std::map<const Value*, Value*> env;
      for (size_t i = 0; i < oldOutputs; ++i) env[branch->output(i)] = b->ret(i);
      for (const Node* t : tail) Graph::cloneNodeInto(t, b, env);
      std::vector<Value*> rets;
      for (Value* r : home->returns()) rets.push_back(mapped(env, r));
      finals.push_back(std::move(rets));
    }
    for (size_t j = 0; j < home->returns().size(); ++j) {
      Value* out = branch->addOutput(home->ret(j)->type(), home->ret(j)->debugName());
      for (size_t b = 0; b < branch->blocks().size(); ++b) branch->block(b)->addReturn(finals[b][j]);
      home->replaceReturn(j, out);
    }
    for (auto it = tail.rbegin(); it != tail.rend(); ++it) (*it)->destroy();
    for (size_t i = oldOutputs; i-- > 0;) {
      for (Block* b : branch->blocks()) b->eraseReturn(i);
      branch->eraseOutput(i);
    }
  }

  Graph& g_;
  size_t copied_ = 0;
};

}  // namespace

bool duplicateBranchTails(Graph& graph) {
  TailMover mover(graph);
  mover.visit(graph.top());
  return mover.changed();
}

}  // namespace stitch
