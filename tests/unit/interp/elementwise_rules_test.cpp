// The static type rules of the elementwise, in-place and creation ops agree
// with what the kernels produce, keep unknown dims unknown, and reject what
// the kernels reject with the same message.
#include "ir/op_registry.h"
#include "core_test_util.h"

namespace stitch {
namespace {

using namespace itest;

// Output type of `op` on inputs of the given types (constants where given).
TypePtr ruleType(const std::string& op, const std::vector<TypePtr>& types,
                 const std::vector<std::optional<Constant>>& constants = {}) {
  Graph g;
  std::vector<Value*> ins;
  for (size_t i = 0; i < types.size(); ++i) {
    bool isConst = i < constants.size() && constants[i].has_value();
    ins.push_back(isConst ? g.constant(*constants[i]) : g.addInput(types[i]));
  }
  Node* n = g.create(op, ins);
  g.top()->append(n);
  return inferOutputTypes(*n).at(0);
}

TEST(ElementwiseRules, BinaryRuleAgreesWithKernel) {
  const char* ops[] = {"add", "mul", "div", "eq", "maximum", "atan2", "logical_and"};
  const DType dtypes[] = {DType::b8, DType::i32, DType::i64, DType::f32, DType::f64};
  for (int round = 0; round < 40; ++round) {
    std::string op = ops[randInt(0, 6)];
    Shape shape = randomShape(randInt(0, 3));
    Tensor a = randomTensor(shape, dtypes[randInt(0, 4)]);
    Tensor b = randomTensor(broadcastPartner(shape), dtypes[randInt(0, 4)]);
    IValueList args = {IValue(a), IValue(b)};
    std::vector<TypePtr> types = {typeOf(args[0]), typeOf(args[1])};
    if (op == "add") {
      bool bothBool = a.dtype() == DType::b8 && b.dtype() == DType::b8;
      args.push_back(bothBool ? IValue(true) : IValue(int64_t(1)));
      types.push_back(bothBool ? Type::boolT() : Type::intT());
    }
    Tensor out = runTensorOp(op, args);
    TypePtr t = ruleType(op, types);
    ASSERT_TRUE(t->dtype().has_value()) << op;
    EXPECT_EQ(*t->dtype(), out.dtype()) << op << " " << dtypeName(a.dtype()) << " " << dtypeName(b.dtype());
    EXPECT_EQ(*t->shape(), out.sizes()) << op;
  }
}

TEST(ElementwiseRules, UnknownDimsStayUnknown) {
  TypePtr a = Type::tensor(DType::f32, std::vector<int64_t>{-1, 3});
  TypePtr b = Type::tensor(DType::i64, std::vector<int64_t>{4, 1, 1});
  TypePtr t = ruleType("mul", {a, b});
  EXPECT_EQ(t->str(), "f32[4,?,3]");
  TypePtr noShape = ruleType("exp", {Type::tensor(DType::i32)});
  EXPECT_EQ(*noShape->dtype(), DType::f32);
  EXPECT_FALSE(noShape->hasRank());
  TypePtr cmp = ruleType("lt", {Type::tensor(), Type::floatT()});
  EXPECT_EQ(*cmp->dtype(), DType::b8);
}

TEST(ElementwiseRules, ErrorsMatchTheKernels) {
  TypePtr f23 = Type::tensor(DType::f32, std::vector<int64_t>{2, 3});
  TypePtr f4 = Type::tensor(DType::f32, std::vector<int64_t>{4});
  TypePtr i3 = Type::tensor(DType::i64, std::vector<int64_t>{3});
  expectError<UserError>([&] { ruleType("add", {f23, f4, Type::intT()}); },
                         "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  expectError<UserError>([&] { ruleType("add_", {i3, Type::floatT(), Type::intT()}); },
                         "result type Float can't be cast to the desired output type Long");
  TypePtr row = Type::tensor(DType::f32, std::vector<int64_t>{1, 3});
  expectError<UserError>([&] { ruleType("copy_", {row, f23}); },
                         "output with shape [1, 3] doesn't match the broadcast shape [2, 3]");
  expectError<UserError>([&] { ruleType("pow", {i3, Type::intT()}, {std::nullopt, Constant(int64_t(-2))}); },
                         "Integers to negative integer powers are not allowed.");
  expectError<UserError>([&] { ruleType("where", {i3, i3, i3}); }, "where expected condition to be a boolean tensor");
  expectError<UserError>([&] { ruleType("add", {f4, f4, Type::boolT()}); }, "Boolean alpha only supported");
}

TEST(CreationRules, ShapesAndDtypes) {
  int64_t n = randInt(1, 9);
  TypePtr z = ruleType("zeros", {Type::list(Type::intT()), Type::none()},
                       {Constant(std::vector<int64_t>{n, 3}), Constant()});
  EXPECT_EQ(z->str(), "f32[" + std::to_string(n) + ",3]");
  TypePtr full = ruleType("full", {Type::list(Type::intT()), Type::intT(), Type::none()},
                          {Constant(std::vector<int64_t>{n}), std::nullopt, Constant()});
  EXPECT_EQ(*full->dtype(), DType::i64);
  TypePtr ar = ruleType("arange", {Type::intT(), Type::intT(), Type::intT(), Type::none()},
                        {Constant(int64_t(0)), Constant(n), Constant(int64_t(2)), Constant()});
  EXPECT_EQ(ar->str(), "i64[" + std::to_string((n + 1) / 2) + "]");
  TypePtr unknownEnd = ruleType("arange", {Type::floatT(), Type::none()}, {std::nullopt, Constant()});
  EXPECT_EQ(unknownEnd->str(), "f32[?]");
  expectError<UserError>([&] { ruleType("zeros", {Type::list(Type::intT()), Type::none()},
                                        {Constant(std::vector<int64_t>{2, -1}), Constant()}); },
                         "Trying to create tensor with negative dimension -1: [2, -1]");
}

}  // namespace
}  // namespace stitch
