#include <gtest/gtest.h>

#include <random>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace stitch {
namespace {

std::mt19937& rng() {
  static std::mt19937 gen(std::random_device{}());
  return gen;
}

TEST(DType, NamesRoundTrip) {
  for (DType t : {DType::b8, DType::i32, DType::i64, DType::f32, DType::f64}) {
    EXPECT_EQ(dtypeFromName(dtypeName(t)), t);
    EXPECT_EQ(dtypeFromTorchName(dtypeTorchName(t)), t);
  }
  EXPECT_EQ(dtypeFromTorchName("torch.float"), DType::f32);
  EXPECT_EQ(dtypeFromTorchName("torch.double"), DType::f64);
  EXPECT_EQ(dtypeFromTorchName("torch.long"), DType::i64);
  EXPECT_EQ(dtypeFromTorchName("torch.int"), DType::i32);
  EXPECT_EQ(dtypeFromTorchName("bool"), DType::b8);
  EXPECT_FALSE(dtypeFromTorchName("torch.float16x"));
  EXPECT_EQ(dtypeSize(DType::f64), 8u);
}

TEST(DType, Promotion) {
  EXPECT_EQ(promoteTypes(DType::b8, DType::i32), DType::i32);
  EXPECT_EQ(promoteTypes(DType::i64, DType::f32), DType::f32);
  EXPECT_EQ(promoteTypes(DType::f32, DType::f64), DType::f64);
  EXPECT_EQ(promoteTypes(DType::i32, DType::i64), DType::i64);
  EXPECT_EQ(promoteTypes(DType::f32, DType::b8), DType::f32);
}

TEST(Type, PrintParseRoundTrip) {
  std::vector<TypePtr> types = {
      Type::tensor(),
      Type::tensor(DType::f32),
      Type::tensor(DType::f32, std::vector<int64_t>{800, Type::kUnknownDim, 3}),
      Type::tensor(std::nullopt, std::vector<int64_t>{2, 3}),
      Type::tensor(DType::b8, std::vector<int64_t>{}),
      Type::intT(), Type::floatT(), Type::boolT(), Type::none(), Type::strT(), Type::dtypeT(),
      Type::list(Type::intT()),
      Type::tuple({Type::tensor(DType::i64, std::vector<int64_t>{4}), Type::list(Type::boolT())}),
      Type::tuple({}),
  };
  for (const TypePtr& t : types) {
    TypePtr back = parseType(t->str());
    ASSERT_TRUE(back) << t->str();
    EXPECT_EQ(*back, *t) << t->str();
    EXPECT_EQ(back->str(), t->str());
  }
  EXPECT_EQ(Type::tensor(DType::f32, std::vector<int64_t>{800, -1, 3})->str(), "f32[800,?,3]");
  EXPECT_EQ(Type::tensor(DType::f32)->str(), "f32[*]");
  EXPECT_FALSE(parseType("f32[2,"));
  EXPECT_FALSE(parseType("List[int"));
  EXPECT_FALSE(parseType("banana"));
}

TEST(Type, Join) {
  auto a = Type::tensor(DType::f32, std::vector<int64_t>{4, 3});
  auto b = Type::tensor(DType::f32, std::vector<int64_t>{5, 3});
  EXPECT_EQ(joinTypes(a, b)->str(), "f32[?,3]");
  auto c = Type::tensor(DType::f64, std::vector<int64_t>{4});
  EXPECT_EQ(joinTypes(a, c)->str(), "Tensor");
  EXPECT_EQ(joinTypes(a, a)->str(), "f32[4,3]");
  EXPECT_EQ(joinTypes(a, Type::intT()), nullptr);
  EXPECT_EQ(joinTypes(Type::list(a), Type::list(b))->str(), "List[f32[?,3]]");
}

TEST(Constant, FloatsRoundTripAndLookLikeFloats) {
  std::uniform_real_distribution<double> dist(-1e6, 1e6);
  for (int i = 0; i < 200; ++i) {
    double d = dist(rng()) * std::pow(10.0, (int)(rng()() % 40) - 20);
    std::string s = Constant(d).str();
    EXPECT_EQ(std::stod(s), d) << s;
    EXPECT_NE(s.find_first_of(".e"), std::string::npos) << s;
  }
  EXPECT_EQ(Constant(1.0).str(), "1.0");
  EXPECT_EQ(Constant(1e-5).str(), "1e-05");
  EXPECT_EQ(Constant(std::numeric_limits<double>::infinity()).str(), "inf");
  EXPECT_EQ(Constant(-std::numeric_limits<double>::infinity()).str(), "-inf");
  EXPECT_EQ(Constant(std::nan("")).str(), "nan");
  EXPECT_EQ(Constant(true).str(), "true");
  EXPECT_EQ(Constant(std::vector<int64_t>{1, -2}).str(), "[1, -2]");
  EXPECT_EQ(Constant("a\"b").str(), "\"a\\\"b\"");
  EXPECT_EQ(Constant(DType::i64).str(), "i64");
  EXPECT_EQ(Constant().str(), "None");
}

// x + n times (loop), building uses across blocks.
struct LoopGraph {
  Graph g;
  Value* x;
  Value* n;
  Node* loop;
  Node* add;
  LoopGraph() {
    x = g.addInput(Type::tensor(DType::f32, std::vector<int64_t>{4}), "x");
    n = g.addInput(Type::intT(), "n");
    Value* cond = g.constant(Constant(true));
    loop = g.create("prim.loop", {n, cond, x}, 1);
    g.top()->append(loop);
    Block* body = loop->addBlock();
    body->addParam(Type::intT(), "i");
    Value* carried = body->addParam(x->type(), "x");
    Value* one = g.constant(Constant(1.0));
    const OpSchema& addScalar = *OpRegistry::get().overloads("add")[1];
    add = g.create(addScalar, {carried, one, g.constant(Constant((int64_t)1))});
    body->append(add);
    body->addReturn(cond);
    body->addReturn(add->output());
    g.addOutput(loop->output());
  }
};

TEST(Graph, UsesAreMaintained) {
  LoopGraph lg;
  EXPECT_EQ(lg.x->uses().size(), 1u);
  EXPECT_EQ(lg.x->uses()[0].user, lg.loop);
  EXPECT_EQ(lg.x->uses()[0].index, 2u);
  Value* carried = lg.loop->block(0)->param(1);
  EXPECT_EQ(carried->uses().size(), 1u);
  EXPECT_TRUE(carried->isBlockParam());
  EXPECT_EQ(lg.add->owningNode(), lg.loop);
  EXPECT_EQ(lg.add->output()->uses()[0].user, lg.loop->block(0)->returnNode());
  lg.loop->removeInput(0);
  EXPECT_EQ(lg.x->uses()[0].index, 1u);
  lg.loop->insertInput(0, lg.n);
  EXPECT_EQ(lg.x->uses()[0].index, 2u);
  EXPECT_EQ(lg.n->uses()[0].index, 0u);
}

TEST(Graph, ConstantsStayInCreationOrderAtTheTop) {
  Graph g;
  std::uniform_int_distribution<int64_t> dist(-100, 100);
  std::vector<int64_t> values;
  for (int i = 0; i < 5; ++i) {
    values.push_back(dist(rng()));
    g.constant(Constant(values.back()));
  }
  size_t i = 0;
  for (Node* n : *g.top()) EXPECT_EQ(n->attr("value").toInt(), values[i++]);
  EXPECT_EQ(i, values.size());
}

TEST(Graph, IsBeforeAcrossNesting) {
  LoopGraph lg;
  Node* first = lg.g.top()->front();
  EXPECT_TRUE(first->isBefore(lg.loop));
  EXPECT_TRUE(first->isBefore(lg.add));
  EXPECT_FALSE(lg.loop->isBefore(lg.add));  // nested: neither before nor after
  EXPECT_FALSE(lg.add->isBefore(lg.loop));
  Node* after = lg.g.create("neg", {lg.loop->output()});
  lg.g.top()->append(after);
  EXPECT_TRUE(lg.add->isBefore(after));
  EXPECT_TRUE(lg.loop->isBefore(after));
  EXPECT_FALSE(after->isBefore(lg.add));
  EXPECT_FALSE(lg.add->isBefore(first));
  EXPECT_TRUE(lg.add->isBefore(lg.loop->block(0)->returnNode()));
  EXPECT_TRUE(lg.add->isBefore(lg.g.top()->returnNode()));
}

TEST(Graph, ReplaceUsesAfter) {
  Graph g;
  Value* x = g.addInput(Type::tensor(), "x");
  Node* a = g.create("neg", {x});
  Node* b = g.create("neg", {x});
  Node* c = g.create("neg", {x});
  for (Node* n : {a, b, c}) g.top()->append(n);
  x->replaceUsesAfter(a, a->output());
  EXPECT_EQ(a->input(0), x);
  EXPECT_EQ(b->input(0), a->output());
  EXPECT_EQ(c->input(0), a->output());
  EXPECT_EQ(x->uses().size(), 1u);
  EXPECT_EQ(a->output()->uses().size(), 2u);
}

TEST(Graph, MoveAndDestroy) {
  LoopGraph lg;
  Graph& g = lg.g;
  Node* neg = g.create("neg", {lg.x});
  g.top()->append(neg);
  neg->moveBefore(lg.loop);
  EXPECT_EQ(neg->next(), lg.loop);
  neg->moveAfter(lg.loop);
  EXPECT_EQ(lg.loop->next(), neg);
  neg->destroy();
  EXPECT_EQ(lg.x->uses().size(), 1u);
  g.top()->eraseReturn(0);
  size_t nUsesBefore = lg.n->uses().size();
  lg.loop->destroy();
  EXPECT_EQ(lg.n->uses().size(), nUsesBefore - 1);
  EXPECT_TRUE(lg.x->uses().empty());
  for (Node* n : *g.top()) EXPECT_TRUE(n->is("prim.constant"));
}

TEST(Graph, CloneIsDeepAndEqualInShape) {
  LoopGraph lg;
  auto copy = lg.g.clone();
  ASSERT_EQ(copy->inputs().size(), 2u);
  EXPECT_NE(copy->inputs()[0], lg.x);
  EXPECT_EQ(*copy->inputs()[0]->type(), *lg.x->type());
  Node* loop = copy->outputs()[0]->node();
  EXPECT_TRUE(loop->is("prim.loop"));
  ASSERT_EQ(loop->blocks().size(), 1u);
  EXPECT_EQ(loop->block(0)->returns().size(), 2u);
  EXPECT_EQ(loop->input(2), copy->inputs()[0]);
  Node* add = loop->block(0)->front();
  EXPECT_EQ(add->input(0), loop->block(0)->param(1));
  EXPECT_EQ(&add->schema(), &lg.add->schema());
}

TEST(Graph, CloneBlockIntoSameGraphKeepsOuterValues) {
  LoopGraph lg;
  Graph& g = lg.g;
  Block* body = lg.loop->block(0);
  std::map<const Value*, Value*> env;
  Value* replacementIter = g.addInput(Type::intT(), "j");
  Value* replacementCarried = g.addInput(lg.x->type(), "y");
  env[body->param(0)] = replacementIter;
  env[body->param(1)] = replacementCarried;
  size_t before = g.top()->nodes().size();
  Graph::cloneBlockInto(body, g.top(), env);
  std::vector<Node*> nodes = g.top()->nodes();
  ASSERT_EQ(nodes.size(), before + 1);
  Node* copy = nodes.back();
  EXPECT_TRUE(copy->is("add"));
  EXPECT_EQ(copy->input(0), replacementCarried);
  EXPECT_EQ(copy->input(1), lg.add->input(1));  // an outer constant maps to itself
  EXPECT_EQ(env.at(lg.add->output()), copy->output());
}

TEST(Graph, ReplaceAllUsesWithMovesEveryUse) {
  LoopGraph lg;
  Value* other = lg.g.addInput(lg.x->type(), "other");
  Value* carried = lg.loop->block(0)->param(1);
  lg.x->replaceAllUsesWith(other);
  EXPECT_TRUE(lg.x->uses().empty());
  EXPECT_EQ(lg.loop->input(2), other);
  ASSERT_EQ(other->uses().size(), 1u);
  Node* neg = lg.g.create("neg", {carried});
  lg.loop->block(0)->append(neg);
  carried->replaceAllUsesWith(neg->output());  // also rewires neg's own input
  EXPECT_EQ(neg->output()->uses().size(), 2u);
}

TEST(Graph, CreateUsesDeclaredReturns) {
  Graph g;
  Value* x = g.addInput(Type::tensor(), "x");
  Node* mx = g.create(*OpRegistry::get().overloads("max")[1], {x, g.constant(Constant(0)),
                                                                g.constant(Constant(false))});
  EXPECT_EQ(mx->outputs().size(), 2u);
  Node* unpack = g.create("prim.list_unpack", {g.create("chunk", {x})->output()});
  EXPECT_EQ(unpack->outputs().size(), 0u);
  Node* sizes = g.create(OpRegistry::get().schema("size"), {x});
  EXPECT_EQ(sizes->output()->type()->str(), "List[int]");
}

}  // namespace
}  // namespace stitch
