// The interpreter on hand-built graphs: loops with carried values, while-style
// loops, branches, in-place writes to inputs, errors with node locations.
#include "interp/kernel_registry.h"
#include "ir/op_registry.h"
#include "core_test_util.h"

namespace stitch {
namespace {

using namespace itest;

Node* append(Graph& g, Block* b, const std::string& op, const std::vector<Value*>& ins,
             size_t outs = SIZE_MAX) {
  Node* n = g.create(op, ins, outs);
  b->append(n);
  return n;
}

// for i in range(n): acc = acc + i * scale
TEST(CoreInterpreter, ForLoopCarriesValues) {
  Graph g;
  Value* n = g.addInput(Type::intT(), "n");
  Value* x = g.addInput(Type::tensor(), "x");
  Value* scale = g.addInput(Type::floatT(), "scale");
  Value* yes = g.constant(Constant(true));
  Value* one = g.constant(Constant(int64_t(1)));
  Node* loop = append(g, g.top(), "prim.loop", {n, yes, x}, 1);
  Block* body = loop->addBlock();
  Value* i = body->addParam(Type::intT(), "i");
  Value* acc = body->addParam(Type::tensor(), "acc");
  Value* term = append(g, body, "scalar.mul", {i, scale})->output();
  Value* next = append(g, body, "add", {acc, term, one})->output();
  body->addReturn(yes);
  body->addReturn(next);
  g.addOutput(loop->output());

  int64_t trips = randInt(0, 12);
  double s = randReal(-2, 2);
  Tensor input = randomTensor(randomShape(2), DType::f32);
  Tensor out = interpret(g, {IValue(trips), IValue(input), IValue(s)}).at(0).toTensor();
  double sum = 0;
  for (int64_t k = 0; k < trips; ++k) sum += (double)k * s;
  for (int64_t e = 0; e < out.numel(); ++e)
    EXPECT_TRUE(closeEnough(out.getDouble(e), input.getDouble(e) + sum, DType::f32));
}

// while v < limit: v = v * 2; count += 1   (cond computed in the body)
TEST(CoreInterpreter, WhileLoopStopsOnCondition) {
  Graph g;
  Value* start = g.addInput(Type::intT(), "start");
  Value* limit = g.addInput(Type::intT(), "limit");
  Value* maxTrips = g.constant(Constant(int64_t(1) << 40));
  Value* zero = g.constant(Constant(int64_t(0)));
  Value* two = g.constant(Constant(int64_t(2)));
  Value* one = g.constant(Constant(int64_t(1)));
  Value* cond0 = append(g, g.top(), "scalar.lt", {start, limit})->output();
  Node* loop = append(g, g.top(), "prim.loop", {maxTrips, cond0, start, zero}, 2);
  Block* body = loop->addBlock();
  body->addParam(Type::intT(), "i");
  Value* v = body->addParam(Type::intT(), "v");
  Value* count = body->addParam(Type::intT(), "count");
  Value* v2 = append(g, body, "scalar.mul", {v, two})->output();
  Value* c2 = append(g, body, "scalar.add", {count, one})->output();
  Value* more = append(g, body, "scalar.lt", {v2, limit})->output();
  body->addReturn(more);
  body->addReturn(v2);
  body->addReturn(c2);
  g.addOutput(loop->output(0));
  g.addOutput(loop->output(1));

  int64_t s = randInt(1, 20), lim = randInt(1, 5000);
  IValueList out = interpret(g, {IValue(s), IValue(lim)});
  int64_t wantV = s, wantCount = 0;
  while (wantV < lim) {
    wantV *= 2;
    ++wantCount;
  }
  EXPECT_EQ(out.at(0).toInt(), wantV);
  EXPECT_EQ(out.at(1).toInt(), wantCount);
}

// if flag: y = x * 2 else: y = -x
TEST(CoreInterpreter, IfTakesTheRightBranch) {
  Graph g;
  Value* flag = g.addInput(Type::boolT(), "flag");
  Value* x = g.addInput(Type::tensor(), "x");
  Value* two = g.constant(Constant(int64_t(2)));
  Node* branch = append(g, g.top(), "prim.if", {flag}, 1);
  Block* thenB = branch->addBlock();
  Block* elseB = branch->addBlock();
  thenB->addReturn(append(g, thenB, "mul", {x, two})->output());
  elseB->addReturn(append(g, elseB, "neg", {x})->output());
  g.addOutput(branch->output());

  Tensor input = randomTensor(randomShape(3), DType::i64, -100, 100);
  bool f = coin();
  Tensor out = interpret(g, {IValue(f), IValue(input)}).at(0).toTensor();
  for (int64_t e = 0; e < out.numel(); ++e)
    EXPECT_EQ(out.getInt(e), f ? 2 * input.getInt(e) : -input.getInt(e));
}

TEST(CoreInterpreter, InPlaceWritesReachTheCallersTensor) {
  Graph g;
  Value* x = g.addInput(Type::tensor(), "x");
  Value* v = g.addInput(Type::floatT(), "v");
  Value* one = g.constant(Constant(int64_t(1)));
  Node* n = append(g, g.top(), "add_", {x, v, one});
  g.addOutput(n->output());
  Tensor input = randomTensor(randomShape(2), DType::f64);
  Tensor before = input.clone();
  double amount = randReal(-3, 3);
  Tensor out = interpret(g, {IValue(input), IValue(amount)}).at(0).toTensor();
  EXPECT_TRUE(out.sameStorage(input));
  for (int64_t e = 0; e < input.numel(); ++e)
    EXPECT_DOUBLE_EQ(input.getDouble(e), before.getDouble(e) + amount);
}

TEST(CoreInterpreter, KernelErrorsCarryTheNodeLocation) {
  Graph g;
  Value* a = g.addInput(Type::tensor(), "a");
  Value* b = g.addInput(Type::tensor(), "b");
  Value* one = g.constant(Constant(int64_t(1)));
  Node* n = append(g, g.top(), "add", {a, b, one});
  int line = (int)randInt(1, 99);
  n->setLoc(SourceLoc{"prog.py", line, 7});
  g.addOutput(n->output());
  try {
    interpret(g, {IValue(Tensor::empty({2, 3}, DType::f32)), IValue(Tensor::empty({4}, DType::f32))});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, line);
    EXPECT_EQ(e.loc().col, 7);
    EXPECT_NE(e.message().find("must match the size of tensor b (4)"), std::string::npos);
  }
}

TEST(CoreInterpreter, RuntimeFailuresCarryTheNodeLocation) {
  Graph g;
  Value* a = g.addInput(Type::intT(), "a");
  Value* zero = g.constant(Constant(int64_t(0)));
  Node* n = append(g, g.top(), "scalar.floordiv", {a, zero});
  n->setLoc(SourceLoc{"prog.py", 4, 2});
  g.addOutput(n->output());
  try {
    interpret(g, {IValue(randInt(-9, 9))});
    ADD_FAILURE() << "no error";
  } catch (const RuntimeFailure& e) {
    EXPECT_EQ(e.loc().line, 4);
    EXPECT_EQ(e.message(), "division by zero");
  }
}

TEST(CoreInterpreter, WrongInputCountIsAUserError) {
  Graph g;
  g.addInput(Type::intT(), "a");
  expectError<UserError>([&] { interpret(g, {}); }, "takes 1 inputs but 0 were given");
}

TEST(CoreInterpreter, OpsWithoutKernelAreInternalErrors) {
  // An op known to the registry that no kernel implements.
  const char* name = "itest.no_kernel";
  if (!OpRegistry::get().has(name)) OpRegistry::get().add("itest.no_kernel(Tensor self) -> Tensor", kPure);
  ASSERT_EQ(KernelRegistry::get().find(name), nullptr);
  Graph g;
  Value* x = g.addInput(Type::tensor(), "x");
  Node* n = g.create(name, {x});
  g.top()->append(n);
  g.addOutput(n->output());
  expectError<InternalError>([&] { interpret(g, {IValue(Tensor::empty({2}, DType::f32))}); }, name);
}

}  // namespace
}  // namespace stitch
