// common/float_math.h: the f32 exp / exp2 / expm1 / tanh / sigmoid / silu
// that the interpreter and generated kernels share, measured against
// double-precision references over more than 10^6 inputs (a sweep of the
// f32 bit patterns plus random values where the functions bend) and on
// the edge cases (NaN, infinities, signed zeros, overflow, underflow to
// denormals, denormal inputs). Also: the interpreter's f32 ops call them.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "../common/random.h"
#include "common/float_math.h"
#include "interp/elementwise_ops.h"
#include "interp/tensor.h"

namespace stitch {
namespace {

struct Fn {
  const char* name;
  float (*f32)(float);
  std::function<double(double)> reference;  // in double: far below an f32 ulp off
  const char* op;                           // the interpreter's op
};

// exp as sigmoid's f32 formula sees it: inf where the f32 result overflows.
double f32Exp(double x) {
  double e = std::exp(x);
  return e >= 0x1.ffffffp127 ? INFINITY : e;
}

std::vector<Fn> functions() {
  return {
      {"exp", stitch_exp_f32, [](double x) { return std::exp(x); }, "exp"},
      {"exp2", stitch_exp2_f32, [](double x) { return std::exp2(x); }, "exp2"},
      {"expm1", stitch_expm1_f32, [](double x) { return std::expm1(x); }, "expm1"},
      {"tanh", stitch_tanh_f32, [](double x) { return std::tanh(x); }, "tanh"},
      {"sigmoid", stitch_sigmoid_f32, [](double x) { return 1.0 / (1.0 + f32Exp(-x)); }, "sigmoid"},
      {"silu", stitch_silu_f32, [](double x) { return x / (1.0 + f32Exp(-x)); }, "silu"},
  };
}

// |f - ref| in units of the f32 ulp at ref (denormal spacing below
// FLT_MIN; infinity counts as 2^128, one ulp above FLT_MAX). NaN must meet
// NaN.
double ulpError(float f, double ref) {
  if (std::isnan(ref) || std::isnan(f)) return std::isnan(ref) && std::isnan(f) ? 0 : INFINITY;
  // Beyond 2^128 the correctly rounded f32 is inf.
  double got = std::isinf(f) ? std::copysign(0x1p128, (double)f) : (double)f;
  if (std::fabs(ref) >= 0x1p128) ref = std::copysign(0x1p128, ref);
  int e;
  std::frexp(std::fabs(ref), &e);  // |ref| in [2^(e-1), 2^e)
  double ulp = std::max(std::ldexp(1.0, e - 24), 0x1p-149);
  return std::fabs(got - ref) / ulp;
}

float fromBits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

TEST(FloatMath, AtMostOneUlpFromTheCorrectlyRoundedResult) {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 5003) xs.push_back(fromBits((uint32_t)bits));
  std::uniform_real_distribution<float> wide(-110, 110), narrow(-2, 2);
  for (int k = 0; k < 300000; ++k) xs.push_back(wide(testing::rng()));
  for (int k = 0; k < 200000; ++k) xs.push_back(narrow(testing::rng()));
  ASSERT_GE(xs.size(), 1000000u);
  for (const Fn& fn : functions()) {
    double worst = 0;
    float worstAt = 0;
    int64_t aboveHalf = 0;
    for (float x : xs) {
      double err = ulpError(fn.f32(x), fn.reference((double)x));
      aboveHalf += err > 0.5;
      if (err > worst) worst = err, worstAt = x;
    }
    EXPECT_LE(worst, 1.0) << fn.name << " is " << worst << " ulp off at " << worstAt;
    // Computed in double and rounded once: nearly always correctly rounded.
    EXPECT_LE(aboveHalf, (int64_t)xs.size() / 10000) << fn.name;
    std::cout << fn.name << ": worst " << worst << " ulp over " << xs.size() << " inputs, " << aboveHalf
              << " above 0.5 ulp\n";
  }
}

TEST(FloatMath, EdgeCases) {
  const float inf = INFINITY, denormMin = 0x1p-149f;
  EXPECT_TRUE(std::isnan(stitch_exp_f32(NAN)));
  EXPECT_EQ(stitch_exp_f32(inf), inf);
  EXPECT_EQ(stitch_exp_f32(-inf), 0.0f);
  EXPECT_EQ(stitch_exp_f32(0.0f), 1.0f);
  EXPECT_EQ(stitch_exp_f32(-0.0f), 1.0f);
  EXPECT_EQ(stitch_exp_f32(88.8f), inf);         // beyond FLT_MAX
  EXPECT_EQ(stitch_exp_f32(1e30f), inf);
  EXPECT_EQ(stitch_exp_f32(-104.0f), 0.0f);      // below half the smallest denormal
  EXPECT_EQ(stitch_exp_f32(-1e30f), 0.0f);
  EXPECT_EQ(stitch_exp_f32(denormMin), 1.0f);
  EXPECT_EQ(stitch_exp2_f32(-149.0f), denormMin);
  EXPECT_EQ(stitch_exp2_f32(127.0f), 0x1p127f);
  EXPECT_EQ(stitch_exp2_f32(128.0f), inf);
  EXPECT_EQ(stitch_exp2_f32(-10.0f), 0x1p-10f);
  float d = stitch_exp_f32(-100.0f);               // a denormal result
  EXPECT_GT(d, 0.0f);
  EXPECT_LT(d, FLT_MIN);
  EXPECT_LE(ulpError(d, std::exp(-100.0)), 0.5);
  EXPECT_EQ(stitch_expm1_f32(-inf), -1.0f);
  EXPECT_EQ(stitch_expm1_f32(inf), inf);
  EXPECT_EQ(stitch_expm1_f32(1e-30f), 1e-30f);
  EXPECT_TRUE(std::signbit(stitch_expm1_f32(-0.0f)));
  EXPECT_TRUE(std::isnan(stitch_tanh_f32(NAN)));
  EXPECT_EQ(stitch_tanh_f32(inf), 1.0f);
  EXPECT_EQ(stitch_tanh_f32(-inf), -1.0f);
  EXPECT_EQ(stitch_tanh_f32(1e30f), 1.0f);
  EXPECT_EQ(stitch_tanh_f32(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(stitch_tanh_f32(-0.0f)));
  EXPECT_EQ(stitch_tanh_f32(denormMin), denormMin);
  EXPECT_EQ(stitch_tanh_f32(-1e-30f), -1e-30f);
  EXPECT_TRUE(std::isnan(stitch_sigmoid_f32(NAN)));
  EXPECT_EQ(stitch_sigmoid_f32(inf), 1.0f);
  EXPECT_EQ(stitch_sigmoid_f32(-inf), 0.0f);
  EXPECT_EQ(stitch_sigmoid_f32(0.0f), 0.5f);
  EXPECT_EQ(stitch_sigmoid_f32(-200.0f), 0.0f);
  EXPECT_EQ(stitch_sigmoid_f32(-89.0f), 0.0f);  // exp(89) overflows f32: 1 / inf
  EXPECT_GT(stitch_sigmoid_f32(-88.0f), 0.0f);
  EXPECT_TRUE(std::signbit(stitch_silu_f32(-90.0f)));
  EXPECT_EQ(stitch_silu_f32(-90.0f), 0.0f);
  EXPECT_EQ(stitch_silu_f32(inf), inf);
  EXPECT_TRUE(std::isnan(stitch_silu_f32(-inf)));  // -inf * 0, as x * sigmoid(x)
  EXPECT_EQ(stitch_silu_f32(0.0f), 0.0f);
  for (const Fn& fn : functions()) {
    for (float x : {0x1p-149f, -0x1p-149f, 1e-40f, -1e-40f, FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 0.34657359f,
                    -0.34657359f, 88.72283f, -87.33654f, -103.27893f, 9.01f, -9.01f, 1e-4f, 20.0f})
      EXPECT_LE(ulpError(fn.f32(x), fn.reference((double)x)), 1.0) << fn.name << "(" << x << ")";
  }
}

// The interpreter's f32 ops are these functions (f64 ops stay <cmath>).
TEST(FloatMath, InterpreterF32OpsUseThem) {
  const int64_t n = 5000;
  Tensor x = Tensor::empty({n}, DType::f32);
  std::uniform_real_distribution<float> dist(-100, 100);
  for (int64_t k = 0; k < n; ++k) x.setDouble(k, dist(testing::rng()));
  for (const Fn& fn : functions()) {
    Tensor out = unaryElementwise(fn.op, x, DType::f32, Tensor(), "none");
    for (int64_t k = 0; k < n; ++k) {
      float want = fn.f32((float)x.getDouble(k)), got = (float)out.getDouble(k);
      ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0) << fn.name << "(" << x.getDouble(k) << ")";
    }
  }
}

}  // namespace
}  // namespace stitch
