// Elementwise lowerings against the interpreter: arithmetic with
// broadcasting, Python scalars (constants and run-time params), promotion,
// unary math, where / clamp / masked_fill, conversions, and the integer
// divisions that must stay host ops.
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

TEST(LowerElementwise, ArithmeticWithBroadcastAndScalars) {
  Program p{"arith", R"(
def f(x: torch.Tensor, y: torch.Tensor, s: float, k: int):
    a = (x + y * 2.5 - s) / (y.abs() + 1.0)
    return torch.add(a, x, alpha=3) - k
)", {T({4, 5}), T({5}), F(0.75), I(3)}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "add"));
  EXPECT_TRUE(allLowered(c, "div"));
  ASSERT_FALSE(c.kernels.kernels.empty());
  EXPECT_EQ(c.kernels.kernels.size(), 1u);  // one chain: y*2.5 ... - k
  EXPECT_EQ(c.kernels.kernels.back().params.size(), 2u);  // s and k
}

TEST(LowerElementwise, PromotionIntFloatBoolDoubles) {
  Program p{"promote", R"(
def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, d: torch.Tensor):
    return a * b + c, (a + 1) * 3, a / 2, d + b, (a > 4) & (c < 0.5), d.to(torch.float32) + b
)", {T({3, 4}, DType::i64), T({3, 4}), T({4}, DType::f64), T({3, 4}, DType::i32)}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "mul"));
  EXPECT_TRUE(allLowered(c, "to"));
}

TEST(LowerElementwise, UnaryMath) {
  Program p{"unary", R"(
def f(x: torch.Tensor):
    a = torch.exp(x) + torch.log(x.abs() + 1.0) + torch.sqrt(x * x) + torch.rsqrt(x * x + 1.0)
    b = torch.sigmoid(x) + torch.tanh(x) + torch.relu(x) + torch.nn.functional.gelu(x) + torch.erf(x)
    c = torch.floor(x * 3.0) + torch.ceil(x) + torch.round(x * 4.0) + torch.sign(x) + torch.sin(x) + torch.cos(x)
    return a + b + c, -x, torch.isnan(torch.log(x)), torch.logical_not(x > 0)
)", {T({6, 7})}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "exp"));
  EXPECT_TRUE(allLowered(c, "gelu"));
  EXPECT_TRUE(allLowered(c, "isnan"));
}

TEST(LowerElementwise, UnaryOnIntegersAndDoubles) {
  Program p{"unary_int", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    return -x, x.abs(), torch.sign(x - 5), torch.exp(y), torch.sigmoid(x), torch.relu(x - 4), x * x
)", {T({3, 5}, DType::i64), T({3, 5}, DType::f64)}};
  checkLowering(p);
}

TEST(LowerElementwise, WhereClampMaskedFill) {
  Program p{"select_ops", R"(
def f(x: torch.Tensor, y: torch.Tensor, lo: float):
    a = torch.where(x > 0, x, y)
    b = torch.where(x > y, 1.0, y)
    c = torch.clamp(x, min=lo, max=0.5)
    d = x.clamp(min=-0.25)
    e = x.masked_fill(y > 0.3, -2.0)
    g = torch.maximum(x, y) - torch.minimum(x, y)
    return a, b, c, d, e, g
)", {T({4, 6}), T({6}), F(-0.5)}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "where"));
  EXPECT_TRUE(allLowered(c, "clamp"));
  EXPECT_TRUE(allLowered(c, "masked_fill"));
}

TEST(LowerElementwise, IntegerFloorDivisionByConstantOnly) {
  Program p{"floordiv", R"(
def f(x: torch.Tensor, y: torch.Tensor, k: int):
    a = (x - 5) // 3
    b = (x - 5) % -4
    c = x // y
    d = x % k
    e = (x.float() - 4.5) // 2.0
    return a, b, c, d, e
)", {T({10}, DType::i64), T({10}, DType::i64), I(3)}};
  // y may hold zeros: the interpreter then raises, so skip such inputs.
  std::unique_ptr<Graph> g = simplifiedGraph(p);
  KernelGraph kg = planKernels(*g);
  Checked c{std::move(g), std::move(kg)};
  EXPECT_EQ(countLowered(c, "floor_divide", true), 2);   // by 3 and the float one
  EXPECT_EQ(countLowered(c, "floor_divide", false), 1);  // x // y
  EXPECT_EQ(countLowered(c, "remainder", true), 1);      // by -4
  EXPECT_EQ(countLowered(c, "remainder", false), 1);     // by a run-time k
  Program safe{"floordiv_safe", R"(
def f(x: torch.Tensor, z: torch.Tensor):
    return (x - 5) // 3, (x - 5) % -4, (x - 7) // -1, (z - 0.5) % 0.25, torch.remainder(x - 3, 4)
)", {T({12}, DType::i64), T({12})}};
  checkLowering(safe);
}

TEST(LowerElementwise, IntegerArithmeticWrapsAndPowers) {
  Program p{"ints", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    return x * 1000000007 * 1000000007, x ** 2, y ** 3, x.float() ** 0.5, x & 5, x | y, x ^ 3
)", {T({8}, DType::i64), T({8}, DType::i32)}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "pow"));
}

TEST(LowerElementwise, NegativeIntegerPowerStaysHost) {
  Program p{"negpow", R"(
def f(x: torch.Tensor, k: int):
    return x ** k
)", {T({4}, DType::i64), I(2)}};
  std::unique_ptr<Graph> g = simplifiedGraph(p);
  KernelGraph kg = planKernels(*g);
  EXPECT_TRUE(kg.kernels.empty());
}

TEST(LowerElementwise, ZeroDimTensorsAndLogical) {
  Program p{"zerodim", R"(
def f(x: torch.Tensor, s: torch.Tensor):
    m = x.sum()
    return x * s + m, torch.logical_and(x > 0, s > 0), torch.logical_xor(x > 0.5, x < -0.5)
)", {T({5, 3}), T({})}};
  checkLowering(p);
}

TEST(LowerElementwise, LerpAndBinaryMaxMin) {
  Program p{"lerp", R"(
def f(x: torch.Tensor, y: torch.Tensor, w: float, k: torch.Tensor):
    return torch.lerp(x, y, 0.3), torch.lerp(x, y, w), torch.max(x, y), torch.min(torch.log(x), y), torch.max(k, x)
)", {T({4, 5}), T({5}), F(0.75), T({4, 1}, DType::i64)}};
  Checked c = checkLowering(p);
  EXPECT_EQ(countLowered(c, "lerp", false), 0);
  EXPECT_EQ(countLowered(c, "max", false), 0);
  EXPECT_EQ(countLowered(c, "min", false), 0);
  EXPECT_EQ(countLowered(c, "max"), 2);
}

}  // namespace
}  // namespace stitch::ugraph_test
