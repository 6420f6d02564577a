#include "passes/shape_inference.h"

#include <optional>

#include "ir/op_registry.h"
#include "ir/printer.h"
#include "passes/static_eval.h"

namespace stitch {

namespace {

// Joins only lose knowledge, so loops settle within a few rounds; the cap
// guards against a rule that keeps inventing new shapes.
constexpr int kMaxLoopRounds = 8;

TypePtr withoutDims(const TypePtr& t) {
  return mapTensorTypes(t, [](const TypePtr& x) { return Type::tensor(x->dtype(), std::nullopt); });
}

bool sameTypes(const std::vector<TypePtr>& a, const std::vector<TypePtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (*a[i] != *b[i]) return false;
  return true;
}

class ShapeInference {
 public:
  void block(Block* b) {
    for (Node* n : *b) node(n);
  }

 private:
  void node(Node* n) {
    try {
      if (n->is("prim.loop")) loop(n);
      else if (n->is("prim.if")) branch(n);
      else plain(n);
    } catch (const UserError& e) {
      throw e.withLoc(n->loc());
    }
  }

  void plain(Node* n) {
    std::vector<TypePtr> types = inferOutputTypes(*n, known_);
    STITCH_ASSERT(types.size() == n->outputs().size(), "type rule of ", n->kind(), " gave ",
                  types.size(), " types for ", n->outputs().size(), " outputs");
    for (size_t i = 0; i < types.size(); ++i) {
      STITCH_ASSERT(types[i], "type rule of ", n->kind(), " gave a null type");
      n->output(i)->setType(types[i]);
    }
    if (n->is("prim.constant")) return;
    std::vector<StaticValue> values = evaluateStatically(*n, known_);
    for (size_t i = 0; i < values.size(); ++i) known_.set(n->output(i), values[i]);
  }

  void branch(Node* n) {
    std::optional<bool> cond = known_.boolValue(n->input(0));
    // A branch that cannot run is left alone: its code may be ill-shaped for
    // these inputs (e.g. `if x.dim() == 3: x.permute(2, 0, 1)`).
    if (cond) {
      Block* live = n->block(*cond ? 0 : 1);
      block(live);
      for (size_t i = 0; i < n->outputs().size(); ++i) {
        n->output(i)->setType(live->ret(i)->type());
        known_.set(n->output(i), live->ret(i));
      }
      return;
    }
    // Either branch may be the one that never runs; only when both fail
    // does the program surely fail here.
    std::optional<UserError> thenFailure = tryBlock(n->block(0));
    std::optional<UserError> elseFailure = tryBlock(n->block(1));
    if (thenFailure && elseFailure) throw *thenFailure;
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      const Value* ra = n->block(0)->ret(i);
      const Value* rb = n->block(1)->ret(i);
      TypePtr a = ra->type(), b = rb->type();
      // An empty list takes the other branch's element type.
      TypePtr joined = thenFailure ? b : elseFailure ? a
                       : isEmptyList(ra) ? b : isEmptyList(rb) ? a : joinTypes(a, b);
      if (!joined)
        throw UserError(errorMessage("if/else branches give different types for the same ",
                                     "variable: ", a->str(), " and ", b->str()));
      n->output(i)->setType(joined);
      known_.set(n->output(i), std::monostate{});
    }
  }

  void loop(Node* n) {
    Block* body = n->block(0);
    size_t carried = n->outputs().size();
    std::vector<TypePtr> types;
    // A list that starts empty takes its element type from the body.
    std::vector<bool> startsEmpty;
    for (size_t i = 0; i < carried; ++i) {
      types.push_back(n->input(2 + i)->type());
      startsEmpty.push_back(isEmptyList(n->input(2 + i)));
    }
    body->param(0)->setType(Type::intT());
    bool settled = false;
    std::optional<UserError> failure;
    int round = 0;
    for (; round < kMaxLoopRounds && !settled && !failure; ++round) {
      std::vector<TypePtr> next =
          loopRound(n, types, round == 0 ? startsEmpty : std::vector<bool>(carried), failure);
      settled = sameTypes(next, types);
      types = std::move(next);
    }
    if (!settled && !failure) {
      for (TypePtr& t : types) t = withoutDims(t);
      types = loopRound(n, types, std::vector<bool>(carried), failure);
    }
    if (failure) {
      // The body fails on its first iteration: the program fails here if
      // the loop surely runs, else only the zero-trip path is left. A later
      // round failing leaves the types of the iterations that do work.
      if (round == 1 && runsAtLeastOnce(n)) throw *failure;
      if (round == 1)
        for (size_t i = 0; i < carried; ++i) types[i] = n->input(2 + i)->type();
    }
    for (size_t i = 0; i < carried; ++i) {
      body->param(1 + i)->setType(types[i]);
      n->output(i)->setType(types[i]);
      known_.set(n->output(i), std::monostate{});
    }
  }

  // One pass over the body with the given carried types; returns them joined
  // with what the body gives back.
  std::vector<TypePtr> loopRound(Node* n, const std::vector<TypePtr>& types,
                                 const std::vector<bool>& takeBodyType,
                                 std::optional<UserError>& failure) {
    Block* body = n->block(0);
    for (size_t i = 0; i < types.size(); ++i) {
      body->param(1 + i)->setType(types[i]);
      // The first round sees a list that starts empty as that empty list, so
      // appends give its element type; later rounds join as usual.
      if (takeBodyType[i]) known_.set(body->param(1 + i), n->input(2 + i));
      else known_.set(body->param(1 + i), std::monostate{});
    }
    failure = tryBlock(body);
    if (failure) return types;
    std::vector<TypePtr> next;
    for (size_t i = 0; i < types.size(); ++i) {
      const TypePtr& back = body->ret(1 + i)->type();
      bool replace = takeBodyType[i] && back->kind() == TypeKind::List;
      TypePtr joined = replace ? back : joinTypes(types[i], back);
      if (!joined)
        throw UserError(errorMessage("loop-carried variable %", printedName(*body->param(1 + i)),
                                     " has type ", types[i]->str(),
                                     " before the loop but ", back->str(), " after an iteration"));
      next.push_back(joined);
    }
    return next;
  }

  // Infers a block that might not run: a user error inside it is returned,
  // since the program only fails if control gets there (PyTorch raises at
  // run time, and so does the interpreter).
  std::optional<UserError> tryBlock(Block* b) {
    try {
      block(b);
    } catch (const UserError& e) {
      return e;
    }
    return std::nullopt;
  }

  bool runsAtLeastOnce(const Node* loop) const {
    std::optional<int64_t> trips = known_.intValue(loop->input(0));
    std::optional<bool> cond = known_.boolValue(loop->input(1));
    return trips && *trips >= 1 && cond && *cond;
  }

  bool isEmptyList(const Value* v) const {
    auto elems = known_.listElementTypes(v);
    return elems && elems->empty();
  }

  PropagatedValues known_;
};

// Python's own conversions apply: an int where a float is declared, a bool
// where an int is.
bool fitsDeclared(const TypePtr& declared, const TypePtr& given) {
  if (!declared || declared->kind() == given->kind()) return true;
  if (declared->kind() == TypeKind::Float) return given->kind() == TypeKind::Int;
  if (declared->kind() == TypeKind::Int) return given->kind() == TypeKind::Bool;
  return false;
}

void setInputTypes(Graph& graph, const std::vector<TypePtr>& inputTypes) {
  const auto& inputs = graph.inputs();
  if (inputs.size() != inputTypes.size())
    throw UserError(errorMessage(graph.name().empty() ? "the function" : graph.name() + "()",
                                 " takes ", inputs.size(), " arguments but ", inputTypes.size(),
                                 " were given"));
  for (size_t i = 0; i < inputs.size(); ++i) {
    STITCH_ASSERT(inputTypes[i], "null input type");
    if (!fitsDeclared(inputs[i]->type(), inputTypes[i]))
      throw UserError(errorMessage("argument '", printedName(*inputs[i]), "' must be ",
                                   inputs[i]->type()->str(), ", not ", inputTypes[i]->str()));
    inputs[i]->setType(inputTypes[i]);
  }
}

}  // namespace

void inferShapes(Graph& graph, const std::vector<TypePtr>& inputTypes) {
  setInputTypes(graph, inputTypes);
  ShapeInference().block(graph.top());
}

}  // namespace stitch
