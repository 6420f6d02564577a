#include <gtest/gtest.h>

#include <random>

#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/shape_inference.h"

namespace stitch {
namespace {

std::mt19937& rng() {
  static std::mt19937 gen(std::random_device{}());
  return gen;
}
int64_t randomDim() { return std::uniform_int_distribution<int64_t>(1, 500)(rng()); }

TypePtr f32(std::vector<int64_t> dims) { return Type::tensor(DType::f32, std::move(dims)); }
std::string show(const TypePtr& t) { return t ? t->str() : "null"; }

Node* add(Graph& g, Block* b, const std::string& op, std::vector<Value*> inputs,
          size_t numOutputs = SIZE_MAX) {
  std::vector<TypePtr> types;
  for (Value* v : inputs) types.push_back(v->type());
  const OpSchema* s = findOverloadForInputs(op, types);
  EXPECT_TRUE(s) << op;
  Node* n = g.create(*s, inputs, numOutputs);
  b->append(n);
  return n;
}

// if (cond) { int } else { float }: the output's type says which branch
// shape inference took as live.
Node* branchOnCondition(Graph& g, Value* cond) {
  Node* branch = g.create("prim.if", {cond}, 1);
  g.top()->append(branch);
  branch->addBlock()->addReturn(g.constant(Constant((int64_t)1)));
  branch->addBlock()->addReturn(g.constant(Constant(2.5)));
  return branch;
}

TEST(ShapeInference, FoldsShapeQueriesIntoKnownScalars) {
  int64_t d0 = randomDim(), d1 = randomDim();
  Graph g;
  Value* x = g.addInput(Type::tensor(), "x");
  Node* size0 = add(g, g.top(), "size", {x, g.constant(Constant((int64_t)0))});
  Node* half = add(g, g.top(), "scalar.floordiv", {size0->output(), g.constant(Constant((int64_t)2))});
  Node* shape = add(g, g.top(), "size", {x});
  Node* last = add(g, g.top(), "list.get", {shape->output(), g.constant(Constant((int64_t)-1))});
  Node* sum = add(g, g.top(), "scalar.add", {half->output(), last->output()});
  Node* eq = add(g, g.top(), "scalar.eq", {sum->output(), g.constant(Constant(d0 / 2 + d1))});
  Node* ne = add(g, g.top(), "scalar.ne", {sum->output(), g.constant(Constant(d0 / 2 + d1))});
  Node* taken = branchOnCondition(g, eq->output());
  Node* notTaken = branchOnCondition(g, ne->output());
  g.addOutput(taken->output());
  g.addOutput(notTaken->output());
  verifyGraph(g);
  inferShapes(g, {f32({d0, d1})});
  verifyGraph(g);
  EXPECT_EQ(size0->output()->type()->str(), "int");
  EXPECT_EQ(shape->output()->type()->str(), "List[int]");
  EXPECT_EQ(taken->output()->type()->str(), "int") << printGraph(g);
  EXPECT_EQ(notTaken->output()->type()->str(), "float") << printGraph(g);
}

TEST(ShapeInference, UnknownConditionJoinsBranches) {
  int64_t d = randomDim();
  Graph g;
  Value* c = g.addInput(Type::boolT(), "c");
  Value* a = g.addInput(Type::tensor(), "a");
  Value* b = g.addInput(Type::tensor(), "b");
  Node* branch = g.create("prim.if", {c}, 1);
  g.top()->append(branch);
  branch->addBlock()->addReturn(a);
  branch->addBlock()->addReturn(b);
  g.addOutput(branch->output());
  inferShapes(g, {Type::boolT(), f32({d, 3}), f32({d + 1, 3})});
  EXPECT_EQ(branch->output()->type()->str(), "f32[?,3]");
  inferShapes(g, {Type::boolT(), f32({d, 3}), f32({d, 3})});
  EXPECT_EQ(*branch->output()->type(), *f32({d, 3}));
}

TEST(ShapeInference, LoopCarriedTypesReachAFixedPoint) {
  // Each iteration swaps a and b, so both end up as "either shape".
  int64_t d = randomDim();
  Graph g;
  Value* n = g.addInput(Type::intT(), "n");
  Value* a = g.addInput(Type::tensor(), "a");
  Value* b = g.addInput(Type::tensor(), "b");
  Node* loop = g.create("prim.loop", {n, g.constant(Constant(true)), a, b}, 2);
  g.top()->append(loop);
  Block* body = loop->addBlock();
  body->addParam(Type::intT(), "i");
  Value* pa = body->addParam(Type::tensor(), "a");
  Value* pb = body->addParam(Type::tensor(), "b");
  Node* keepGoing = add(g, body, "scalar.lt", {body->param(0), n});
  body->addReturn(keepGoing->output());
  body->addReturn(pb);
  body->addReturn(pa);
  g.addOutput(loop->output(0));
  inferShapes(g, {Type::intT(), f32({d, 2}), f32({d, 2, 7})});
  verifyGraph(g);
  EXPECT_EQ(loop->output(0)->type()->str(), "f32[*]");
  EXPECT_EQ(pb->type()->str(), "f32[*]");
  inferShapes(g, {Type::intT(), f32({d, 2}), f32({d + 1, 2})});
  EXPECT_EQ(loop->output(1)->type()->str(), "f32[?,2]");
  EXPECT_EQ(pa->type()->str(), "f32[?,2]");
}

TEST(ShapeInference, ListsAndTuplesCarryElementTypes) {
  int64_t d = randomDim();
  Graph g;
  Value* x = g.addInput(Type::tensor(), "x");
  Value* k = g.addInput(Type::intT(), "k");
  Node* list = add(g, g.top(), "prim.list_construct", {x, x});
  Node* tup = add(g, g.top(), "prim.tuple_construct", {list->output(), k});
  Node* second = add(g, g.top(), "prim.tuple_index", {tup->output(), g.constant(Constant((int64_t)1))});
  Node* first = add(g, g.top(), "prim.tuple_index", {tup->output(), g.constant(Constant((int64_t)0))});
  Node* elem = add(g, g.top(), "list.get", {first->output(), k});
  Node* len = add(g, g.top(), "list.len", {first->output()});
  Node* isTwo = add(g, g.top(), "scalar.eq", {len->output(), g.constant(Constant((int64_t)2))});
  Node* branch = branchOnCondition(g, isTwo->output());
  Node* unpack = add(g, g.top(), "prim.list_unpack", {list->output()}, 2);
  g.addOutput(elem->output());
  inferShapes(g, {f32({d}), Type::intT()});
  verifyGraph(g);
  EXPECT_EQ(*elem->output()->type(), *f32({d}));
  EXPECT_EQ(second->output()->type()->str(), "int");
  EXPECT_EQ(*unpack->output(1)->type(), *f32({d}));
  EXPECT_EQ(branch->output()->type()->str(), "int");
}

TEST(ShapeInference, ScalarArithmeticFollowsPython) {
  std::uniform_int_distribution<int64_t> dist(-50, 50);
  int64_t a = dist(rng()), b = dist(rng());
  if (b == 0) b = 7;
  int64_t floorDiv = (int64_t)std::floor((double)a / (double)b);
  int64_t mod = a - floorDiv * b;
  Graph g;
  Value* av = g.addInput(Type::intT(), "a");
  Value* bv = g.addInput(Type::intT(), "b");
  // a and b are inputs, so only their constants below are known.
  Value* ac = g.constant(Constant(a));
  Value* bc = g.constant(Constant(b));
  Node* q = add(g, g.top(), "scalar.floordiv", {ac, bc});
  Node* r = add(g, g.top(), "scalar.mod", {ac, bc});
  Node* div = add(g, g.top(), "scalar.truediv", {ac, bc});
  Node* qOk = add(g, g.top(), "scalar.eq", {q->output(), g.constant(Constant(floorDiv))});
  Node* rOk = add(g, g.top(), "scalar.eq", {r->output(), g.constant(Constant(mod))});
  Node* both = add(g, g.top(), "scalar.and", {qOk->output(), rOk->output()});
  Node* branch = branchOnCondition(g, both->output());
  Node* unknown = add(g, g.top(), "scalar.lt", {av, bv});
  Node* joined = branchOnCondition(g, unknown->output());
  g.addOutput(branch->output());
  EXPECT_THROW(inferShapes(g, {Type::intT(), Type::intT()}), UserError);  // int vs float join
  joined->block(1)->replaceReturn(0, g.constant(Constant((int64_t)3)));
  inferShapes(g, {Type::intT(), Type::intT()});
  EXPECT_EQ(div->output()->type()->str(), "float");
  EXPECT_EQ(branch->output()->type()->str(), "int") << a << " " << b << "\n" << printGraph(g);
}

TEST(ShapeInference, ErrorsCarryTheNodeLocation) {
  int line = (int)randomDim();
  Graph g;
  Value* x = g.addInput(Type::tensor(), "x");
  Value* i = g.addInput(Type::intT(), "i");
  Node* list = add(g, g.top(), "prim.list_construct", {x, x});
  list->setLoc(SourceLoc{"prog.py", line, 5});
  list->replaceInput(1, i);
  g.addOutput(list->output());
  try {
    inferShapes(g, {f32({2}), Type::intT()});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, line);
    EXPECT_EQ(e.loc().file, "prog.py");
  }
}

TEST(ShapeInference, LoopCarriedScalarChangingKindIsAnError) {
  Graph g;
  Value* n = g.addInput(Type::intT(), "n");
  Node* loop = g.create("prim.loop", {n, g.constant(Constant(true)), n}, 1);
  g.top()->append(loop);
  loop->setLoc(SourceLoc{"prog.py", 4, 3});
  Block* body = loop->addBlock();
  body->addParam(Type::intT(), "i");
  Value* acc = body->addParam(Type::intT(), "acc");
  Node* half = add(g, body, "scalar.truediv", {acc, g.constant(Constant((int64_t)2))});
  body->addReturn(g.constant(Constant(true)));
  body->addReturn(half->output());
  g.addOutput(loop->output());
  try {
    inferShapes(g, {Type::intT()});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, 4);
    EXPECT_NE(e.message().find("int before the loop but float"), std::string::npos) << e.message();
  }
}

TEST(ShapeInference, ChecksInputs) {
  Graph g;
  g.addInput(Type::tensor(), "x");
  g.addInput(Type::floatT(), "s");
  EXPECT_THROW(inferShapes(g, {f32({1})}), UserError);
  EXPECT_THROW(inferShapes(g, {Type::intT(), Type::floatT()}), UserError);
  EXPECT_NO_THROW(inferShapes(g, {f32({1}), Type::intT()}));
}

}  // namespace
}  // namespace stitch

namespace stitch {
namespace {

// With the ops' own shape rules: the carried tensor grows every iteration,
// so its first dim becomes unknown while the rest stays.
TEST(ShapeInferenceWithRules, GrowingLoopCarriedTensor) {
  int64_t d0 = randomDim(), d1 = randomDim();
  Graph g;
  Value* n = g.addInput(Type::intT(), "n");
  Value* x = g.addInput(Type::tensor(), "x");
  Value* zero = g.constant(Constant((int64_t)0));
  Node* loop = g.create("prim.loop", {n, g.constant(Constant(true)), x}, 1);
  g.top()->append(loop);
  Block* body = loop->addBlock();
  body->addParam(Type::intT(), "i");
  Value* px = body->addParam(Type::tensor(), "x");
  Node* list = add(g, body, "prim.list_construct", {px, px});
  Node* cat = add(g, body, "cat", {list->output(), zero});
  body->addReturn(g.constant(Constant(true)));
  body->addReturn(cat->output());
  g.addOutput(loop->output());
  inferShapes(g, {Type::intT(), f32({d0, d1})});
  verifyGraph(g);
  EXPECT_EQ(*loop->output()->type(), *f32({Type::kUnknownDim, d1})) << printGraph(g);
  EXPECT_EQ(*px->type(), *f32({Type::kUnknownDim, d1}));
}

// The worked example of the design: dup[..., 0] = src[..., 2] etc.
TEST(ShapeInferenceWithRules, NormalizeSpecializesEveryValue) {
  int64_t h = randomDim(), w = randomDim();
  Graph g;
  Value* src = g.addInput(Type::tensor(), "src");
  Value* mean = g.addInput(Type::floatT(), "mean");
  Value* scale = g.addInput(Type::floatT(), "scale");
  Value* last = g.constant(Constant((int64_t)-1));
  Value* two = g.constant(Constant((int64_t)2));
  Value* zero = g.constant(Constant((int64_t)0));
  Value* one = g.constant(Constant((int64_t)1));
  Node* s2 = add(g, g.top(), "clone", {src});
  Node* dup = add(g, g.top(), "clone", {s2->output()});
  Node* from = add(g, g.top(), "select", {s2->output(), last, two});
  Node* to = add(g, g.top(), "select", {dup->output(), last, zero});
  add(g, g.top(), "copy_", {to->output(), from->output()});
  Node* sub = add(g, g.top(), "sub", {dup->output(), mean, one});
  Node* mul = add(g, g.top(), "mul", {sub->output(), scale});
  g.addOutput(mul->output());
  inferShapes(g, {f32({h, w, 3}), Type::floatT(), Type::floatT()});
  verifyGraph(g);
  EXPECT_EQ(*from->output()->type(), *f32({h, w}));
  EXPECT_EQ(*mul->output()->type(), *f32({h, w, 3}));
}

}  // namespace
}  // namespace stitch

namespace stitch {
namespace {

// mm(a, b) on shapes that cannot be multiplied: fails only if it runs.
struct BadProduct {
  Graph g;
  int64_t m = randomDim(), k = randomDim();
  Value* a = g.addInput(Type::tensor(), "a");
  Value* b = g.addInput(Type::tensor(), "b");
  std::vector<TypePtr> inputs() const { return {f32({m, k}), f32({k + 1, m}), Type::boolT(), Type::intT()}; }
  Node* product(Block* where, int line) {
    Node* mm = add(g, where, "mm", {a, b});
    mm->setLoc(SourceLoc{"prog.py", line, 9});
    return mm;
  }
};

TEST(ShapeInferenceWithRules, BranchThatMayNotRunIsNotRejected) {
  BadProduct p;
  Value* flag = p.g.addInput(Type::boolT(), "flag");
  p.g.addInput(Type::intT(), "n");
  Node* branch = p.g.create("prim.if", {flag}, 1);
  p.g.top()->append(branch);
  Block* thenB = branch->addBlock();
  thenB->addReturn(p.product(thenB, 3)->output());
  Block* elseB = branch->addBlock();
  elseB->addReturn(p.a);
  p.g.addOutput(branch->output());
  inferShapes(p.g, p.inputs());
  EXPECT_EQ(show(branch->output()->type()), show(f32({p.m, p.k})));
  // Both branches failing is a sure failure, reported where it happens.
  elseB->replaceReturn(0, p.product(elseB, 5)->output());
  try {
    inferShapes(p.g, p.inputs());
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, 3);
    EXPECT_NE(e.message().find("cannot be multiplied"), std::string::npos) << e.message();
  }
}

Node* loopOverProduct(BadProduct& p, Value* trips) {
  Node* loop = p.g.create("prim.loop", {trips, p.g.constant(Constant(true)), p.a}, 1);
  p.g.top()->append(loop);
  Block* body = loop->addBlock();
  body->addParam(Type::intT(), "i");
  body->addParam(Type::tensor(), "y");
  body->addReturn(p.g.constant(Constant(true)));
  body->addReturn(p.product(body, 7)->output());
  p.g.addOutput(loop->output());
  return loop;
}

TEST(ShapeInferenceWithRules, LoopThatMayRunZeroTimesIsNotRejected) {
  BadProduct p;
  p.g.addInput(Type::boolT(), "flag");
  Value* n = p.g.addInput(Type::intT(), "n");
  Node* loop = loopOverProduct(p, n);
  inferShapes(p.g, p.inputs());
  EXPECT_EQ(show(loop->output()->type()), show(f32({p.m, p.k})));
}

TEST(ShapeInferenceWithRules, LoopThatSurelyRunsReportsTheError) {
  BadProduct p;
  p.g.addInput(Type::boolT(), "flag");
  p.g.addInput(Type::intT(), "n");
  loopOverProduct(p, p.g.constant(Constant(randomDim())));
  try {
    inferShapes(p.g, p.inputs());
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, 7);
  }
}

}  // namespace
}  // namespace stitch
