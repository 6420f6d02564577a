#include "passes/view_carries.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "passes/control_queries.h"
#include "passes/writes.h"

namespace stitch {

namespace {

// View ops whose only tensor operand is the base (input 0): re-deriving one
// from the same base and arguments gives the same view.
bool isSimpleView(const Node* n) {
  static const std::set<std::string> ops = {"select",    "slice",   "narrow",    "transpose", "t",
                                            "permute",   "squeeze", "unsqueeze", "expand",    "movedim"};
  if (!ops.count(n->kind()) || n->outputs().size() != 1 || n->blocks().size() != 0) return false;
  for (size_t i = 1; i < n->inputs().size(); ++i)
    if (n->input(i)->type()->isTensor()) return false;
  return n->input(0)->type()->isTensor();
}

struct ViewChain {
  Value* base = nullptr;
  std::vector<Node*> views;  // base first
};

ViewChain chainOf(Value* v) {
  ViewChain c;
  while (v->node() && isSimpleView(v->node())) {
    c.views.insert(c.views.begin(), v->node());
    v = v->node()->input(0);
  }
  c.base = v;
  return c;
}

// An argument position (view index, input index) where the chains differ.
struct Varying {
  size_t view, input;
};

// The chains agree but for int arguments; the positions where they differ.
// False when they are not the same chain on the same base.
bool sameShape(const std::vector<ViewChain>& chains, std::vector<Varying>& varying) {
  const ViewChain& first = chains.front();
  for (const ViewChain& c : chains) {
    if (c.base != first.base || c.views.size() != first.views.size()) return false;
    for (size_t k = 0; k < c.views.size(); ++k) {
      const Node *a = first.views[k], *b = c.views[k];
      if (a->kind() != b->kind() || a->inputs().size() != b->inputs().size()) return false;
      if (!(*a->output()->type() == *b->output()->type())) return false;
    }
  }
  for (size_t k = 0; k < first.views.size(); ++k) {
    for (size_t i = 1; i < first.views[k]->inputs().size(); ++i) {
      bool differs = false;
      for (const ViewChain& c : chains) differs |= c.views[k]->input(i) != first.views[k]->input(i);
      if (!differs) continue;
      for (const ViewChain& c : chains)
        if (c.views[k]->input(i)->type()->kind() != TypeKind::Int) return false;
      varying.push_back({k, i});
    }
  }
  return true;
}

// The chain again on its base, with the varying arguments taken from `args`,
// inserted before `anchor` (appended to `block` when anchor is null).
Value* rederive(Graph& g, const ViewChain& pattern, const std::vector<Varying>& varying,
                const std::vector<Value*>& args, Block* block, Node* anchor) {
  Value* cur = pattern.base;
  for (size_t k = 0; k < pattern.views.size(); ++k) {
    const Node* view = pattern.views[k];
    std::vector<Value*> ins = view->inputs();
    ins[0] = cur;
    for (size_t j = 0; j < varying.size(); ++j)
      if (varying[j].view == k) ins[varying[j].input] = args[j];
    Node* n = g.create(view->schema(), ins);
    for (const auto& [name, value] : view->attrs()) n->setAttr(name, value);
    n->output()->setType(view->output()->type());
    n->output()->setDebugName(view->output()->debugName());
    n->setLoc(view->loc());
    if (anchor) block->insertBefore(anchor, n);
    else block->append(n);
    cur = n->output();
  }
  return cur;
}

Value* argOf(const ViewChain& c, const Varying& at) { return c.views[at.view]->input(at.input); }

// Loop slot `s` (output index) carried as its view's scalars; false when it
// does not qualify.
bool carryLoopSlot(Graph& g, Node* loop, size_t s) {
  Block* body = loop->block(0);
  Value* init = loop->input(s + 2);
  Value* param = body->param(s + 1);
  Value* ret = body->ret(s + 1);
  if (!init->type()->isTensor()) return false;
  std::vector<ViewChain> chains = {chainOf(init), chainOf(ret)};
  if (chains[0].views.empty() && chains[1].views.empty()) return false;
  if (definedInside(chains[0].base, loop)) return false;
  std::vector<Varying> varying;
  if (!sameShape(chains, varying)) return false;
  if (!(*chains[0].views.back()->output()->type() == *param->type())) return false;

  std::vector<Value*> inner, outer;
  for (const Varying& v : varying) {
    loop->addInput(argOf(chains[0], v));
    inner.push_back(body->addParam(Type::intT()));
    body->addReturn(argOf(chains[1], v));
    outer.push_back(loop->addOutput(Type::intT()));
  }
  Value* viewIn = rederive(g, chains[0], varying, inner, body, body->front());
  param->replaceAllUsesWith(viewIn);
  Value* viewOut = rederive(g, chains[0], varying, outer, loop->owningBlock(), loop->next());
  loop->output(s)->replaceAllUsesWith(viewOut);
  body->eraseReturn(s + 1);
  body->eraseParam(s + 1);
  loop->eraseOutput(s);
  loop->removeInput(s + 2);
  return true;
}

std::optional<int64_t> constantInt(const Value* v) {
  const Constant* c = constantOf(v);
  if (!c || !c->isInt()) return std::nullopt;
  return c->toInt();
}

bool isNone(const Value* v) {
  const Constant* c = constantOf(v);
  return c && !c->isInt() && !c->isBool() && v->type()->kind() == TypeKind::None;
}

// A loop whose slot drops the first c entries of a dim every iteration
// (`v = v[1:]`) carries the offset into the initial tensor instead:
// the view is slice(init, d, off) with off += c. Only when the offsets
// never pass the end (constant trip count, static size), so no clamping.
bool carryGrowingSlice(Graph& g, Node* loop, size_t s) {
  Block* body = loop->block(0);
  Value* init = loop->input(s + 2);
  Value* param = body->param(s + 1);
  Node* cut = body->ret(s + 1)->node();
  if (!cut || !cut->is("slice") || cut->input(0) != param || cut->owningBlock() != body) return false;
  auto trips = constantInt(loop->input(0));
  auto dim = constantInt(cut->input(1));
  auto start = constantInt(cut->input(2));
  auto step = constantInt(cut->input(4));
  const TypePtr& t = init->type();
  if (!trips || !dim || !start || !step || *step != 1 || *start < 0 || !isNone(cut->input(3))) return false;
  if (!t->isTensor() || !t->fullyKnown() || t->shape()->empty()) return false;
  int64_t rank = (int64_t)t->shape()->size();
  int64_t d = *dim < 0 ? *dim + rank : *dim;
  if (d < 0 || d >= rank || *start * std::max<int64_t>(*trips, 0) > (*t->shape())[d]) return false;

  Value* zero = g.constant(Constant((int64_t)0));
  Value* none = cut->input(3);
  loop->addInput(zero);
  Value* offset = body->addParam(Type::intT(), "offset");
  Node* next = g.create("scalar.add", {offset, cut->input(2)});
  next->output()->setType(Type::intT());
  next->setLoc(cut->loc());
  body->append(next);
  body->addReturn(next->output());
  Value* offsetOut = loop->addOutput(Type::intT(), "offset");

  auto view = [&](Value* off, Block* block, Node* anchor) {
    Node* n = g.create("slice", {init, g.constant(Constant(d)), off, none, cut->input(4)});
    n->output()->setType(param->type());
    n->output()->setDebugName(param->debugName());
    n->setLoc(cut->loc());
    if (anchor) block->insertBefore(anchor, n);
    else block->append(n);
    return n->output();
  };
  param->replaceAllUsesWith(view(offset, body, body->front()));
  loop->output(s)->replaceAllUsesWith(view(offsetOut, loop->owningBlock(), loop->next()));
  body->eraseReturn(s + 1);
  body->eraseParam(s + 1);
  loop->eraseOutput(s);
  loop->removeInput(s + 2);
  return true;
}

bool carryIfSlot(Graph& g, Node* branch, size_t s) {
  if (!branch->output(s)->type()->isTensor()) return false;
  std::vector<ViewChain> chains;
  for (Block* b : branch->blocks()) chains.push_back(chainOf(b->ret(s)));
  bool anyView = false;
  for (const ViewChain& c : chains) anyView |= !c.views.empty();
  if (!anyView || definedInside(chains[0].base, branch)) return false;
  std::vector<Varying> varying;
  if (!sameShape(chains, varying)) return false;
  if (!(*chains[0].views.back()->output()->type() == *branch->output(s)->type())) return false;

  std::vector<Value*> outer;
  for (const Varying& v : varying) {
    for (size_t b = 0; b < branch->blocks().size(); ++b) branch->block(b)->addReturn(argOf(chains[b], v));
    outer.push_back(branch->addOutput(Type::intT()));
  }
  Value* view = rederive(g, chains[0], varying, outer, branch->owningBlock(), branch->next());
  branch->output(s)->replaceAllUsesWith(view);
  for (Block* b : branch->blocks()) b->eraseReturn(s);
  branch->eraseOutput(s);
  return true;
}

// Views passed between nested loops and branches (`v = b[i, j]` in an
// inner loop, `v` carried by the outer one too) form a web: the slots'
// block parameters and outputs ("phis") only ever hold one of the web's
// other values ("leaves"). When the leaves are one chain on one base that
// every node of the web sees, each phi becomes scalars the same way.
struct Slot {
  Node* node;
  Value* output;  // identifies the slot while indices shift
};

struct Web {
  std::vector<Slot> slots;
  std::set<Value*> phis;
  std::vector<Value*> leaves;
};

Value* findRoot(std::map<Value*, Value*>& parent, Value* v) {
  while (parent.count(v) && parent[v] != v) v = parent[v];
  return v;
}

void unite(std::map<Value*, Value*>& parent, Value* a, Value* b) {
  if (!parent.count(a)) parent[a] = a;
  if (!parent.count(b)) parent[b] = b;
  parent[findRoot(parent, a)] = findRoot(parent, b);
}

// The values one slot joins, phis first.
std::vector<Value*> slotValues(const Slot& s, size_t i, bool& loop) {
  loop = s.node->is("prim.loop");
  if (loop) {
    Block* body = s.node->block(0);
    return {body->param(i + 1), s.node->output(i), s.node->input(i + 2), body->ret(i + 1)};
  }
  std::vector<Value*> out = {s.node->output(i)};
  for (Block* b : s.node->blocks()) out.push_back(b->ret(i));
  return out;
}

size_t slotIndex(const Slot& s) {
  const auto& outs = s.node->outputs();
  return std::find(outs.begin(), outs.end(), s.output) - outs.begin();
}

void collectSlots(Block* b, std::vector<Slot>& out) {
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) collectSlots(sub, out);
    if (!n->is("prim.loop") && !n->is("prim.if")) continue;
    for (Value* o : n->outputs())
      if (o->type()->isTensor()) out.push_back({n, o});
  }
}

std::vector<Web> findWebs(Graph& g) {
  std::vector<Slot> slots;
  collectSlots(g.top(), slots);
  std::map<Value*, Value*> parent;
  for (const Slot& s : slots) {
    bool loop;
    std::vector<Value*> vals = slotValues(s, slotIndex(s), loop);
    for (Value* v : vals) unite(parent, v, vals.front());
  }
  std::map<Value*, Web> byRoot;
  for (const Slot& s : slots) {
    bool loop;
    std::vector<Value*> vals = slotValues(s, slotIndex(s), loop);
    Web& w = byRoot[findRoot(parent, vals.front())];
    w.slots.push_back(s);
    w.phis.insert(vals[0]);
    if (loop) w.phis.insert(vals[1]);
  }
  for (const Slot& s : slots) {
    bool loop;
    std::vector<Value*> vals = slotValues(s, slotIndex(s), loop);
    Web& w = byRoot[findRoot(parent, vals.front())];
    for (size_t k = loop ? 2 : 1; k < vals.size(); ++k)
      if (!w.phis.count(vals[k]) && std::find(w.leaves.begin(), w.leaves.end(), vals[k]) == w.leaves.end())
        w.leaves.push_back(vals[k]);
  }
  std::vector<Web> webs;
  for (auto& [root, w] : byRoot)
    if (w.slots.size() > 1) webs.push_back(std::move(w));
  return webs;
}

// v is in scope at every node of the web (and not made inside one).
bool visibleToAll(const Value* v, const Web& w) {
  for (const Slot& s : w.slots) {
    if (definedInside(v, s.node)) return false;
    const Block* home = v->node()->owningBlock();
    bool enclosed = false;
    for (const Block* b = s.node->owningBlock(); b != nullptr && !enclosed;) {
      enclosed = b == home;
      const Node* owner = b->owningNode();
      b = owner ? owner->owningBlock() : nullptr;
    }
    if (!enclosed || (!v->isBlockParam() && !v->node()->isBefore(s.node))) return false;
  }
  return true;
}

bool carryWeb(Graph& g, Web& w) {
  std::vector<ViewChain> chains;
  for (Value* leaf : w.leaves) chains.push_back(chainOf(leaf));
  if (chains.empty()) return false;
  bool anyView = false;
  for (const ViewChain& c : chains) anyView |= !c.views.empty();
  std::vector<Varying> varying;
  if (!anyView || !sameShape(chains, varying) || !visibleToAll(chains[0].base, w)) return false;
  const TypePtr& type = chains[0].views.back()->output()->type();
  for (Value* phi : w.phis)
    if (!(*phi->type() == *type)) return false;

  // The scalars each value of the web carries; none at all when every leaf
  // is the very same view (nothing varies).
  std::map<Value*, std::vector<Value*>> scalars;
  for (size_t l = 0; l < w.leaves.size(); ++l) {
    scalars[w.leaves[l]];
    for (const Varying& v : varying) scalars[w.leaves[l]].push_back(argOf(chains[l], v));
  }
  for (const Slot& s : w.slots) {  // new parameters and outputs first
    bool loop;
    std::vector<Value*> vals = slotValues(s, slotIndex(s), loop);
    if (loop) scalars[vals[0]];
    scalars[s.output];
    for (size_t k = 0; k < varying.size(); ++k) {
      if (loop) scalars[vals[0]].push_back(s.node->block(0)->addParam(Type::intT()));
      scalars[s.output].push_back(s.node->addOutput(Type::intT()));
    }
  }
  for (const Slot& s : w.slots) {  // then what flows into them
    bool loop;
    std::vector<Value*> vals = slotValues(s, slotIndex(s), loop);
    for (size_t k = 0; k < varying.size(); ++k) {
      if (loop) {
        s.node->addInput(scalars.at(vals[2])[k]);
        s.node->block(0)->addReturn(scalars.at(vals[3])[k]);
        continue;
      }
      for (size_t b = 0; b < s.node->blocks().size(); ++b) s.node->block(b)->addReturn(scalars.at(vals[b + 1])[k]);
    }
  }
  for (const Slot& s : w.slots) {
    bool loop;
    std::vector<Value*> vals = slotValues(s, slotIndex(s), loop);
    if (loop) {
      Block* body = s.node->block(0);
      vals[0]->replaceAllUsesWith(rederive(g, chains[0], varying, scalars.at(vals[0]), body, body->front()));
    }
    Value* after = rederive(g, chains[0], varying, scalars.at(s.output), s.node->owningBlock(), s.node->next());
    s.output->replaceAllUsesWith(after);
  }
  for (const Slot& s : w.slots) {
    size_t i = slotIndex(s);
    if (s.node->is("prim.loop")) {
      s.node->block(0)->eraseReturn(i + 1);
      s.node->block(0)->eraseParam(i + 1);
      s.node->eraseOutput(i);
      s.node->removeInput(i + 2);
      continue;
    }
    for (Block* b : s.node->blocks()) b->eraseReturn(i);
    s.node->eraseOutput(i);
  }
  return true;
}

bool visit(Graph& g, Block* block) {
  bool changed = false;
  for (Node* n : block->nodes()) {
    for (Block* sub : n->blocks()) changed |= visit(g, sub);
    if (n->is("prim.loop")) {
      for (size_t s = n->outputs().size(); s-- > 0;)
        changed |= carryLoopSlot(g, n, s) || carryGrowingSlice(g, n, s);
    } else if (n->is("prim.if")) {
      for (size_t s = n->outputs().size(); s-- > 0;) changed |= carryIfSlot(g, n, s);
    }
  }
  return changed;
}

}  // namespace

bool carryViewsAsScalars(Graph& graph) {
  // Without writes, views through loops and lists of views are already
  // followed as they are.
  if (!containsWrite(graph.top())) return false;
  bool changed = visit(graph, graph.top());
  for (Web& w : findWebs(graph)) changed |= carryWeb(graph, w);
  return changed;
}

}  // namespace stitch
