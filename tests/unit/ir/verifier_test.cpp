#include <gtest/gtest.h>

#include <random>

#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"

namespace stitch {
namespace {

std::string verifyError(const Graph& g) {
  try {
    verifyGraph(g);
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_VERIFY_FAILS(g, fragment)                                        \
  do {                                                                          \
    std::string msg = verifyError(g);                                           \
    EXPECT_NE(msg.find(fragment), std::string::npos) << "message: " << msg;    \
  } while (0)

int64_t randomSize() {
  static std::mt19937 gen(std::random_device{}());
  return std::uniform_int_distribution<int64_t>(1, 64)(gen);
}

struct Fixture {
  Graph g;
  Value* x = g.addInput(Type::tensor(DType::f32, std::vector<int64_t>{randomSize()}), "x");
  Value* n = g.addInput(Type::intT(), "n");
  Value* cond = g.constant(Constant(true));
  Node* append(const std::string& op, std::vector<Value*> ins, Block* b = nullptr,
               size_t overload = 0) {
    Node* node = g.create(*OpRegistry::get().overloads(op).at(overload), ins);
    (b ? b : g.top())->append(node);
    return node;
  }
  // prim.loop carrying x once.
  Node* loop(size_t params, size_t returns) {
    Node* l = g.create("prim.loop", {n, cond, x}, 1);
    g.top()->append(l);
    Block* body = l->addBlock();
    for (size_t i = 0; i < params; ++i) body->addParam(i == 0 ? Type::intT() : x->type());
    for (size_t i = 0; i < returns; ++i) body->addReturn(i == 0 ? cond : x);
    return l;
  }
};

TEST(Verifier, AcceptsWellFormedGraph) {
  Fixture f;
  Node* l = f.loop(2, 2);
  Node* neg = f.append("neg", {l->block(0)->param(1)}, l->block(0));
  l->block(0)->replaceReturn(1, neg->output());
  f.g.addOutput(l->output());
  EXPECT_EQ(verifyError(f.g), "");
}

TEST(Verifier, RejectsUseBeforeDefinition) {
  Fixture f;
  Node* a = f.append("neg", {f.x});
  Node* b = f.append("neg", {a->output()});
  b->moveBefore(a);
  EXPECT_VERIFY_FAILS(f.g, "is not defined before its use");
}

TEST(Verifier, RejectsUseOfValueFromSiblingBlock) {
  Fixture f;
  Node* branch = f.g.create("prim.if", {f.cond}, 1);
  f.g.top()->append(branch);
  Block* thenB = branch->addBlock();
  Block* elseB = branch->addBlock();
  Node* neg = f.append("neg", {f.x}, thenB);
  thenB->addReturn(neg->output());
  elseB->addReturn(neg->output());
  EXPECT_VERIFY_FAILS(f.g, "is not defined before its use");
}

TEST(Verifier, RejectsLoopOutputUsedInsideItsBody) {
  Fixture f;
  Node* l = f.loop(2, 1);
  Node* neg = f.append("neg", {l->output()}, l->block(0));
  l->block(0)->addReturn(neg->output());
  EXPECT_VERIFY_FAILS(f.g, "is not defined before its use");
}

TEST(Verifier, RejectsWrongArity) {
  Fixture f;
  f.append("neg", {f.x, f.x});
  EXPECT_VERIFY_FAILS(f.g, "neg needs 1 inputs, has 2");
}

TEST(Verifier, RejectsWrongOutputCount) {
  Fixture f;
  f.g.top()->append(f.g.create("neg", {f.x}, 2));
  EXPECT_VERIFY_FAILS(f.g, "outputs in its schema");
}

TEST(Verifier, RejectsMismatchedLoopCarriedCounts) {
  {
    Fixture f;
    f.loop(1, 2);
    EXPECT_VERIFY_FAILS(f.g, "params for 1 carried values");
  }
  {
    Fixture f;
    f.loop(2, 1);
    EXPECT_VERIFY_FAILS(f.g, "returns 1 values for 1 carried values");
  }
}

TEST(Verifier, RejectsIfWithWrongReturnCount) {
  Fixture f;
  Node* branch = f.g.create("prim.if", {f.cond}, 1);
  f.g.top()->append(branch);
  branch->addBlock()->addReturn(f.x);
  branch->addBlock();
  EXPECT_VERIFY_FAILS(f.g, "prim.if block returns 0 values for 1 outputs");
}

TEST(Verifier, RejectsDanglingUse) {
  Fixture f;
  f.g.create("neg", {f.x});  // never inserted: its use of %x dangles
  EXPECT_VERIFY_FAILS(f.g, "dangling use");
}

TEST(Verifier, RejectsConstantWithoutValue) {
  Fixture f;
  f.g.top()->append(f.g.create("prim.constant", {}, 1));
  EXPECT_VERIFY_FAILS(f.g, "prim.constant without a value");
}

TEST(Verifier, RejectsInputOfWrongType) {
  Fixture f;
  f.append("transpose", {f.x, f.x, f.n});
  EXPECT_VERIFY_FAILS(f.g, "does not fit argument 'int dim0'");
}

TEST(Verifier, RejectsBlocksOnPlainOps) {
  Fixture f;
  f.append("neg", {f.x})->addBlock();
  EXPECT_VERIFY_FAILS(f.g, "only prim.loop and prim.if have blocks");
}

}  // namespace
}  // namespace stitch
