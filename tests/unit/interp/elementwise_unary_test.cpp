// Unary elementwise ops, clamp, where, masked_fill and lerp against scalar
// references computed here on fresh random operands.
#include <functional>

#include "core_test_util.h"

namespace stitch {
namespace {

using namespace itest;

struct UnaryCase {
  const char* op;
  bool floatResult;  // integer inputs give f32
  std::function<double(double)> ref;
  double lo = -2, hi = 2;
};

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

std::vector<UnaryCase> unaryCases() {
  return {
      {"exp", true, [](double x) { return std::exp(x); }},
      {"log", true, [](double x) { return std::log(x); }, 0.1, 4},
      {"sqrt", true, [](double x) { return std::sqrt(x); }, 0, 4},
      {"rsqrt", true, [](double x) { return 1 / std::sqrt(x); }, 0.1, 4},
      {"sin", true, [](double x) { return std::sin(x); }},
      {"cos", true, [](double x) { return std::cos(x); }},
      {"tan", true, [](double x) { return std::tan(x); }, -1, 1},
      {"tanh", true, [](double x) { return std::tanh(x); }},
      {"sigmoid", true, sigmoid},
      {"silu", true, [](double x) { return x * sigmoid(x); }},
      {"erf", true, [](double x) { return std::erf(x); }},
      {"reciprocal", true, [](double x) { return 1 / x; }, 0.5, 3},
      {"log1p", true, [](double x) { return std::log1p(x); }, -0.5, 3},
      {"expm1", true, [](double x) { return std::expm1(x); }},
      {"log2", true, [](double x) { return std::log2(x); }, 0.1, 8},
      {"exp2", true, [](double x) { return std::exp2(x); }},
      {"asin", true, [](double x) { return std::asin(x); }, -0.9, 0.9},
      {"acos", true, [](double x) { return std::acos(x); }, -0.9, 0.9},
      {"atan", true, [](double x) { return std::atan(x); }},
      {"sinh", true, [](double x) { return std::sinh(x); }},
      {"cosh", true, [](double x) { return std::cosh(x); }},
      {"neg", false, [](double x) { return -x; }},
      {"abs", false, [](double x) { return std::fabs(x); }},
      {"relu", false, [](double x) { return x > 0 ? x : 0; }},
      {"floor", false, [](double x) { return std::floor(x); }, -5, 5},
      {"ceil", false, [](double x) { return std::ceil(x); }, -5, 5},
      {"trunc", false, [](double x) { return std::trunc(x); }, -5, 5},
      {"sign", false, [](double x) { return double((x > 0) - (x < 0)); }},
      {"square", false, [](double x) { return x * x; }},
  };
}

TEST(ElementwiseUnary, EveryOpMatchesScalarReference) {
  const DType dtypes[] = {DType::i32, DType::i64, DType::f32, DType::f64};
  for (int round = 0; round < 4; ++round) {
    for (const UnaryCase& c : unaryCases()) {
      SCOPED_TRACE(c.op);
      DType dt = dtypes[randInt(0, 3)];
      Tensor a = randomTensor(randomShape(randInt(0, 3)), dt, c.lo, c.hi);
      if (!isFloating(dt)) fillRandom(a, std::ceil(c.lo), std::floor(c.hi));
      Tensor out = runTensorOp(c.op, {IValue(a)});
      DType want = c.floatResult && !isFloating(dt) ? DType::f32 : dt;
      ASSERT_EQ(out.dtype(), want);
      ASSERT_EQ(out.sizes(), a.sizes());
      for (int64_t i = 0; i < a.numel(); ++i) {
        double expect = c.ref(a.getDouble(i));
        if (want == DType::f32) expect = (double)(float)expect;
        ASSERT_TRUE(closeEnough(out.getDouble(i), expect, want))
            << "x=" << a.getDouble(i) << " got " << out.getDouble(i) << " want " << expect;
      }
    }
  }
}

TEST(ElementwiseUnary, RoundIsHalfToEven) {
  Tensor a = Tensor::empty({6}, DType::f32);
  for (int64_t i = 0; i < 6; ++i) a.setDouble(i, (double)randInt(-20, 20) + 0.5);
  Tensor out = runTensorOp("round", {IValue(a)});
  for (int64_t i = 0; i < 6; ++i) {
    double x = a.getDouble(i), lower = std::floor(x);
    double even = std::fmod(lower, 2.0) == 0 ? lower : lower + 1;
    EXPECT_EQ(out.getDouble(i), even) << "x=" << x;
  }
}

TEST(ElementwiseUnary, GeluExactAndTanh) {
  Tensor a = randomTensor({randInt(1, 30)}, DType::f64, -3, 3);
  Tensor exact = runTensorOp("gelu", {IValue(a), IValue(std::string("none"))});
  Tensor approx = runTensorOp("gelu", {IValue(a), IValue(std::string("tanh"))});
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.getDouble(i);
    EXPECT_NEAR(exact.getDouble(i), 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))), 1e-12);
    double inner = std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
    EXPECT_NEAR(approx.getDouble(i), 0.5 * x * (1 + std::tanh(inner)), 1e-12);
  }
  expectError<UserError>([&] { runTensorOp("gelu", {IValue(a), IValue(std::string("fast"))}); },
                         "approximate argument must be either none or tanh.");
  Tensor ints = randomTensor({2}, DType::i64);
  expectError<UserError>([&] { runTensorOp("gelu", {IValue(ints), IValue(std::string("none"))}); },
                         "\"GeluKernelImpl\" not implemented for 'Long'");
}

TEST(ElementwiseUnary, BoolAndLogicalOps) {
  Tensor b = randomTensor({randInt(1, 20)}, DType::b8);
  Tensor x = randomTensor(b.sizes(), DType::f32);
  for (int64_t i = 0; i < x.numel(); ++i)
    if (coin()) x.setDouble(i, 0);
  Tensor notB = runTensorOp("bitwise_not", {IValue(b)});
  Tensor notX = runTensorOp("logical_not", {IValue(x)});
  Tensor sq = runTensorOp("square", {IValue(b)});
  EXPECT_EQ(sq.dtype(), DType::i64);
  for (int64_t i = 0; i < b.numel(); ++i) {
    EXPECT_EQ(notB.getInt(i), 1 - b.getInt(i));
    EXPECT_EQ(notX.getInt(i), x.getDouble(i) == 0 ? 1 : 0);
    EXPECT_EQ(sq.getInt(i), b.getInt(i));
  }
  expectError<UserError>([&] { runTensorOp("neg", {IValue(b)}); },
                         "Negation, the `-` operator, on a bool tensor is not supported.");
  expectError<UserError>([&] { runTensorOp("abs", {IValue(b)}); }, "\"abs_cpu\" not implemented for 'Bool'");
}

TEST(ElementwiseUnary, IsNan) {
  Tensor x = randomTensor({randInt(2, 20)}, DType::f64);
  for (int64_t i = 0; i < x.numel(); ++i)
    if (coin()) x.setDouble(i, std::nan(""));
  Tensor out = runTensorOp("isnan", {IValue(x)});
  EXPECT_EQ(out.dtype(), DType::b8);
  for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(out.getInt(i), std::isnan(x.getDouble(i)) ? 1 : 0);
}

TEST(ElementwiseClamp, ScalarBoundsPromoteAndClip) {
  Tensor a = randomTensor(randomShape(2), DType::i64, -10, 10);
  double lo = randReal(-5, 0), hi = randReal(0, 5);
  Tensor out = runTensorOp("clamp", {IValue(a), IValue(lo), IValue(hi)});
  EXPECT_EQ(out.dtype(), DType::f32);
  for (int64_t i = 0; i < a.numel(); ++i)
    EXPECT_EQ(out.getDouble(i), (double)std::min<float>(std::max<float>((float)a.getInt(i), (float)lo), (float)hi));
  int64_t ilo = randInt(1, 5), ihi = randInt(-5, 0);  // min > max gives max everywhere
  Tensor swapped = runTensorOp("clamp", {IValue(a), IValue(ilo), IValue(ihi)});
  EXPECT_EQ(swapped.dtype(), DType::i64);
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(swapped.getInt(i), ihi);
  Tensor onlyMax = runTensorOp("clamp", {IValue(a), IValue(), IValue(int64_t(0))});
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(onlyMax.getInt(i), std::min<int64_t>(a.getInt(i), 0));
  expectError<UserError>([&] { runTensorOp("clamp", {IValue(a), IValue(), IValue()}); },
                         "At least one of 'min' or 'max' must not be None");
}

TEST(ElementwiseClamp, TensorBoundsBroadcast) {
  Shape shape = randomShape(2);
  Tensor x = randomTensor(shape, DType::f32);
  Tensor lo = randomTensor(broadcastPartner(shape), DType::f32, -1, 0);
  Tensor hi = randomTensor(broadcastPartner(shape), DType::f32, 0, 1);
  Tensor out = runTensorOp("clamp", {IValue(x), IValue(lo), IValue(hi)});
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(shape, i);
    double want = std::min(std::max(x.getDouble(i), broadcastElement(lo, idx)), broadcastElement(hi, idx));
    EXPECT_EQ(out.getDouble(i), want);
  }
}

TEST(ElementwiseWhere, SelectsAndPromotes) {
  Shape shape = randomShape(3);
  Tensor cond = randomTensor(broadcastPartner(shape), DType::b8);
  Tensor x = randomTensor(shape, DType::i64, -9, 9);
  Tensor y = randomTensor(broadcastPartner(shape), DType::f32);
  Tensor out = runTensorOp("where", {IValue(cond), IValue(x), IValue(y)});
  EXPECT_EQ(out.dtype(), DType::f32);
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(out.sizes(), i);
    double want = broadcastElement(cond, idx) != 0 ? broadcastElement(x, idx) : broadcastElement(y, idx);
    EXPECT_EQ(out.getDouble(i), want);
  }
  double s = randReal(-1, 1);
  Tensor withScalar = runTensorOp("where", {IValue(cond), IValue(x), IValue(s)});
  EXPECT_EQ(withScalar.dtype(), DType::f32);
  Tensor ints = runTensorOp("where", {IValue(cond), IValue(int64_t(2)), IValue(int64_t(3))});
  EXPECT_EQ(ints.dtype(), DType::i64);
  for (int64_t i = 0; i < ints.numel(); ++i) EXPECT_EQ(ints.getInt(i), cond.getInt(i) ? 2 : 3);
  expectError<UserError>([&] { runTensorOp("where", {IValue(x), IValue(x), IValue(x)}); },
                         "where expected condition to be a boolean tensor, but got a tensor with dtype Long");
}

TEST(ElementwiseMaskedFill, FillsWhereMaskIsTrue) {
  Shape shape = randomShape(2);
  Tensor x = randomTensor(shape, DType::i32, -9, 9);
  Tensor mask = randomTensor(broadcastPartner(shape), DType::b8);
  double v = randReal(-50, 50);
  Tensor out = runTensorOp("masked_fill", {IValue(x), IValue(mask), IValue(v)});
  EXPECT_EQ(out.dtype(), DType::i32);
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto idx = unravel(shape, i);
    EXPECT_EQ(out.getInt(i), broadcastElement(mask, idx) ? (int64_t)v : x.getInt(i));
  }
  Tensor vec = Tensor::empty({1}, DType::f32);
  expectError<UserError>([&] { runTensorOp("masked_fill", {IValue(x), IValue(mask), IValue(vec)}); },
                         "only supports a 0-dimensional value tensor");
}

TEST(ElementwiseLerp, MatchesFormula) {
  Shape shape = randomShape(2);
  Tensor a = randomTensor(shape, DType::f64), b = randomTensor(shape, DType::f64);
  double w = randReal(0, 1);
  Tensor out = runTensorOp("lerp", {IValue(a), IValue(b), IValue(w)});
  for (int64_t i = 0; i < out.numel(); ++i)
    EXPECT_NEAR(out.getDouble(i), a.getDouble(i) + w * (b.getDouble(i) - a.getDouble(i)), 1e-12);
}

}  // namespace
}  // namespace stitch
