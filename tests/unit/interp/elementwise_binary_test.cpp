// Binary elementwise ops against scalar references computed here, on fresh
// random (often broadcast, often strided) operands of random dtypes.
#include <cmath>
#include <cstring>
#include <functional>

#include "core_test_util.h"

namespace stitch {
namespace {

using namespace itest;

const DType kAll[] = {DType::b8, DType::i32, DType::i64, DType::f32, DType::f64};

int rankOf(DType t) {  // the promotion order of these five dtypes
  switch (t) {
    case DType::b8: return 0;
    case DType::i32: return 1;
    case DType::i64: return 2;
    case DType::f32: return 3;
    case DType::f64: return 4;
  }
  return 0;
}

// The dtype two operands compute in, written independently of the library:
// tensors promote by the order above; a scalar only lifts the category.
DType expectedCompute(DType a, const IValue& b) {
  auto category = [](DType t) { return t == DType::b8 ? 0 : isFloating(t) ? 2 : 1; };
  if (b.isTensor() && b.toTensor().dim() == 0) {
    DType bt = b.toTensor().dtype();
    return category(bt) > category(a) ? bt : a;  // a 0-dim tensor only lifts the category
  }
  if (b.isTensor()) {
    DType bt = b.toTensor().dtype();
    return rankOf(a) >= rankOf(bt) ? a : bt;
  }
  if (b.isDouble() && !isFloating(a)) return DType::f32;
  if (b.isInt() && a == DType::b8) return DType::i64;
  return a;
}

// A value as the compute dtype holds it.
double castTo(DType t, double v) {
  switch (t) {
    case DType::b8: return v != 0 ? 1 : 0;
    case DType::i32: return (double)(int32_t)v;
    case DType::i64: return (double)(int64_t)v;
    case DType::f32: return (double)(float)v;
    case DType::f64: return v;
  }
  return v;
}

enum class Result { Same, Float, Bool };

struct BinaryCase {
  const char* op;
  std::vector<DType> dtypes;  // operand dtypes the op accepts
  Result result;
  std::function<double(double, double, double alpha)> ref;
  bool needsNonzeroDivisor = false;
  bool flooring = false;      // skip float elements next to a rounding boundary
  bool smallIntPowers = false;
};

double pyFloorDiv(double a, double b) { return std::floor(a / b); }
double pyRemainder(double a, double b) { return a - b * std::floor(a / b); }

std::vector<BinaryCase> cases() {
  std::vector<DType> all(std::begin(kAll), std::end(kAll));
  std::vector<DType> numeric = {DType::i32, DType::i64, DType::f32, DType::f64};
  std::vector<DType> integral = {DType::b8, DType::i32, DType::i64};
  auto b = [](double x) { return x != 0; };
  return {
      {"add", all, Result::Same, [](double a, double c, double al) { return a + al * c; }},
      {"sub", numeric, Result::Same, [](double a, double c, double al) { return a - al * c; }},
      {"rsub", numeric, Result::Same, [](double a, double c, double al) { return c - al * a; }},
      {"mul", all, Result::Same, [](double a, double c, double) { return a * c; }},
      {"div", all, Result::Float, [](double a, double c, double) { return a / c; }},
      {"atan2", all, Result::Float, [](double a, double c, double) { return std::atan2(a, c); }},
      {"floor_divide", numeric, Result::Same, [](double a, double c, double) { return pyFloorDiv(a, c); }, true, true},
      {"remainder", numeric, Result::Same, [](double a, double c, double) { return pyRemainder(a, c); }, true, true},
      {"pow", numeric, Result::Same, [](double a, double c, double) { return std::pow(a, c); }, false, false, true},
      {"maximum", all, Result::Same, [](double a, double c, double) { return std::max(a, c); }},
      {"minimum", all, Result::Same, [](double a, double c, double) { return std::min(a, c); }},
      {"eq", all, Result::Bool, [](double a, double c, double) { return double(a == c); }},
      {"ne", all, Result::Bool, [](double a, double c, double) { return double(a != c); }},
      {"lt", all, Result::Bool, [](double a, double c, double) { return double(a < c); }},
      {"le", all, Result::Bool, [](double a, double c, double) { return double(a <= c); }},
      {"gt", all, Result::Bool, [](double a, double c, double) { return double(a > c); }},
      {"ge", all, Result::Bool, [](double a, double c, double) { return double(a >= c); }},
      {"logical_and", all, Result::Bool, [b](double a, double c, double) { return double(b(a) && b(c)); }},
      {"logical_or", all, Result::Bool, [b](double a, double c, double) { return double(b(a) || b(c)); }},
      {"logical_xor", all, Result::Bool, [b](double a, double c, double) { return double(b(a) != b(c)); }},
      {"bitwise_and", integral, Result::Same, [](double a, double c, double) { return double((int64_t)a & (int64_t)c); }},
      {"bitwise_or", integral, Result::Same, [](double a, double c, double) { return double((int64_t)a | (int64_t)c); }},
      {"bitwise_xor", integral, Result::Same, [](double a, double c, double) { return double((int64_t)a ^ (int64_t)c); }},
  };
}

bool isLogical(const std::string& op) { return op.rfind("logical_", 0) == 0; }
bool hasAlpha(const std::string& op) { return op == "add" || op == "sub" || op == "rsub"; }

// A random scalar of a kind the op accepts with a tensor of dtype `a`.
IValue randomScalar(const BinaryCase& c, DType a) {
  bool bitwise = std::string(c.op).rfind("bitwise_", 0) == 0;
  int kind = (int)randInt(0, bitwise ? 1 : 2);  // 0 bool, 1 int, 2 float
  bool noBool = std::string(c.op) == "sub" || std::string(c.op) == "rsub" ||
                std::string(c.op) == "floor_divide" || std::string(c.op) == "remainder" ||
                std::string(c.op) == "pow";
  if (kind == 0 && noBool) kind = 1;
  if (c.smallIntPowers && !isFloating(a) && kind == 2) kind = 1;
  if (kind == 0) return IValue(coin());
  if (kind == 1) return IValue(c.smallIntPowers ? randInt(0, 4) : c.needsNonzeroDivisor ? randInt(1, 9) * (coin() ? 1 : -1) : randInt(-9, 9));
  return IValue(c.needsNonzeroDivisor ? randReal(0.5, 3) * (coin() ? 1 : -1) : randReal(-3, 3));
}

void runCase(const BinaryCase& c) {
  SCOPED_TRACE(c.op);
  DType da = c.dtypes[randInt(0, (int64_t)c.dtypes.size() - 1)];
  DType db = c.dtypes[randInt(0, (int64_t)c.dtypes.size() - 1)];
  Shape shape = randomShape(randInt(1, 3));
  bool powInts = c.smallIntPowers;
  Tensor a = randomTensor(shape, da, powInts ? -4 : -20, powInts ? 4 : 20);
  if (isFloating(da)) fillRandom(a, -2, 2);
  IValue other;
  if (coin()) {
    Tensor bt = randomTensor(broadcastPartner(shape), db, powInts ? 0 : -20, powInts ? 4 : 20);
    if (isFloating(db)) fillRandom(bt, powInts ? 0.1 : -2, 2);
    if (c.needsNonzeroDivisor) {
      for (int64_t i = 0; i < bt.numel(); ++i)
        if (bt.getDouble(i) == 0) bt.setInt(i, 3);
    }
    other = IValue(bt);
  } else {
    other = randomScalar(c, da);
  }
  if (isLogical(c.op) && !other.isTensor()) return;  // tensor-tensor only
  DType compute = isLogical(c.op) ? DType::b8 : expectedCompute(da, other);
  if (c.result == Result::Float && !isFloating(compute)) compute = DType::f32;
  DType outType = c.result == Result::Bool ? DType::b8 : compute;
  if (std::string(c.op) == "sub" || std::string(c.op) == "rsub")
    if (compute == DType::b8) return;
  double alpha = 1;
  IValueList args = {IValue(a), other};
  if (hasAlpha(c.op)) {
    IValue al = isFloating(compute) && coin() ? IValue(randReal(-2, 2)) : IValue(randInt(1, 3));
    if (compute == DType::b8) al = IValue(true);
    alpha = castTo(compute, al.toDouble());
    args.push_back(al);
  }
  Tensor out = runTensorOp(c.op, args);
  ASSERT_EQ(out.dtype(), outType) << dtypeName(da) << " with " << other.str();
  for (int64_t i = 0; i < out.numel(); ++i) {
    std::vector<int64_t> idx = unravel(out.sizes(), i);
    double x = castTo(isLogical(c.op) ? DType::f64 : compute, broadcastElement(a, idx));
    double y = other.isTensor() ? broadcastElement(other.toTensor(), idx) : other.toDouble();
    y = castTo(isLogical(c.op) ? DType::f64 : compute, y);
    if (c.flooring && isFloating(compute)) {
      double q = x / y;
      if (std::fabs(q - std::round(q)) < 1e-3) continue;
    }
    double want = castTo(outType, c.ref(x, y, alpha));
    ASSERT_TRUE(closeEnough(out.getDouble(i), want, outType))
        << "x=" << x << " y=" << y << " got " << out.getDouble(i) << " want " << want;
  }
}

TEST(ElementwiseBinary, EveryOpMatchesScalarReference) {
  for (int round = 0; round < 6; ++round)
    for (const BinaryCase& c : cases()) runCase(c);
}

TEST(ElementwiseBinary, PromotionFollowsPyTorch) {
  struct Case {
    DType a;
    Shape aShape;
    IValue b;
    DType want;
  };
  Tensor f64Zero = Tensor::empty({}, DType::f64), i32Vec = Tensor::empty({2}, DType::i32);
  Tensor i64Zero = Tensor::empty({}, DType::i64), f32Zero = Tensor::empty({}, DType::f32);
  std::vector<Case> table = {
      {DType::i64, {2}, IValue(2.5), DType::f32},        // int tensor + float scalar
      {DType::i32, {2}, IValue(int64_t(7)), DType::i32}, // int scalar keeps the tensor's
      {DType::b8, {2}, IValue(int64_t(1)), DType::i64},  // bool tensor + int scalar
      {DType::b8, {2}, IValue(true), DType::b8},
      {DType::b8, {2}, IValue(2.5), DType::f32},
      {DType::f32, {2}, IValue(f64Zero), DType::f32},    // 0-dim tensors lose to dim tensors
      {DType::i32, {2}, IValue(f64Zero), DType::f64},    // ...unless of a higher category
      {DType::i64, {}, IValue(i32Vec), DType::i32},
      {DType::f32, {}, IValue(i32Vec), DType::f32},
      {DType::i32, {}, IValue(2.5), DType::f32},
      {DType::b8, {}, IValue(int64_t(2)), DType::i64},
      {DType::i32, {2}, IValue(i64Zero), DType::i32},
      {DType::i64, {}, IValue(f32Zero), DType::f32},
  };
  for (const Case& c : table) {
    Tensor a = randomTensor(c.aShape, c.a);
    EXPECT_EQ(runTensorOp("add", {IValue(a), c.b, c.want == DType::b8 ? IValue(true) : IValue(int64_t(1))}).dtype(), c.want)
        << dtypeName(c.a) << " + " << c.b.str();
  }
  Tensor ints = randomTensor({3}, DType::i64);
  EXPECT_EQ(runTensorOp("div", {IValue(ints), IValue(ints)}).dtype(), DType::f32);
  EXPECT_EQ(runTensorOp("mul", {IValue(ints), IValue(true)}).dtype(), DType::i64);
  EXPECT_EQ(runTensorOp("lt", {IValue(ints), IValue(0.5)}).dtype(), DType::b8);
}

TEST(ElementwiseBinary, IntegerFloorDivisionAndRemainderFollowPython) {
  Tensor a = randomTensor({32}, DType::i64, -50, 50);
  Tensor b = randomTensor({32}, DType::i64, 1, 9);
  for (int64_t i = 0; i < b.numel(); ++i)
    if (coin()) b.setInt(i, -b.getInt(i));
  Tensor q = runTensorOp("floor_divide", {IValue(a), IValue(b)});
  Tensor r = runTensorOp("remainder", {IValue(a), IValue(b)});
  for (int64_t i = 0; i < a.numel(); ++i) {
    int64_t x = a.getInt(i), y = b.getInt(i);
    int64_t wantQ = (int64_t)std::floor((double)x / (double)y);
    EXPECT_EQ(q.getInt(i), wantQ);
    EXPECT_EQ(r.getInt(i), x - y * wantQ);
  }
  Tensor zero = Tensor::empty({1}, DType::i64);
  expectError<RuntimeFailure>([&] { runTensorOp("floor_divide", {IValue(a), IValue(zero)}); },
                              "ZeroDivisionError");
}

TEST(ElementwiseBinary, IntegerWrapsOnOverflow) {
  int64_t big = std::numeric_limits<int64_t>::max() - randInt(0, 5);
  Tensor a = Tensor::empty({1}, DType::i64);
  a.setInt(0, big);
  Tensor out = runTensorOp("add", {IValue(a), IValue(int64_t(10)), IValue(int64_t(1))});
  EXPECT_EQ(out.getInt(0), (int64_t)((uint64_t)big + 10u));
}

TEST(ElementwiseBinary, ReversedScalarOps) {
  Tensor a = randomTensor({randInt(1, 9)}, DType::f64, 0.5, 3);
  double s = randReal(-3, 3);
  Tensor d = runTensorOp("rdiv", {IValue(a), IValue(s)});
  Tensor p = runTensorOp("rpow", {IValue(a), IValue(std::fabs(s))});
  for (int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_DOUBLE_EQ(d.getDouble(i), s / a.getDouble(i));
    EXPECT_DOUBLE_EQ(p.getDouble(i), std::pow(std::fabs(s), a.getDouble(i)));
  }
  Tensor ints = randomTensor({4}, DType::i64, -3, 3);
  Tensor twoPow = runTensorOp("rpow", {IValue(ints), IValue(int64_t(2))});
  EXPECT_EQ(twoPow.dtype(), DType::i64);
  for (int64_t i = 0; i < ints.numel(); ++i) {
    int64_t e = ints.getInt(i);
    EXPECT_EQ(twoPow.getInt(i), e < 0 ? 0 : (int64_t(1) << e));
  }
}

// A floating tensor to one of six scalar powers takes PyTorch's exact form
// (torch.pow(x, 2) is x * x bit for bit, checked against PyTorch 1.13);
// other scalars and tensor exponents stay pow.
template <typename T>
void expectScalarPowers(DType t) {
  SCOPED_TRACE(dtypeName(t));
  Tensor x = randomTensor({301}, t, -40, 40);
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-30, -3.0};
  for (int64_t i = 0; i < 7; ++i) x.setDouble(i, specials[i]);
  struct Case {
    IValue exponent;
    std::function<T(T)> want;
  };
  const Case cases[] = {
      {IValue(2.0), [](T v) { return v * v; }},
      {IValue(int64_t(2)), [](T v) { return v * v; }},
      {IValue(3.0), [](T v) { return v * v * v; }},
      {IValue(0.5), [](T v) { return std::sqrt(v); }},
      {IValue(-0.5), [](T v) { return T(1) / std::sqrt(v); }},
      {IValue(-1.0), [](T v) { return T(1) / v; }},
      {IValue(-2.0), [](T v) { return T(1) / (v * v); }},
      {IValue(2.5), [](T v) { return std::pow(v, T(2.5)); }},
      // A run-time 2: a constant one lets the C++ compiler turn pow into v * v.
      {IValue(Tensor::empty({301}, t)), [](T v) {
         volatile T two = 2;
         return std::pow(v, (T)two);
       }},
  };
  for (const Case& c : cases) {
    if (c.exponent.isTensor()) c.exponent.toTensor().fill(2.0);
    SCOPED_TRACE("exponent " + (c.exponent.isTensor() ? std::string("tensor of 2") : c.exponent.str()));
    Tensor got = runTensorOp("pow", {IValue(x), c.exponent});
    ASSERT_EQ(got.dtype(), t);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const T want = c.want((T)x.getDouble(i)), have = (T)got.getDouble(i);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(have)) << "x = " << x.getDouble(i);
        continue;
      }
      EXPECT_EQ(std::memcmp(&want, &have, sizeof(T)), 0) << "x = " << x.getDouble(i) << ": " << have << " vs " << want;
    }
  }
}

TEST(ElementwiseBinary, ScalarPowersTakePyTorchsForms) {
  expectScalarPowers<float>(DType::f32);
  expectScalarPowers<double>(DType::f64);
}

TEST(ElementwiseBinary, ErrorsMatchPyTorch) {
  Tensor f23 = Tensor::empty({2, 3}, DType::f32), f4 = Tensor::empty({4}, DType::f32);
  Tensor bools = Tensor::empty({3}, DType::b8), ints = Tensor::empty({3}, DType::i64);
  expectError<UserError>([&] { runTensorOp("mul", {IValue(f23), IValue(f4)}); },
                         "The size of tensor a (3) must match the size of tensor b (4) at "
                         "non-singleton dimension 1");
  expectError<UserError>([&] { runTensorOp("sub", {IValue(bools), IValue(bools), IValue(int64_t(1))}); },
                         "with two bool tensors is not supported");
  expectError<UserError>([&] { runTensorOp("sub", {IValue(ints), IValue(true), IValue(int64_t(1))}); },
                         "with a bool tensor is not supported");
  expectError<UserError>([&] { runTensorOp("pow", {IValue(ints), IValue(int64_t(-1))}); },
                         "Integers to negative integer powers are not allowed.");
  expectError<UserError>([&] { runTensorOp("bitwise_and", {IValue(f4), IValue(f4)}); },
                         "\"bitwise_and_cpu\" not implemented for 'Float'");
  expectError<UserError>([&] { runTensorOp("add", {IValue(ints), IValue(ints), IValue(2.5)}); },
                         "argument alpha must not be a floating point number");
  expectError<UserError>([&] { runTensorOp("add", {IValue(f4), IValue(f4), IValue(true)}); },
                         "Boolean alpha only supported for Boolean results.");
}

}  // namespace
}  // namespace stitch
