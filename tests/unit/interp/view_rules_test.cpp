// Static type rules of the view ops: on fully known inputs they must agree
// with the kernels (same shape and dtype, or the same UserError); with
// unknown dims or arguments they give partial types and never fail for lack
// of knowledge.
#include "interp/kernel_registry.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "view_test_util.h"

namespace stitch {
namespace {

using namespace stitch::vtest;

// A node of `op` over tensor inputs of the given types and constant args.
struct RuleCall {
  Graph g;
  Node* node = nullptr;
  RuleCall(const std::string& op, const std::vector<TypePtr>& tensors, const std::vector<Constant>& consts,
           size_t overload = 0) {
    std::vector<Value*> inputs;
    for (const TypePtr& t : tensors) inputs.push_back(g.addInput(t));
    for (const Constant& c : consts) inputs.push_back(g.constant(c));
    node = g.create(*OpRegistry::get().overloads(op).at(overload), inputs);
    g.top()->append(node);
  }
  TypePtr type() const { return inferOutputTypes(*node).at(0); }
};

TypePtr f32(std::vector<int64_t> shape) { return Type::tensor(DType::f32, shape); }

std::string typeStr(const TypePtr& t) { return t ? t->str() : "null"; }

// Runs the kernel of `op` on `self` and the constants; returns its output or
// the error message.
struct Outcome {
  std::optional<IValue> value;
  std::string error;
};

Outcome runKernel(const std::string& op, const std::vector<Tensor>& tensors, const std::vector<Constant>& consts) {
  IValueList args;
  for (const Tensor& t : tensors) args.push_back(IValue(t));
  for (const Constant& c : consts) args.push_back(IValue::fromConstant(c));
  Graph g;
  Node* n = g.create(op);
  try {
    return {(*KernelRegistry::get().find(op))(*n, args).at(0), ""};
  } catch (const UserError& e) {
    return {std::nullopt, e.message()};
  } catch (const RuntimeFailure& e) {
    // An index out of range reaches a kernel only when computed from data,
    // so the kernel reports it as a run-time failure with the same message.
    return {std::nullopt, e.message()};
  }
}

Outcome runRule(const std::string& op, const std::vector<Tensor>& tensors, const std::vector<Constant>& consts,
                size_t overload, TypePtr* out) {
  std::vector<TypePtr> types;
  for (const Tensor& t : tensors) types.push_back(Type::tensor(t.dtype(), t.sizes()));
  RuleCall call(op, types, consts, overload);
  try {
    *out = call.type();
    return {IValue(), ""};
  } catch (const UserError& e) {
    return {std::nullopt, e.message()};
  }
}

// Random arguments for a view op, sometimes out of range.
std::vector<Constant> randomArgs(const std::string& op, const Shape& s, size_t* overload) {
  int64_t rank = (int64_t)s.size();
  auto dim = [&] { return randInt(-rank - 1, rank); };
  auto idx = [&] { return randInt(-6, 6); };
  std::vector<int64_t> some;
  for (int64_t k = randInt(0, 4); k > 0; --k) some.push_back(randInt(-1, 4));
  *overload = 0;
  if (op == "view" || op == "reshape" || op == "expand" || op == "permute") {
    if (op == "permute" && randInt(0, 1)) {
      some.clear();
      for (int64_t d = rank - 1; d >= 0; --d) some.push_back(d);
    }
    if ((op == "view" || op == "reshape") && randInt(0, 1)) some = {-1};
    if (op == "expand" && randInt(0, 1)) {
      some = s;
      some.insert(some.begin(), randInt(1, 3));
    }
    return {Constant(some)};
  }
  if (op == "transpose" || op == "movedim" || op == "flatten") return {dim(), dim()};
  if (op == "unsqueeze" || op == "unbind") return {dim()};
  if (op == "squeeze") {
    *overload = randInt(0, 1);
    if (*overload == 0) return {};
    return {dim()};
  }
  if (op == "select") return {dim(), idx()};
  if (op == "slice") {
    Constant start = randInt(0, 3) ? Constant(idx()) : Constant();
    Constant end = randInt(0, 3) ? Constant(idx()) : Constant();
    return {dim(), start, end, randInt(-1, 3)};
  }
  if (op == "narrow") return {dim(), idx(), randInt(-1, 4)};
  if (op == "chunk") return {randInt(0, 4), dim()};
  if (op == "split") {
    *overload = randInt(0, 1);
    if (*overload == 0) return {randInt(-1, 4), dim()};
    return {Constant(some), dim()};
  }
  return {};
}

TEST(ViewRules, AgreeWithKernelsOnKnownShapes) {
  const char* ops[] = {"view", "reshape", "permute", "transpose", "t", "unsqueeze", "squeeze",
                       "expand", "flatten", "contiguous", "select", "slice", "narrow", "chunk",
                       "split", "unbind", "movedim"};
  int agreedErrors = 0, agreedShapes = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    std::string op = ops[randInt(0, std::size(ops) - 1)];
    Shape s = randomShape(randInt(0, 3), 4, 0);
    Tensor x = randomTensor(s, randInt(0, 1) ? DType::f32 : DType::i64);
    size_t overload = 0;
    std::vector<Constant> args = randomArgs(op, s, &overload);
    Outcome kernel = runKernel(op, {x}, args);
    TypePtr ruleType;
    Outcome rule = runRule(op, {x}, args, overload, &ruleType);
    std::string what = op + " on " + x.shapeStr();
    for (const Constant& c : args) what += " " + c.str();
    ASSERT_EQ(rule.error, kernel.error) << what;
    if (!kernel.value) {
      ++agreedErrors;
      continue;
    }
    ++agreedShapes;
    if (kernel.value->isTensor()) {
      const Tensor& out = kernel.value->toTensor();
      ASSERT_EQ(typeStr(ruleType), Type::tensor(out.dtype(), out.sizes())->str()) << what;
      continue;
    }
    // A list of pieces: the rule's element type covers every piece.
    for (const Tensor& p : kernel.value->toTensorList()) {
      TypePtr pieceType = Type::tensor(p.dtype(), p.sizes());
      TypePtr joined = joinTypes(ruleType->elem(), pieceType);
      ASSERT_TRUE(joined && *joined == *ruleType->elem()) << what << " rule " << typeStr(ruleType);
    }
  }
  // Both outcomes must have been exercised.
  EXPECT_GT(agreedErrors, 50);
  EXPECT_GT(agreedShapes, 50);
}

TEST(ViewRules, UnknownDimsGivePartialTypes) {
  int64_t n = randInt(2, 6);
  EXPECT_EQ(RuleCall("select", {f32({-1, n})}, {int64_t(0), int64_t(7)}).type()->str(),
            f32({n})->str());
  expectError<UserError>([&] { RuleCall("select", {f32({-1, n})}, {int64_t(1), n}).type(); },
                         errorMessage("index ", n, " is out of bounds for dimension 1 with size ", n));
  EXPECT_EQ(RuleCall("view", {f32({-1, n})}, {Constant(std::vector<int64_t>{-1})}).type()->str(),
            f32({-1})->str());
  EXPECT_EQ(RuleCall("view", {f32({2, n})}, {Constant(std::vector<int64_t>{n, -1})}).type()->str(),
            f32({n, 2})->str());
  expectError<UserError>(
      [&] { RuleCall("view", {f32({2, n})}, {Constant(std::vector<int64_t>{n + 1})}).type(); },
      errorMessage("shape '[", n + 1, "]' is invalid for input of size ", 2 * n));
  EXPECT_EQ(RuleCall("expand", {f32({-1, 1})}, {Constant(std::vector<int64_t>{3, -1, n})}).type()->str(),
            f32({3, -1, n})->str());
  EXPECT_EQ(RuleCall("slice", {f32({-1, n})}, {int64_t(0), int64_t(1), Constant(), int64_t(1)}).type()->str(),
            f32({-1, n})->str());
  EXPECT_EQ(RuleCall("slice", {f32({7, n})}, {int64_t(0), int64_t(-3), Constant(), int64_t(2)}).type()->str(),
            f32({2, n})->str());
  expectError<UserError>(
      [&] { RuleCall("slice", {f32({-1})}, {int64_t(0), Constant(), Constant(), int64_t(0)}).type(); },
      "slice step must be positive");
  EXPECT_EQ(RuleCall("squeeze", {f32({-1, 1})}, {}).type()->str(), Type::tensor(DType::f32)->str());
  EXPECT_EQ(RuleCall("squeeze", {f32({-1, 1})}, {int64_t(1)}, 1).type()->str(), f32({-1})->str());
  EXPECT_EQ(RuleCall("flatten", {f32({2, -1, n})}, {int64_t(0), int64_t(1)}).type()->str(),
            f32({-1, n})->str());
  TypePtr chunks = RuleCall("chunk", {f32({5, n})}, {int64_t(2), int64_t(0)}).type();
  EXPECT_EQ(chunks->str(), Type::list(f32({-1, n}))->str());
  // Nothing known about self: no failure, dtype-only or shape-free types.
  EXPECT_EQ(RuleCall("permute", {Type::tensor()}, {Constant(std::vector<int64_t>{1, 0})}).type()->rank(), 2);
  EXPECT_FALSE(RuleCall("transpose", {Type::tensor()}, {int64_t(0), int64_t(5)}).type()->hasRank());
}

TEST(ViewRules, SizeDimNumelAndFunctionalOps) {
  Shape s = randomShape(3);
  TypePtr t = f32(s);
  EXPECT_EQ(RuleCall("size", {t}, {}).type()->str(), Type::list(Type::intT())->str());
  EXPECT_EQ(RuleCall("size", {t}, {int64_t(-1)}, 1).type()->str(), Type::intT()->str());
  expectError<UserError>([&] { RuleCall("size", {t}, {int64_t(3)}, 1).type(); },
                         "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EXPECT_EQ(RuleCall("numel", {t}, {}).type()->str(), "int");
  EXPECT_EQ(RuleCall("immut.select", {t}, {int64_t(1), int64_t(0)}).type()->str(),
            f32({s[0], s[2]})->str());
  // Assign ops give the base's type and check the region.
  TypePtr src = Type::tensor(DType::i64, std::vector<int64_t>{s[0], s[2]});
  EXPECT_EQ(RuleCall("immut.select_rev", {t, src}, {int64_t(1), int64_t(0)}).type()->str(), t->str());
  expectError<UserError>(
      [&] { RuleCall("immut.select_rev", {t, src}, {int64_t(1), s[1]}).type(); },
      errorMessage("index ", s[1], " is out of bounds for dimension 1 with size ", s[1]));
  TypePtr base = f32({3, 4, 5});
  expectError<UserError>(
      [&] { RuleCall("immut.select_rev", {base, f32({4, 5})}, {int64_t(1), int64_t(0)}).type(); },
      "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 0");
  expectError<UserError>(
      [&] { RuleCall("immut.select_rev", {base, f32({2, 1, 5})}, {int64_t(1), int64_t(0)}).type(); },
      "output with shape [3, 5] doesn't match the broadcast shape [2, 3, 5]");
  EXPECT_EQ(RuleCall("immut.assign", {t, f32({s[2]})}, {}).type()->str(), t->str());
  int64_t m = randInt(2, 5);
  EXPECT_EQ(RuleCall("immut.squeeze", {f32({1, m})}, {Constant()}).type()->str(), f32({m})->str());
}

}  // namespace
}  // namespace stitch
