#include "passes/rewrite_mutation.h"

#include <set>

#include "passes/alias_analysis.h"
#include "passes/control_queries.h"
#include "passes/view_to_access.h"
#include "passes/write_overlap.h"

namespace stitch {

namespace {

void collectCopies(Block* b, std::vector<Node*>& out) {
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) collectCopies(sub, out);
    if (n->is("copy_") || n->is("fill_") || n->is("zero_")) out.push_back(n);
  }
}

// Whether v is in scope at `at` (defined in the same or an enclosing
// block, earlier in program order).
bool visibleAt(const Value* v, const Node* at) {
  const Node* def = v->node();
  const Block* home = def->owningBlock();
  for (const Block* b = at->owningBlock(); b != nullptr;) {
    if (b == home) return v->isBlockParam() || def->isBefore(at);
    const Node* owner = b->owningNode();
    b = owner ? owner->owningBlock() : nullptr;
  }
  return false;
}

class MutationRewriter {
 public:
  MutationRewriter(Graph& g, AliasTree tree) : g_(g), tree_(std::move(tree)) {}

  void run() {
    std::vector<Node*> copies;
    collectCopies(g_.top(), copies);
    recordLiveAliases(g_.top());
    for (Node* c : copies) written_.insert(tree_.rootOf(c->input(0)));
    copies_ = copies;
    for (Node* c : copies) checkWriteOverlap(tree_, c);
    checkExpressible(g_.top());
    for (Node* c : copies) rewriteCopy(c);
  }

 private:
  // Aliases nobody reads, writes or views never need re-deriving.
  void recordLiveAliases(Block* b) {
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) recordLiveAliases(sub);
      for (Value* o : n->outputs())
        if (tree_.isAlias(o) && o->hasUses()) live_.insert(o);
    }
  }

  // Aliasing the alias tree cannot follow: a view carried through a loop or
  // out of a branch, or a tensor reachable both through a list and directly
  // (or a view put into a list). Refused when a write could make it matter.
  void checkExpressible(Block* b) {
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) checkExpressible(sub);
      if (n->is("prim.loop")) checkLoop(n);
      if (n->is("prim.if")) checkIf(n);
      if (n->is("prim.list_construct") || n->is("list.append") || n->is("list.set")) checkListBuild(n);
    }
  }

  bool touchedByWrites(Value* v) { return written_.count(tree_.rootOf(v)) != 0; }

  [[noreturn]] void refuseFlow(Node* control, Value* passed) {
    throw UserError("functionalization: a tensor flowing through a loop or branch (" + passed->debugName() +
                        ") may alias another name that is written; not supported",
                    control->loc());
  }

  // passed (a view, or a tensor from outside the node, maybe handed on by a
  // loop or branch inside it) becomes received: the two names share a
  // buffer that the alias tree does not track.
  void checkFlow(Node* control, Value* passed, Value* received) {
    if (!passed->type()->isTensor() && !tree_.isAlias(passed)) return;
    std::set<const Value*> seen;
    if (!mayShareOutside(passed, control, seen)) return;
    if (touchedByWrites(passed) || touchedByWrites(received)) refuseFlow(control, passed);
  }

  // Whether v may be a view, or a tensor from outside `control`: itself, or
  // through what a loop or branch inside `control` hands on (a loop's
  // parameter and output are its input or what its body returns; a
  // branch's output what an arm returns).
  bool mayShareOutside(const Value* v, const Node* control, std::set<const Value*>& seen) {
    if (!v->type()->isTensor() || !seen.insert(v).second) return false;
    if (tree_.isAlias(v) || !definedWithin(v, control)) return true;
    for (const Value* source : handedOn(v, control))
      if (mayShareOutside(source, control, seen)) return true;
    return false;
  }

  // The values a loop or branch nested in `control` may pass on as v.
  static std::vector<const Value*> handedOn(const Value* v, const Node* control) {
    return carrierOf(v) == control ? std::vector<const Value*>{} : passedOnAs(v);
  }

  static bool definedWithin(const Value* v, const Node* control) {
    for (const Block* b = v->node()->owningBlock(); b != nullptr;) {
      const Node* owner = b->owningNode();
      if (owner == control) return true;
      b = owner ? owner->owningBlock() : nullptr;
    }
    return false;
  }

  // The first iteration's parameter is the loop input itself: writing it in
  // place writes the input, which only matters if someone else can see it.
  void checkLoopInput(Node* loop, Value* init, Value* param) {
    if (!init->type()->isTensor() || !touchedByWrites(param)) return;
    bool seenElsewhere = tree_.isAlias(init) || init->isBlockParam() || init->uses().size() > 1;
    if (seenElsewhere) refuseFlow(loop, init);
  }

  // The first iteration's parameter is the loop input itself, and the
  // loop's output may be too (slotSurelyFresh): a write to the input's
  // buffer under another name inside the loop, or after it, reaches them.
  void checkInputWrittenElsewhere(Node* loop, size_t slot) {
    Value* init = loop->input(slot + 2);
    if (!init->type()->isTensor()) return;
    Value* root = tree_.rootOf(init);
    for (Node* c : copies_) {
      if (tree_.rootOf(c->input(0)) != root) continue;
      if (definedWithin(c->output(), loop) || (loop->isBefore(c) && !slotSurelyFresh(loop, slot)))
        refuseFlow(loop, init);
    }
  }

  // Whether the loop surely runs its body and leaves the slot a value the
  // body made: a constant trip count of at least 1, a constant true start
  // condition and no break (the condition stays a constant true), and a
  // fresh value returned.
  static bool slotSurelyFresh(Node* loop, size_t slot) {
    const Block* body = loop->block(0);
    const Constant* trips = constantOf(loop->input(0));
    bool runs = trips && trips->isInt() && trips->toInt() >= 1;
    for (Value* cond : {loop->input(1), body->ret(0)}) {
      const Constant* c = constantOf(cond);
      runs = runs && c && c->isBool() && c->toBool();
    }
    return runs && freshIn(body->ret(slot + 1), body);
  }

  // The loop's output may be its input itself (no iteration, a break, a
  // path that keeps the parameter): a write through the output then writes
  // the input, which matters when another name sees it.
  void checkOutputMayBeInput(Node* loop, size_t slot) {
    Value* init = loop->input(slot + 2);
    if (!init->type()->isTensor() || !touchedByWrites(loop->output(slot))) return;
    bool seenElsewhere = tree_.isAlias(init) || init->isBlockParam() || init->uses().size() > 1;
    if (seenElsewhere && !slotSurelyFresh(loop, slot)) refuseFlow(loop, init);
  }

  void checkLoop(Node* loop) {
    Block* body = loop->block(0);
    for (size_t i = 2; i < loop->inputs().size(); ++i) {
      if (tree_.isAlias(loop->input(i))) checkFlow(loop, loop->input(i), body->param(i - 1));
      checkLoopInput(loop, loop->input(i), body->param(i - 1));
      checkInputWrittenElsewhere(loop, i - 2);
      checkOutputMayBeInput(loop, i - 2);
    }
    for (size_t i = 1; i < body->returns().size(); ++i) {
      checkFlow(loop, body->ret(i), loop->output(i - 1));
      checkFlow(loop, body->ret(i), body->param(i));
    }
    checkSlotsSharingBuffers(loop);
  }

  // Two slots the body gives one buffer (`y = y * 2; x = y`, or `x =
  // sin(x)` and an inner loop `t = x`) are two names of it in the next
  // iteration and after the loop, which the alias tree (slots are roots)
  // does not know: refused when either is written.
  void checkSlotsSharingBuffers(Node* loop) {
    Block* body = loop->block(0);
    const size_t n = body->returns().size();
    std::vector<std::set<const Value*>> roots(n);  // of each returned tensor
    for (size_t i = 1; i < n; ++i) {
      std::set<const Value*> seen;
      bufferRoots(body->ret(i), loop, roots[i], seen);
    }
    for (size_t i = 1; i < n; ++i) {
      if (!body->ret(i)->type()->isTensor()) continue;
      for (size_t j = i + 1; j < n; ++j) {
        if (!body->ret(j)->type()->isTensor()) continue;
        bool shared = false;
        for (const Value* r : roots[j]) shared |= roots[i].count(r) != 0;
        if (!shared) continue;
        for (Value* name : {loop->output(i - 1), loop->output(j - 1), body->param(i), body->param(j)})
          if (touchedByWrites(name)) refuseFlow(loop, body->ret(i));
      }
    }
  }

  // The roots whose buffer v (a value of `loop`'s body) may hold: its own,
  // and, where it is handed on by a loop or branch nested in the body, those
  // of what that loop or branch may pass on as it.
  void bufferRoots(const Value* v, const Node* loop, std::set<const Value*>& roots, std::set<const Value*>& seen) {
    if (!v->type()->isTensor() || !seen.insert(v).second) return;
    const Value* root = tree_.rootOf(const_cast<Value*>(v));
    roots.insert(root);
    const Node* carrier = carrierOf(root);
    if (!carrier || carrier == loop || !definedWithin(root, loop)) return;
    for (const Value* passed : passedOnAs(root)) bufferRoots(passed, loop, roots, seen);
  }

  void checkIf(Node* branch) {
    for (Block* b : branch->blocks())
      for (size_t i = 0; i < b->returns().size(); ++i) {
        if (readOnlyAfter(branch, b->ret(i), branch->output(i))) continue;
        checkFlow(branch, b->ret(i), branch->output(i));
      }
  }

  // A branch output that shares passed's buffer is harmless when from the
  // branch on nothing writes that buffer through either name: the output is
  // not written, no write to passed's root follows the branch, and the
  // output does not leave its block (a loop would carry the sharing into
  // the next iteration, before the branch). Writes inside the branch are
  // seen by rename at the branch's returns.
  bool readOnlyAfter(Node* branch, Value* passed, Value* received) {
    if (touchedByWrites(received)) return false;
    Value* root = tree_.rootOf(passed);
    for (Node* c : copies_)
      if (tree_.rootOf(c->input(0)) == root && branch->isBefore(c)) return false;
    return !escapes(received);
  }

  // Whether root or a view of it reaches a place where later code could
  // see it after a write the analysis does not connect to it: a loop
  // (carried), a branch's or loop body's returns, a list or a tuple.
  bool escapes(Value* root) {
    std::vector<Value*> names = tree_.aliasesOf(root);
    names.push_back(root);
    for (Value* v : names) {
      for (const Use& u : v->uses()) {
        const Node* user = u.user;
        if (user->is("prim.loop") || user->is("prim.if") || user->is("list.append") || user->is("list.set") ||
            user->is("prim.list_construct") || user->is("prim.tuple_construct"))
          return true;
        if (user->is("prim.return") && user->owningBlock() != g_.top()) return true;
      }
    }
    return false;
  }

  bool onlyBuildsLists(const Value* t) {
    for (const Use& u : t->uses()) {
      const Node* user = u.user;
      if (!user->is("prim.list_construct") && !user->is("list.append") && !user->is("list.set")) return false;
    }
    return true;
  }

  bool anyListWritten() {
    for (const Value* root : written_)
      if (root->type()->kind() == TypeKind::List) return true;
    return false;
  }

  // List values are not linked across append/set/loops here, so any write
  // through a list element counts for every list.
  void checkListBuild(Node* n) {
    if (tree_.isAlias(n->output())) return;  // chunk/split/unbind pieces
    if (listReadOnlyAfter(n)) return;
    for (Value* t : n->inputs()) {
      if (!t->type()->isTensor()) continue;
      if (!tree_.isAlias(t) && onlyBuildsLists(t)) continue;
      if (!touchedByWrites(t) && !anyListWritten()) continue;
      throw UserError("functionalization: a tensor stored in a list is also used directly (or is a view) "
                          "and one of them is written; not supported",
                      n->loc());
    }
  }

  // A list built here holds the versions current here (rename); that stays
  // true while nothing writes through the list, no write to an element's
  // buffer follows, and neither the list nor an element taken from it
  // leaves its block or goes into another list.
  bool listReadOnlyAfter(Node* n) {
    Value* list = n->output();
    if (touchedByWrites(list)) return false;
    if (consumedAtOnce(n)) return true;
    if (escapes(list)) return false;
    std::set<Value*> roots;
    for (Value* t : n->inputs()) roots.insert(tree_.rootOf(t));
    for (Node* c : copies_)
      if (roots.count(tree_.rootOf(c->input(0))) && n->isBefore(c)) return false;
    return true;
  }

  // Every use is the next node reading the whole list, or the graph's
  // result with nothing after the construct: no write can come between.
  bool consumedAtOnce(Node* n) {
    for (const Use& u : n->output()->uses()) {
      const Node* user = u.user;
      bool reader = user->is("stack") || user->is("cat") || user->is("list.len");
      bool result = user == g_.top()->returnNode() && n == g_.top()->back();
      if (!(reader && n->next() == user) && !result) return false;
    }
    return true;
  }

  void rewriteCopy(Node* c) {
    Value* dst = c->input(0);
    STITCH_ASSERT(!c->output()->hasUses(), c->kind() + " result still used; run remove-inplace first");
    Value* root = tree_.rootOf(dst);
    Value* cur = writtenValue(c);
    for (Value* v = dst; const AliasInfo* info = tree_.info(v); v = info->parents.front())
      cur = passUpStep(c, v, *info, cur);
    emitUpdate(c, cur, root);
    passDown(c, root, cur);
    c->destroy();
  }

  // What dst holds after the write c: a value no marker has named before
  // and nothing else can see. zero_ and scalar fill_ make one of dst's
  // type. copy_ and fill_ with a 0-dim tensor store their source broadcast
  // and cast (immut.assign) -- a copy is never an alias of its source, or
  // later writes into dst would reach src (and writes into src dst), and
  // rename's version chains could close into a cycle (rename.h) -- unless
  // only this write reads the source and it has dst's exact type (the
  // `add(x, y)` of an `x.add_(y)`, the `src[..., 2]` of `dup[..., 0] =
  // src[..., 2]`): then it can be the new version itself.
  Value* writtenValue(Node* c) {
    Value* dst = c->input(0);
    if (c->is("zero_")) return emitBefore(g_, c, "zeros_like", {dst, g_.constant(Constant())}, dst->type())->output();
    if (c->is("fill_") && !c->input(1)->type()->isTensor())
      return emitBefore(g_, c, "full_like", {dst, c->input(1), g_.constant(Constant())}, dst->type())->output();
    Value* src = c->input(1);
    if (ownedByWrite(src, dst)) return src;
    return emitBefore(g_, c, "immut.assign", {dst, src}, dst->type())->output();
  }

  // Not a graph input or block parameter (their buffers are the caller's or
  // the loop's), read by nothing else, of dst's exact static type, and no
  // write reaches its buffer (else pass down would re-derive a view of it
  // as a version of its own, the name a marker already gave dst).
  bool ownedByWrite(Value* src, const Value* dst) {
    if (src->isBlockParam() || src->uses().size() != 1 || touchedByWrites(src)) return false;
    return *src->type() == *dst->type() && dst->type()->fullyKnown();
  }

  // The parent of `v` with v's region replaced by `written`.
  Value* passUpStep(Node* at, Value* v, const AliasInfo& info, Value* written) {
    Value* parent = info.parents.front();
    Node* access = v->node();
    switch (info.kind) {
      case AliasKind::TensorView: {
        if (access->is("immut.expand")) {
          if (v != at->input(0))
            throw UserError("functionalization: a write into part of an expanded view is not supported", at->loc());
          if (Value* folded = foldExpanded(at, parent, written)) return folded;
        }
        std::vector<Value*> ins = {parent, written};
        ins.insert(ins.end(), access->inputs().begin() + 1, access->inputs().end());
        return emitBefore(g_, at, access->kind() + "_rev", ins, parent->type())->output();
      }
      case AliasKind::ListElement:
        return emitBefore(g_, at, "list.set", {parent, access->input(1), written}, parent->type())->output();
      case AliasKind::ListOfViews:
        break;
    }
    STITCH_ASSERT(false, "a list of views cannot be written directly");
  }

  // A write into an expanded view reaches each parent element through every
  // copy; PyTorch only allows writes that give all copies the same value
  // (fill_, zero_), so the parent takes copy 0. Null without static shapes.
  Value* foldExpanded(Node* at, Value* parent, Value* written) {
    const TypePtr& pt = parent->type();
    const TypePtr& wt = written->type();
    if (!pt->fullyKnown() || !wt->fullyKnown()) return nullptr;
    std::vector<int64_t> shape = *wt->shape();
    const std::vector<int64_t>& want = *pt->shape();
    Value* zero = g_.constant(Constant((int64_t)0));
    Value* one = g_.constant(Constant((int64_t)1));
    Value* cur = written;
    while (shape.size() > want.size()) {
      shape.erase(shape.begin());
      cur = emitBefore(g_, at, "immut.select", {cur, zero, zero}, Type::tensor(wt->dtype(), shape))->output();
    }
    for (size_t d = 0; d < want.size(); ++d) {
      if (want[d] != 1 || shape[d] == 1) continue;
      shape[d] = 1;
      Value* dim = g_.constant(Constant((int64_t)d));
      cur = emitBefore(g_, at, "immut.slice", {cur, dim, zero, one, one}, Type::tensor(wt->dtype(), shape))->output();
    }
    return cur;
  }

  // Re-derives every live alias of root visible at `at` from the new root.
  void passDown(Node* at, Value* root, Value* newRoot) {
    std::map<Value*, Value*> fresh{{root, newRoot}};
    for (Value* w : tree_.aliasesOf(root)) {
      if (!live_.count(w) || !visibleAt(w, at)) continue;
      Node* def = w->node();
      std::vector<Value*> ins;
      for (Value* in : def->inputs()) ins.push_back(fresh.count(in) ? fresh[in] : in);
      Node* again = g_.create(def->schema(), ins);
      again->output()->setType(w->type());
      again->setLoc(at->loc());
      at->owningBlock()->insertBefore(at, again);
      fresh[w] = again->output();
      emitUpdate(at, again->output(), w);
    }
  }

  void emitUpdate(Node* at, Value* newer, Value* old) {
    Node* u = g_.create("tssa.update", {newer, old});
    u->setLoc(at->loc());
    at->owningBlock()->insertBefore(at, u);
  }

  Graph& g_;
  AliasTree tree_;
  std::set<const Value*> live_;
  std::set<const Value*> written_;  // roots some copy_ writes
  std::vector<Node*> copies_;       // every write, in program order
};

}  // namespace

void rewriteMutation(Graph& graph) {
  MutationRewriter(graph, convertViewsToAccess(graph)).run();
}

}  // namespace stitch
