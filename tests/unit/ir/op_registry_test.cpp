#include <gtest/gtest.h>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace stitch {
namespace {

const OpRegistry& reg() { return OpRegistry::get(); }

CallArg arg(TypePtr t) { return CallArg{std::move(t), nullptr}; }

std::string resolveError(const std::string& op, const std::vector<CallArg>& pos,
                         const std::vector<std::pair<std::string, CallArg>>& kw = {}) {
  try {
    reg().resolve(op, pos, kw);
  } catch (const UserError& e) {
    return e.message();
  }
  return "";
}

TEST(Signature, ParsesArgumentsDefaultsAndReturns) {
  const OpSchema& sum = *reg().overloads("sum")[1];
  ASSERT_EQ(sum.args.size(), 4u);
  EXPECT_EQ(sum.args[1].str(), "int[]? dim");
  EXPECT_EQ(sum.args[2].str(), "bool keepdim=False");
  EXPECT_TRUE(sum.args[3].kwargOnly);
  EXPECT_TRUE(sum.args[3].defaultValue->isNone());
  EXPECT_EQ(sum.overloadIndex, 1u);
  const OpSchema& mx = *reg().overloads("max")[1];
  ASSERT_EQ(mx.rets.size(), 2u);
  EXPECT_EQ(mx.rets[1].name, "indices");
  EXPECT_EQ(reg().schema("immut.select").name, "immut.select");
  EXPECT_TRUE(reg().schema("gelu").args[1].defaultValue->isStr());
  EXPECT_TRUE(reg().schema("prim.loop").has(kVarRets));
  EXPECT_TRUE(reg().schema("tssa.update").rets.empty());
  EXPECT_TRUE(reg().schema("chunk").rets[0].isList);
}

TEST(Resolve, PicksOverloadByType) {
  auto t = Type::tensor(DType::f32, std::vector<int64_t>{3});
  Binding b = reg().resolve("add", {arg(t), arg(Type::floatT())}, {});
  EXPECT_EQ(b.schema, reg().overloads("add")[1]);
  ASSERT_EQ(b.slots.size(), 3u);
  EXPECT_EQ(b.slots[2].source, Binding::Slot::Default);
  EXPECT_EQ(b.slots[2].defaultValue.toInt(), 1);
  b = reg().resolve("add", {arg(t), arg(t)}, {{"alpha", arg(Type::intT())}});
  EXPECT_EQ(b.schema, reg().overloads("add")[0]);
  EXPECT_EQ(b.slots[2].source, Binding::Slot::Keyword);
}

TEST(Resolve, WrapsSingleIntForIntList) {
  Binding b = reg().resolve("sum", {arg(Type::tensor()), arg(Type::intT())}, {});
  EXPECT_EQ(b.schema->overloadIndex, 1u);
  EXPECT_TRUE(b.slots[1].wrapInList);
  b = reg().resolve("sum", {arg(Type::tensor())}, {{"dim", arg(Type::list(Type::intT()))}, {"keepdim", arg(Type::boolT())}});
  EXPECT_FALSE(b.slots[1].wrapInList);
  EXPECT_EQ(b.slots[3].source, Binding::Slot::Default);
}

TEST(Resolve, OptionalAcceptsNone) {
  Binding b = reg().resolve("slice", {arg(Type::tensor()), arg(Type::intT()), arg(Type::none()),
                                      arg(Type::intT())}, {});
  EXPECT_EQ(b.slots[2].source, Binding::Slot::Positional);
  EXPECT_NE(resolveError("select", {arg(Type::tensor()), arg(Type::none()), arg(Type::intT())}), "");
}

TEST(Resolve, ErrorMessages) {
  auto t = Type::tensor();
  EXPECT_EQ(resolveError("neg", {arg(t), arg(t)}), "neg() expected 1 argument but got 2");
  EXPECT_EQ(resolveError("transpose", {arg(t), arg(Type::intT()), arg(t)}),
            "argument 'dim1' of transpose() must be int, not Tensor");
  EXPECT_EQ(resolveError("transpose", {arg(t)}, {{"dim2", arg(Type::intT())}}),
            "transpose() got an unexpected keyword argument 'dim2'");
  EXPECT_EQ(resolveError("transpose", {arg(t), arg(Type::intT())}, {{"dim0", arg(Type::intT())}}),
            "transpose() got multiple values for argument 'dim0'");
  EXPECT_EQ(resolveError("argmax", {arg(t), arg(t)}),
            "argument 'dim' of argmax() must be int, not Tensor");
  EXPECT_EQ(resolveError("logsumexp", {arg(t), arg(t)}),
            "argument 'dim' of logsumexp() must be int[], not Tensor");
  EXPECT_EQ(resolveError("flatten", {arg(t), arg(Type::intT()), arg(Type::intT()), arg(t)}),
            "flatten() expected 1 to 3 arguments but got 4");
  std::string multi = resolveError("add", {arg(t), arg(Type::strT())});
  EXPECT_NE(multi.find("add() received an invalid combination of arguments - got (Tensor, str)"),
            std::string::npos) << multi;
  EXPECT_NE(multi.find("add(Tensor self, Scalar other, *, Scalar alpha=1) -> Tensor"),
            std::string::npos);
  EXPECT_EQ(resolveError("no_such_op", {}), "unknown operator 'no_such_op'");
}

TEST(StaticValues, ReadsConstantsAndListConstructs) {
  Graph g;
  int64_t a = 7, b = -3;
  Value* n = g.addInput(Type::intT(), "n");
  Node* list = g.create("prim.list_construct", {g.constant(Constant(a)), n, g.constant(Constant(b))});
  g.top()->append(list);
  StaticValues known;
  auto items = known.intList(list->output());
  ASSERT_TRUE(items);
  ASSERT_EQ(items->size(), 3u);
  EXPECT_EQ((*items)[0], a);
  EXPECT_FALSE((*items)[1]);
  EXPECT_EQ((*items)[2], b);
  EXPECT_EQ(list->output()->type()->str(), "List[int]");
  auto single = known.intList(g.constant(Constant(a)));
  ASSERT_TRUE(single && single->size() == 1);
  EXPECT_TRUE(known.isNone(g.constant(Constant())));
  EXPECT_EQ(known.doubleValue(g.constant(Constant(a))), (double)a);
}

TEST(InferOutputTypes, BuiltinRules) {
  Graph g;
  Value* i = g.addInput(Type::intT(), "i");
  Value* f = g.addInput(Type::floatT(), "f");
  Value* bo = g.addInput(Type::boolT(), "b");
  auto typeOf = [&](const char* op, std::vector<Value*> ins) {
    Node* n = g.create(op, ins);
    g.top()->append(n);
    return inferOutputTypes(*n).at(0)->str();
  };
  EXPECT_EQ(typeOf("scalar.add", {i, i}), "int");
  EXPECT_EQ(typeOf("scalar.add", {i, f}), "float");
  EXPECT_EQ(typeOf("scalar.mul", {bo, i}), "int");
  EXPECT_EQ(typeOf("scalar.truediv", {i, i}), "float");
  EXPECT_EQ(typeOf("scalar.lt", {i, f}), "bool");
  EXPECT_EQ(typeOf("scalar.neg", {f}), "float");
  Value* t = g.addInput(Type::tensor(DType::f32, std::vector<int64_t>{2}), "t");
  Node* tup = g.create("prim.tuple_construct", {i, t});
  g.top()->append(tup);
  EXPECT_EQ(tup->output()->type()->str(), "Tuple[int, f32[2]]");
  EXPECT_EQ(typeOf("prim.tuple_index", {tup->output(), g.constant(Constant(1))}), "f32[2]");
  Node* list = g.create("prim.list_construct", {t, t});
  g.top()->append(list);
  EXPECT_EQ(typeOf("list.get", {list->output(), i}), "f32[2]");
  EXPECT_EQ(typeOf("list.len", {list->output()}), "int");
  Node* unpack = g.create("prim.list_unpack", {list->output()}, 2);
  EXPECT_EQ(inferOutputTypes(*unpack).size(), 2u);
  EXPECT_EQ(inferOutputTypes(*unpack)[1]->str(), "f32[2]");
  Node* mixed = g.create("prim.list_construct", {i, t});
  EXPECT_THROW(inferOutputTypes(*mixed), UserError);
}

}  // namespace
}  // namespace stitch
