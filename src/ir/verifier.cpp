#include "ir/verifier.h"

#include <set>

#include "ir/op_registry.h"
#include "ir/printer.h"

namespace stitch {

namespace {

// A macro so the message (which prints the node) is built only on failure.
#define check(ok, ...)                                                                 \
  do {                                                                                 \
    if (!(ok)) throw InternalError(errorMessage("IR verification failed: ", __VA_ARGS__)); \
  } while (0)

class Verifier {
 public:
  explicit Verifier(const Graph& g) : g_(g) {}

  void run() {
    check(g_.top()->owningNode() == nullptr, "the top block has an owning node");
    collectLive(g_.top());
    block(g_.top());
  }

 private:
  std::string where(const Node* n) const {
    std::string text = printNode(*n);
    size_t eol = text.find('\n');
    return " in `" + text.substr(0, eol) + "`";
  }

  void collectLive(const Block* b) {
    live_.insert(b->paramNode());
    live_.insert(b->returnNode());
    for (const Node* n : *b) {
      live_.insert(n);
      for (const Block* sub : n->blocks()) collectLive(sub);
    }
  }

  void define(const Value* v, const Node* producer, size_t offset) {
    check(v->node() == producer && v->offset() == offset, "value %", printedName(*v),
          " has a wrong producer link");
    check(v->type() != nullptr, "value %", printedName(*v), " has no type");
    check(visible_.insert(v).second, "value %", printedName(*v), " is defined twice");
    scope_.back().push_back(v);
    for (const Use& u : v->uses()) {
      check(live_.count(u.user), "value %", printedName(*v), " has a dangling use by a node ",
            "that is not in the graph");
      check(u.index < u.user->inputs().size() && u.user->input(u.index) == v, "value %",
            printedName(*v), " lists a use that the user does not have", where(u.user));
    }
  }

  void uses(const Node* n) {
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      const Value* v = n->input(i);
      check(v != nullptr, "null input ", i, where(n));
      check(visible_.count(v), "input ", i, " (%", printedName(*v),
            ") is not defined before its use", where(n));
      size_t listed = 0;
      for (const Use& u : v->uses()) listed += u.user == n && u.index == i;
      check(listed == 1, "use list of %", printedName(*v), " does not record input ", i,
            " exactly once", where(n));
    }
  }

  void block(const Block* b) {
    scope_.emplace_back();
    check(b->paramNode()->owningBlock() == b && b->returnNode()->owningBlock() == b,
          "block's param/return node is not owned by the block");
    for (size_t i = 0; i < b->params().size(); ++i) define(b->param(i), b->paramNode(), i);
    const Node* prev = nullptr;
    for (const Node* n : *b) {
      check(n->owningBlock() == b && n->prev() == prev, "broken node list", where(n));
      node(n);
      prev = n;
    }
    check(b->back() == prev, "broken node list end");
    uses(b->returnNode());
    for (const Value* v : scope_.back()) visible_.erase(v);
    scope_.pop_back();
  }

  void node(const Node* n) {
    uses(n);
    signature(n);
    if (n->is("prim.loop")) loop(n);
    else if (n->is("prim.if")) branch(n);
    else check(n->blocks().empty(), "only prim.loop and prim.if have blocks", where(n));
    if (n->is("prim.constant")) constant(n);
    for (const Block* sub : n->blocks()) {
      check(sub->owningNode() == n, "block not owned by its node", where(n));
      block(sub);
    }
    for (size_t i = 0; i < n->outputs().size(); ++i) define(n->output(i), n, i);
  }

  void signature(const Node* n) {
    const OpSchema& s = n->schema();
    check(!n->is("prim.param") && !n->is("prim.return"), "a block's param/return node sits in "
          "the node list");
    size_t nIn = n->inputs().size();
    if (s.has(kVarArgs)) {
      check(nIn >= s.args.size(), n->kind(), " needs at least ", s.args.size(), " inputs, has ",
            nIn, where(n));
    } else {
      check(nIn == s.args.size(), n->kind(), " needs ", s.args.size(), " inputs, has ", nIn,
            where(n));
    }
    if (!s.has(kVarRets))
      check(n->outputs().size() == s.rets.size(), n->kind(), " has ", s.rets.size(),
            " outputs in its schema but ", n->outputs().size(), " on the node", where(n));
    for (size_t i = 0; i < s.args.size() && i < nIn; ++i)
      check(argAccepts(s.args[i], n->input(i)->type()), "input ", i, " of type ",
            n->input(i)->type()->str(), " does not fit argument '", s.args[i].str(), "'",
            where(n));
  }

  void loop(const Node* n) {
    check(n->blocks().size() == 1, "prim.loop needs one block", where(n));
    size_t carried = n->inputs().size() - 2;
    const Block* body = n->block(0);
    check(body->params().size() == carried + 1, "prim.loop body has ", body->params().size(),
          " params for ", carried, " carried values (expected iteration + carried)", where(n));
    check(body->returns().size() == carried + 1, "prim.loop body returns ",
          body->returns().size(), " values for ", carried,
          " carried values (expected condition + carried)", where(n));
    check(n->outputs().size() == carried, "prim.loop has ", n->outputs().size(),
          " outputs for ", carried, " carried values", where(n));
  }

  void branch(const Node* n) {
    check(n->blocks().size() == 2, "prim.if needs two blocks", where(n));
    for (const Block* b : n->blocks()) {
      check(b->params().empty(), "prim.if blocks take no params", where(n));
      check(b->returns().size() == n->outputs().size(), "prim.if block returns ",
            b->returns().size(), " values for ", n->outputs().size(), " outputs", where(n));
    }
  }

  void constant(const Node* n) {
    check(n->hasAttr("value"), "prim.constant without a value", where(n));
    check(n->outputs().size() == 1, "prim.constant must have one output", where(n));
    TypePtr t = n->attr("value").type();
    check(t->kind() == n->output()->type()->kind(), "prim.constant of type ", t->str(),
          " has an output of type ", n->output()->type()->str(), where(n));
  }

  const Graph& g_;
  std::set<const Node*> live_;
  std::set<const Value*> visible_;
  std::vector<std::vector<const Value*>> scope_;
};

#undef check

}  // namespace

void verifyGraph(const Graph& graph) { Verifier(graph).run(); }

}  // namespace stitch
