// Python scalar arithmetic, lists, tuples and tensor -> scalar conversions.
#include "core_test_util.h"

namespace stitch {
namespace {

using namespace itest;

IValue scalarOp(const std::string& op, const IValue& a, const IValue& b) {
  return runOp("scalar." + op, {a, b}).at(0);
}

TEST(CorePrim, IntegerArithmeticFollowsPython) {
  for (int round = 0; round < 50; ++round) {
    int64_t a = randInt(-50, 50), b = randInt(-9, 9);
    if (b == 0) b = 7;
    int64_t q = (int64_t)std::floor((double)a / (double)b);
    EXPECT_EQ(scalarOp("floordiv", IValue(a), IValue(b)).toInt(), q);
    EXPECT_EQ(scalarOp("mod", IValue(a), IValue(b)).toInt(), a - b * q);
    IValue div = scalarOp("truediv", IValue(a), IValue(b));
    EXPECT_TRUE(div.isDouble());
    EXPECT_DOUBLE_EQ(div.toDouble(), (double)a / (double)b);
    EXPECT_EQ(scalarOp("add", IValue(a), IValue(b)).toInt(), a + b);
    EXPECT_EQ(scalarOp("max", IValue(a), IValue(b)).toInt(), std::max(a, b));
  }
}

TEST(CorePrim, FloatFloorDivisionAndModulo) {
  double a = randReal(-10, 10), b = randReal(0.5, 3) * (coin() ? 1 : -1);
  double q = std::floor(a / b);
  EXPECT_DOUBLE_EQ(scalarOp("floordiv", IValue(a), IValue(b)).toDouble(), q);
  EXPECT_NEAR(scalarOp("mod", IValue(a), IValue(b)).toDouble(), a - b * q, 1e-12);
}

TEST(CorePrim, PowersAndMixedTypes) {
  int64_t base = randInt(2, 5), e = randInt(0, 6);
  IValue p = scalarOp("pow", IValue(base), IValue(e));
  EXPECT_TRUE(p.isInt());
  EXPECT_EQ(p.toInt(), (int64_t)std::llround(std::pow((double)base, (double)e)));
  IValue neg = scalarOp("pow", IValue(base), IValue(-e - 1));
  EXPECT_TRUE(neg.isDouble());
  EXPECT_DOUBLE_EQ(neg.toDouble(), std::pow((double)base, (double)(-e - 1)));
  IValue mixed = scalarOp("mul", IValue(base), IValue(0.5));
  EXPECT_TRUE(mixed.isDouble());
  IValue boolSum = scalarOp("add", IValue(true), IValue(true));
  EXPECT_TRUE(boolSum.isInt());
  EXPECT_EQ(boolSum.toInt(), 2);
}

TEST(CorePrim, DivisionByZeroFails) {
  for (const char* op : {"truediv", "floordiv", "mod"}) {
    expectError<RuntimeFailure>([&] { scalarOp(op, IValue(randInt(-5, 5)), IValue(int64_t(0))); },
                                "division by zero");
    expectError<RuntimeFailure>([&] { scalarOp(op, IValue(randReal(-5, 5)), IValue(0.0)); },
                                "division by zero");
  }
}

TEST(CorePrim, Conversions) {
  double d = randReal(-100, 100);
  EXPECT_EQ(runOp("scalar.to_int", {IValue(d)}).at(0).toInt(), (int64_t)std::trunc(d));
  EXPECT_EQ(runOp("scalar.floor", {IValue(d)}).at(0).toInt(), (int64_t)std::floor(d));
  EXPECT_EQ(runOp("scalar.ceil", {IValue(d)}).at(0).toInt(), (int64_t)std::ceil(d));
  EXPECT_TRUE(runOp("scalar.is_none", {IValue()}).at(0).toBool());
  EXPECT_DOUBLE_EQ(runOp("scalar.sqrt", {IValue(std::fabs(d))}).at(0).toDouble(), std::sqrt(std::fabs(d)));
  expectError<RuntimeFailure>([&] { runOp("scalar.sqrt", {IValue(-1.0 - std::fabs(d))}); }, "math domain error");
}

TEST(CorePrim, ListsAreFunctional) {
  IValueList elems;
  int64_t n = randInt(2, 8);
  for (int64_t i = 0; i < n; ++i) elems.emplace_back(randInt(-99, 99));
  IValue list = runOp("prim.list_construct", elems).at(0);
  EXPECT_EQ(runOp("list.len", {list}).at(0).toInt(), n);
  EXPECT_EQ(runOp("list.get", {list, IValue(int64_t(-1))}).at(0).toInt(), elems.back().toInt());
  int64_t k = randInt(0, n - 1);
  IValue updated = runOp("list.set", {list, IValue(k), IValue(int64_t(1000))}).at(0);
  EXPECT_EQ(updated.toList()[k].toInt(), 1000);
  EXPECT_EQ(list.toList()[k].toInt(), elems[k].toInt());  // the original is unchanged
  IValue appended = runOp("list.append", {list, IValue(int64_t(5))}).at(0);
  EXPECT_EQ((int64_t)appended.toList().size(), n + 1);
  IValue rev = runOp("list.slice", {list, IValue(), IValue(), IValue(int64_t(-1))}).at(0);
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(rev.toList()[i].toInt(), elems[n - 1 - i].toInt());
  IValue mid = runOp("list.slice", {list, IValue(int64_t(1)), IValue(int64_t(-1)), IValue(int64_t(1))}).at(0);
  EXPECT_EQ((int64_t)mid.toList().size(), n - 2);
  expectError<RuntimeFailure>([&] { runOp("list.get", {list, IValue(n)}); }, "list index out of range");
}

TEST(CorePrim, TuplesAndUnpack) {
  int64_t a = randInt(0, 9);
  double b = randReal(0, 1);
  IValue t = runOp("prim.tuple_construct", {IValue(a), IValue(b)}).at(0);
  EXPECT_TRUE(t.isTuple());
  EXPECT_DOUBLE_EQ(runOp("prim.tuple_index", {t, IValue(int64_t(-1))}).at(0).toDouble(), b);
  IValueList parts = runOp("prim.tuple_unpack", {t}, 2);
  EXPECT_EQ(parts.at(0).toInt(), a);
}

TEST(CorePrim, ItemConversions) {
  Tensor one = Tensor::empty({1, 1}, DType::f32);
  double v = randReal(-50, 50);
  one.setDouble(0, v);
  EXPECT_EQ(runOp("item.int", {IValue(one)}).at(0).toInt(), (int64_t)std::trunc((float)v));
  EXPECT_DOUBLE_EQ(runOp("item.float", {IValue(one)}).at(0).toDouble(), (double)(float)v);
  Tensor many = Tensor::empty({randInt(2, 5)}, DType::f32);
  expectError<UserError>([&] { runOp("item.float", {IValue(many)}); },
                              "a Tensor with " + std::to_string(many.numel()) +
                                  " elements cannot be converted to Scalar");
}

TEST(CorePrim, RaiseFailsWithItsMessage) {
  expectError<RuntimeFailure>([&] { runOp("prim.raise", {IValue(std::string("bad input"))}, 0); }, "bad input");
}

}  // namespace
}  // namespace stitch
