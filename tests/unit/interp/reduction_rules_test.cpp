// Static type rules of the reduction family: dtypes and shapes from known
// and unknown arguments, the same errors as the kernels, and agreement with
// the kernels' results on random cases (called through the registries).
#include <gtest/gtest.h>

#include "interp/kernel_registry.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/shape_util.h"
#include "reduction_test_util.h"

namespace stitch {
namespace {

using namespace rtest;

// Builds one node of an op overload on a fresh graph.
struct OneNode {
  Graph g;
  Value* tensor(std::optional<DType> dtype, std::optional<Dims> shape) {
    return g.addInput(Type::tensor(dtype, shape));
  }
  Value* constant(Constant c) { return g.constant(std::move(c)); }
  Value* unknownIntList() { return g.addInput(Type::list(Type::intT())); }
  Value* unknownBool() { return g.addInput(Type::boolT()); }
  Node* node(const std::string& op, size_t overload, const std::vector<Value*>& inputs) {
    return g.create(*OpRegistry::get().overloads(op).at(overload), inputs);
  }
};

std::string typeStr(const std::vector<TypePtr>& types, size_t i = 0) { return types.at(i)->str(); }

TEST(ReductionRules, SumShapesAndDTypes) {
  OneNode b;
  Value* x = b.tensor(DType::i32, Dims{2, 3, 4});
  Node* n = b.node(
      "sum", 1,
      {x, b.constant(std::vector<int64_t>{-1, 0}), b.constant(true), b.constant(Constant())});
  EXPECT_EQ(typeStr(inferOutputTypes(*n)), Type::tensor(DType::i64, Dims{1, 3, 1})->str());
  Node* all = b.node("sum", 0, {x, b.constant(DType::f64)});
  EXPECT_EQ(typeStr(inferOutputTypes(*all)), Type::tensor(DType::f64, Dims{})->str());
  Node* emptyList = b.node(
      "sum", 1, {x, b.constant(std::vector<int64_t>{}), b.constant(false), b.constant(Constant())});
  EXPECT_EQ(typeStr(inferOutputTypes(*emptyList)), Type::tensor(DType::i64, Dims{})->str());
}

TEST(ReductionRules, UnknownArgumentsGiveUnknownDimsNotErrors) {
  OneNode b;
  Value* x = b.tensor(DType::f32, Dims{2, 3, 4});
  Node* unknownDims =
      b.node("sum", 1, {x, b.unknownIntList(), b.constant(true), b.constant(Constant())});
  auto t = inferOutputTypes(*unknownDims).at(0);
  EXPECT_EQ(t->dtype(), DType::f32);
  EXPECT_FALSE(t->hasRank());
  Node* unknownKeep = b.node(
      "mean", 1, {x, b.constant(std::vector<int64_t>{1}), b.unknownBool(), b.constant(Constant())});
  EXPECT_FALSE(inferOutputTypes(*unknownKeep).at(0)->hasRank());
  Value* unranked = b.tensor(std::nullopt, std::nullopt);
  Node* all = b.node("sum", 0, {unranked, b.constant(Constant())});
  auto allType = inferOutputTypes(*all).at(0);
  EXPECT_EQ(allType->rank(), 0);
  EXPECT_FALSE(allType->dtype().has_value());
  Node* amax =
      b.node("amax", 0, {unranked, b.constant(std::vector<int64_t>{1}), b.constant(false)});
  EXPECT_FALSE(inferOutputTypes(*amax).at(0)->hasRank());
  Value* partly = b.tensor(DType::f64, Dims{-1, 5});
  Node* p = b.node("amin", 0, {partly, b.constant(std::vector<int64_t>{1}), b.constant(false)});
  EXPECT_EQ(typeStr(inferOutputTypes(*p)), Type::tensor(DType::f64, Dims{-1})->str());
}

TEST(ReductionRules, StaticErrorsMatchTheKernels) {
  OneNode b;
  Value* xi = b.tensor(DType::i64, Dims{2, 3});
  Value* xf = b.tensor(DType::f32, Dims{2, 3});
  auto err = [](Node* n) { return userErrorOf([&] { inferOutputTypes(*n); }); };
  EXPECT_EQ(err(b.node("mean", 0, {xi, b.constant(Constant())})),
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            "complex dtype. Got: Long");
  EXPECT_EQ(err(b.node("sum", 1,
                       {xf, b.constant(std::vector<int64_t>{1, -1}), b.constant(false),
                        b.constant(Constant())})),
            "dim 1 appears multiple times in the list of dims");
  EXPECT_EQ(err(b.node("softmax", 0, {xf, b.constant(int64_t{2}), b.constant(Constant())})),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(err(b.node("var", 0, {xi, b.constant(true)})),
            "std and var only support floating point and complex dtypes");
  Value* empty = b.tensor(DType::f32, Dims{0, 3});
  EXPECT_EQ(err(b.node("amax", 0, {empty, b.constant(std::vector<int64_t>{0}), b.constant(false)})),
            "amax(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_EQ(err(b.node("argmax", 0,
                       {b.tensor(DType::b8, Dims{3}), b.constant(Constant()), b.constant(false)})),
            "\"argmax_cpu\" not implemented for 'Bool'");
}

TEST(ReductionRules, MaxOverloadsAndOtherOps) {
  OneNode b;
  Value* x = b.tensor(DType::f32, Dims{4, 5});
  auto dimMax = inferOutputTypes(*b.node("max", 1, {x, b.constant(int64_t{-1}), b.constant(true)}));
  ASSERT_EQ(dimMax.size(), 2u);
  EXPECT_EQ(dimMax[0]->str(), Type::tensor(DType::f32, Dims{4, 1})->str());
  EXPECT_EQ(dimMax[1]->str(), Type::tensor(DType::i64, Dims{4, 1})->str());
  Value* y = b.tensor(DType::f64, Dims{3, 1, 5});
  EXPECT_EQ(typeStr(inferOutputTypes(*b.node("min", 2, {x, y}))),
            Type::tensor(DType::f64, Dims{3, 4, 5})->str());
  EXPECT_EQ(typeStr(inferOutputTypes(
                *b.node("argmin", 0, {x, b.constant(Constant()), b.constant(true)}))),
            Type::tensor(DType::i64, Dims{1, 1})->str());
  Value* xi = b.tensor(DType::i32, Dims{4, 5});
  EXPECT_EQ(typeStr(inferOutputTypes(
                *b.node("cumsum", 0, {xi, b.constant(int64_t{0}), b.constant(Constant())}))),
            Type::tensor(DType::i64, Dims{4, 5})->str());
  EXPECT_EQ(typeStr(inferOutputTypes(*b.node(
                "logsumexp", 0, {xi, b.constant(std::vector<int64_t>{1}), b.constant(false)}))),
            Type::tensor(DType::f32, Dims{4})->str());
  EXPECT_EQ(typeStr(inferOutputTypes(
                *b.node("softmax", 0, {xi, b.constant(int64_t{1}), b.constant(DType::f64)}))),
            Type::tensor(DType::f64, Dims{4, 5})->str());
  EXPECT_EQ(
      typeStr(inferOutputTypes(*b.node("all", 1, {xi, b.constant(int64_t{1}), b.constant(false)}))),
      Type::tensor(DType::b8, Dims{4})->str());
  EXPECT_EQ(typeStr(inferOutputTypes(*b.node("norm", 0, {x, b.constant(2.0)}))),
            Type::tensor(DType::f32, Dims{})->str());
}

IValue constantValue(const Value* v) { return IValue::fromConstant(*constantOf(v)); }

// For random inputs and arguments, the rule's type equals the type of what
// the kernel (found through the registry) returns.
TEST(ReductionRules, AgreeWithKernelsOnRandomCases) {
  struct OpCase {
    const char* op;
    size_t overload;
  };
  const OpCase cases[] = {{"sum", 1},        {"mean", 1},   {"amax", 0}, {"amin", 0},
                          {"logsumexp", 0},  {"var", 1},    {"std", 1},  {"prod", 1},
                          {"max", 1},        {"argmin", 0}, {"any", 1},  {"cumprod", 0},
                          {"log_softmax", 0}};
  for (int iter = 0; iter < 120; ++iter) {
    const OpCase& c = cases[randInt(0, (int64_t)std::size(cases) - 1)];
    DType t = randomFloatDType();
    Tensor x = randomTensor(randomShape(randInt(1, 4), 0.0), t);
    OneNode b;
    std::vector<Value*> inputs = {b.tensor(t, x.sizes())};
    const OpSchema& schema = *OpRegistry::get().overloads(c.op).at(c.overload);
    int64_t dim = randInt(-x.dim(), x.dim() - 1);
    for (size_t a = 1; a < schema.args.size(); ++a) {
      const ArgSpec& spec = schema.args[a];
      if (spec.name == "dim" && spec.isList)
        inputs.push_back(b.constant(randomDims(x.dim())));
      else if (spec.name == "dim")
        inputs.push_back(b.constant(dim));
      else if (spec.type == ArgType::Bool)
        inputs.push_back(b.constant(coin()));
      else
        inputs.push_back(b.constant(Constant()));  // dtype=None
    }
    Node* n = b.node(c.op, c.overload, inputs);
    std::vector<TypePtr> types = inferOutputTypes(*n);
    IValueList args = {IValue(x)};
    for (size_t a = 1; a < inputs.size(); ++a) args.push_back(constantValue(inputs[a]));
    const Kernel* k = KernelRegistry::get().find(c.op);
    ASSERT_NE(k, nullptr) << c.op;
    IValueList outs = (*k)(*n, args);
    ASSERT_EQ(outs.size(), types.size()) << c.op;
    for (size_t i = 0; i < outs.size(); ++i) {
      const Tensor& o = outs[i].toTensor();
      EXPECT_EQ(types[i]->str(), Type::tensor(o.dtype(), o.sizes())->str()) << c.op;
    }
  }
}

}  // namespace
}  // namespace stitch
