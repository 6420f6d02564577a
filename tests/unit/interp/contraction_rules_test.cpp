// Static type rules of the contraction family: shapes and dtypes from known
// and unknown shapes, the kernels' errors, and agreement with the kernels on
// random matmul and einsum cases (called through the registries).
#include <gtest/gtest.h>

#include "interp/kernel_registry.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/shape_util.h"
#include "reduction_test_util.h"

namespace stitch {
namespace {

using namespace rtest;

TypePtr tensorT(std::optional<DType> t, std::optional<Dims> shape) {
  return Type::tensor(t, shape);
}

std::string ruleType(Graph& g, const std::string& op, const std::vector<Value*>& inputs) {
  Node* n = g.create(op, inputs);
  return inferOutputTypes(*n).at(0)->str();
}

std::string ruleError(Graph& g, const std::string& op, const std::vector<Value*>& inputs) {
  Node* n = g.create(op, inputs);
  return userErrorOf([&] { inferOutputTypes(*n); });
}

Value* tensorList(Graph& g, const std::vector<Value*>& items) {
  return g.create("prim.list_construct", items)->output();
}

TEST(ContractionRules, MatmulShapes) {
  Graph g;
  Value* a = g.addInput(tensorT(DType::f32, Dims{5, 1, 2, 3}));
  Value* b = g.addInput(tensorT(DType::f32, Dims{4, 3, 7}));
  EXPECT_EQ(ruleType(g, "matmul", {a, b}), tensorT(DType::f32, Dims{5, 4, 2, 7})->str());
  Value* v = g.addInput(tensorT(DType::f32, Dims{3}));
  EXPECT_EQ(ruleType(g, "matmul", {v, v}), tensorT(DType::f32, Dims{})->str());
  Value* unknown = g.addInput(Type::tensor());
  EXPECT_EQ(ruleType(g, "matmul", {a, unknown}), Type::tensor()->str());
  Value* d = g.addInput(tensorT(DType::f64, Dims{3, 4}));
  EXPECT_EQ(ruleError(g, "matmul", {v, d}), "expected scalar type Float but found Double");
  Value* m = g.addInput(tensorT(DType::f32, Dims{2, 3}));
  Value* wrong = g.addInput(tensorT(DType::f32, Dims{4, 5}));
  EXPECT_EQ(ruleError(g, "mm", {m, wrong}),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  Value* unranked = g.addInput(tensorT(DType::f32, std::nullopt));
  EXPECT_EQ(ruleType(g, "mm", {m, unranked}), tensorT(DType::f32, Dims{2, -1})->str());
  EXPECT_EQ(ruleError(g, "bmm", {m, unranked}), "batch1 must be a 3D tensor");
}

TEST(ContractionRules, LinearShapes) {
  Graph g;
  Value* x = g.addInput(tensorT(DType::f32, Dims{7, 2, 3}));
  Value* w = g.addInput(tensorT(DType::f32, Dims{5, 3}));
  Value* bias = g.addInput(tensorT(DType::f32, Dims{5}));
  EXPECT_EQ(ruleType(g, "linear", {x, w, bias}), tensorT(DType::f32, Dims{7, 2, 5})->str());
  EXPECT_EQ(ruleType(g, "linear", {x, w, g.constant(Constant())}),
            tensorT(DType::f32, Dims{7, 2, 5})->str());
  Value* w4 = g.addInput(tensorT(DType::f32, Dims{5, 4}));
  EXPECT_EQ(ruleError(g, "linear",
                      {g.addInput(tensorT(DType::f32, Dims{2, 3})), w4, g.constant(Constant())}),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  Value* biasD = g.addInput(tensorT(DType::f64, Dims{5}));
  EXPECT_EQ(ruleError(g, "linear", {x, w, biasD}), "self and mat2 must have the same dtype");
}

TEST(ContractionRules, EinsumShapesAndErrors) {
  Graph g;
  Value* a = g.addInput(tensorT(DType::f32, Dims{2, 3}));
  Value* b = g.addInput(tensorT(DType::f32, Dims{3, 4}));
  Value* list = tensorList(g, {a, b});
  EXPECT_EQ(ruleType(g, "einsum", {g.constant("ij,jk->ki"), list}),
            tensorT(DType::f32, Dims{4, 2})->str());
  EXPECT_EQ(ruleType(g, "einsum", {g.constant("ij,jk"), list}),
            tensorT(DType::f32, Dims{2, 4})->str());
  EXPECT_EQ(ruleError(g, "einsum", {g.constant("ij,jk,kl"), list}),
            "einsum(): fewer operands were provided than specified in the equation");
  EXPECT_EQ(ruleError(g, "einsum", {g.constant("ij,kj"), list}),
            "einsum(): subscript j has size 4 for operand 1 which does not broadcast with "
            "previously seen size 3");
  Value* unknownShape = g.addInput(tensorT(DType::f32, Dims{-1, 3}));
  EXPECT_EQ(ruleType(g, "einsum", {g.constant("...j,jk->...k"), tensorList(g, {unknownShape, b})}),
            tensorT(DType::f32, Dims{-1, 4})->str());
  Value* unknownList = g.addInput(Type::list(Type::tensor()));
  EXPECT_EQ(ruleType(g, "einsum", {g.constant("ij"), unknownList}), Type::tensor()->str());
}

TEST(ContractionRules, AgreeWithKernelsOnRandomCases) {
  for (int iter = 0; iter < 60; ++iter) {
    Graph g;
    DType t = randomDType(false);
    bool isEinsum = coin();
    int64_t m = randInt(1, 4), k = randInt(1, 4), n = randInt(1, 4), batch = randInt(1, 3);
    Shape sa = coin() ? Shape{batch, m, k} : Shape{m, k};
    Shape sb = coin() ? Shape{k} : Shape{k, n};
    Tensor a = randomTensor(sa, t, -3, 3), b = randomTensor(sb, t, -3, 3);
    Value* va = g.addInput(tensorT(t, sa));
    Value* vb = g.addInput(tensorT(t, sb));
    Node* node;
    IValueList args;
    if (isEinsum) {
      std::string eq = sa.size() == 3 ? "bij," : "ij,";
      eq += sb.size() == 1 ? "j" : "jk";
      if (coin()) eq += sb.size() == 1 ? "->i" : "->ki";
      node = g.create("einsum", {g.constant(eq), tensorList(g, {va, vb})});
      args = {IValue(eq), IValue::list({IValue(a), IValue(b)})};
    } else {
      node = g.create("matmul", {va, vb});
      args = {IValue(a), IValue(b)};
    }
    std::string ruleT, ruleErr = userErrorOf([&] { ruleT = inferOutputTypes(*node).at(0)->str(); });
    const Kernel* kernel = KernelRegistry::get().find(node->kind());
    ASSERT_NE(kernel, nullptr);
    Tensor out;
    std::string kernelErr = userErrorOf([&] { out = (*kernel)(*node, args).at(0).toTensor(); });
    // Both fail the same way (some i32 einsums do, as in PyTorch) or agree.
    EXPECT_EQ(ruleErr, kernelErr) << node->kind();
    if (!kernelErr.empty()) continue;
    EXPECT_EQ(ruleT, tensorT(out.dtype(), out.sizes())->str()) << node->kind();
  }
}

}  // namespace
}  // namespace stitch
