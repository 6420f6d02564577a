// Every ALU op and cast on every dtype the reference interpreter defines it
// for: rendered to C, compiled, run on random values plus the hard cases
// (signed zeros, NaN, infinities, halves for rounding, integer extremes),
// and compared bit for bit with the interpreter's own kernels.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

#include "codegen/c_expr.h"
#include "codegen/c_renderer.h"
#include "codegen/kernel_cache.h"
#include "codegen_test_util.h"
#include "common/error.h"
#include "interp/elementwise_ops.h"
#include "interp/tensor.h"
#include "kernel_builder.h"

namespace stitch {
namespace {

using namespace codegentest;

constexpr DType kDtypes[] = {DType::b8, DType::i32, DType::i64, DType::f32, DType::f64};

// The interpreter op computing an AluOp and the dtypes it takes
// (interp/elementwise_unary.cpp, elementwise_binary.cpp).
struct InterpOp {
  const char* name;
  TypeSet types;
  const char* approximate = "none";
};

std::optional<InterpOp> interpOp(AluOp op) {
  switch (op) {
    case AluOp::Neg: return InterpOp{"neg", TypeSet::Numeric};
    case AluOp::LogicalNot: return InterpOp{"logical_not", TypeSet::IntegralOrBool};
    case AluOp::BitNot: return InterpOp{"bitwise_not", TypeSet::IntegralOrBool};
    case AluOp::Abs: return InterpOp{"abs", TypeSet::Numeric};
    case AluOp::Sign: return InterpOp{"sign", TypeSet::All};
    case AluOp::Floor: return InterpOp{"floor", TypeSet::Numeric};
    case AluOp::Ceil: return InterpOp{"ceil", TypeSet::Numeric};
    case AluOp::Round: return InterpOp{"round", TypeSet::Numeric};
    case AluOp::Trunc: return InterpOp{"trunc", TypeSet::Numeric};
    case AluOp::Exp: return InterpOp{"exp", TypeSet::Floating};
    case AluOp::ExpNonPos: return InterpOp{"exp", TypeSet::Floating};
    case AluOp::Exp2: return InterpOp{"exp2", TypeSet::Floating};
    case AluOp::Expm1: return InterpOp{"expm1", TypeSet::Floating};
    case AluOp::Log: return InterpOp{"log", TypeSet::Floating};
    case AluOp::Log2: return InterpOp{"log2", TypeSet::Floating};
    case AluOp::Log1p: return InterpOp{"log1p", TypeSet::Floating};
    case AluOp::Sqrt: return InterpOp{"sqrt", TypeSet::Floating};
    case AluOp::Rsqrt: return InterpOp{"rsqrt", TypeSet::Floating};
    case AluOp::Reciprocal: return InterpOp{"reciprocal", TypeSet::Floating};
    case AluOp::Sin: return InterpOp{"sin", TypeSet::Floating};
    case AluOp::Cos: return InterpOp{"cos", TypeSet::Floating};
    case AluOp::Tan: return InterpOp{"tan", TypeSet::Floating};
    case AluOp::Asin: return InterpOp{"asin", TypeSet::Floating};
    case AluOp::Acos: return InterpOp{"acos", TypeSet::Floating};
    case AluOp::Atan: return InterpOp{"atan", TypeSet::Floating};
    case AluOp::Sinh: return InterpOp{"sinh", TypeSet::Floating};
    case AluOp::Cosh: return InterpOp{"cosh", TypeSet::Floating};
    case AluOp::Tanh: return InterpOp{"tanh", TypeSet::Floating};
    case AluOp::Sigmoid: return InterpOp{"sigmoid", TypeSet::Floating};
    case AluOp::Silu: return InterpOp{"silu", TypeSet::Floating};
    case AluOp::Erf: return InterpOp{"erf", TypeSet::Floating};
    case AluOp::GeluErf: return InterpOp{"gelu", TypeSet::Floating, "none"};
    case AluOp::GeluTanh: return InterpOp{"gelu", TypeSet::Floating, "tanh"};
    case AluOp::Relu: return InterpOp{"relu", TypeSet::Numeric};
    case AluOp::IsNan: return InterpOp{"isnan", TypeSet::All};
    case AluOp::Add: return InterpOp{"add", TypeSet::All};
    case AluOp::Sub: return InterpOp{"sub", TypeSet::All};
    case AluOp::Mul: return InterpOp{"mul", TypeSet::All};
    case AluOp::Div: return InterpOp{"div", TypeSet::Floating};
    case AluOp::FloorDiv: return InterpOp{"floor_divide", TypeSet::Numeric};
    case AluOp::Remainder: return InterpOp{"remainder", TypeSet::Numeric};
    case AluOp::Pow: return InterpOp{"pow", TypeSet::Numeric};
    case AluOp::Atan2: return InterpOp{"atan2", TypeSet::Floating};
    case AluOp::Max: return InterpOp{"maximum", TypeSet::All};
    case AluOp::Min: return InterpOp{"minimum", TypeSet::All};
    case AluOp::CmpLT: return InterpOp{"lt", TypeSet::All};
    case AluOp::CmpLE: return InterpOp{"le", TypeSet::All};
    case AluOp::CmpEQ: return InterpOp{"eq", TypeSet::All};
    case AluOp::CmpNE: return InterpOp{"ne", TypeSet::All};
    case AluOp::LogicalAnd: return InterpOp{"logical_and", TypeSet::IntegralOrBool};
    case AluOp::LogicalOr: return InterpOp{"logical_or", TypeSet::IntegralOrBool};
    case AluOp::LogicalXor: return InterpOp{"logical_xor", TypeSet::IntegralOrBool};
    case AluOp::BitAnd: return InterpOp{"bitwise_and", TypeSet::IntegralOrBool};
    case AluOp::BitOr: return InterpOp{"bitwise_or", TypeSet::IntegralOrBool};
    case AluOp::BitXor: return InterpOp{"bitwise_xor", TypeSet::IntegralOrBool};
    // No single interpreter op: C division / remainder on index values,
    // where and the contractions' fused multiply-add are checked against
    // C++ below.
    case AluOp::Mod:
    case AluOp::Where:
    case AluOp::MulAdd: return std::nullopt;
  }
  return std::nullopt;
}

bool inSet(TypeSet s, DType t) {
  switch (s) {
    case TypeSet::All: return true;
    case TypeSet::Numeric: return t != DType::b8;
    case TypeSet::Floating: return isFloating(t);
    case TypeSet::IntegralOrBool: return !isFloating(t);
  }
  return false;
}

std::vector<AluOp> allAluOps() {
  std::vector<AluOp> ops;
  for (int k = 0; k <= (int)AluOp::MulAdd; ++k) ops.push_back((AluOp)k);
  return ops;
}

// Values for one operand: every hard case against every other (for binary
// ops), then random ones.
// Besides the usual hard cases: denormals, and the edges of f32 exp /
// tanh / sigmoid (overflow, underflow to denormals and zero, saturation,
// the range reduction's boundary ln2 / 2) and of f64 exp.
std::vector<double> floatSpecials() {
  return {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -3.0, 7.0, -7.0, 0.1, 100.0, -100.0,
          1e30, -1e30, 1e-30, 1e300, INFINITY, -INFINITY, NAN, 1e-40, -1e-40, 1e-45, 88.72, 88.73,
          -87.3, -103.9, -104.0, 9.0, -9.0, 20.0, 1e-8, -1e-8, 0.3466, -0.3466, 709.8, -745.2};
}
std::vector<int64_t> intSpecials(DType t) {
  int64_t lo = t == DType::i32 ? INT32_MIN : INT64_MIN, hi = t == DType::i32 ? INT32_MAX : INT64_MAX;
  return {0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 64, -64, 100, lo, hi, lo + 1, hi - 1};
}

// Fills tensor element k of `t` with a random or special value.
void fillOperands(std::vector<Tensor>& operands, DType t, int arity, int64_t n) {
  std::vector<double> fs = floatSpecials();
  std::vector<int64_t> is = intSpecials(t);
  const int64_t specials = t == DType::b8 ? 2 : isFloating(t) ? (int64_t)fs.size() : (int64_t)is.size();
  for (int a = 0; a < arity; ++a) operands.push_back(Tensor::empty({n}, t));
  for (int64_t k = 0; k < n; ++k) {
    // Row-major walk over specials^arity first, then random values.
    int64_t code = k;
    for (int a = 0; a < arity; ++a) {
      bool special = k < (int64_t)std::pow(specials, arity);
      int64_t pick = code % specials;
      code /= specials;
      const Tensor& op = operands[a];
      if (t == DType::b8) {
        op.setInt(k, special ? pick : (int64_t)(rng()() & 1));
      } else if (isFloating(t)) {
        const uint64_t scale = rng()() % 8;  // mostly small; some huge, some across exp's range
        double v = special ? fs[pick]
                           : std::uniform_real_distribution<double>(-10, 10)(rng()) *
                                 (scale == 0 ? 1e6 : scale == 1 ? 12.0 : 1.0);
        op.setDouble(k, v);
      } else {
        int64_t v = special ? is[pick] : rng()() % 8 == 0 ? (int64_t)rng()() : (int64_t)(rng()() % 2001) - 1000;
        op.setInt(k, t == DType::i32 ? (int64_t)(int32_t)v : v);
      }
    }
  }
}

// out[i] = op(a[i], b[i], ...) for i < n.
KernelUOps aluKernel(const std::string& name, AluOp op, DType operand, DType result, int64_t n) {
  KernelBuilder b(name);
  int out = b.global(0, result, true);
  const int arity = aluOpArity(op);
  std::vector<int> bufs;
  for (int a = 0; a < arity; ++a) {
    DType t = op == AluOp::Where && a == 0 ? DType::b8 : operand;
    bufs.push_back(b.global(a + 1, t, false));
  }
  int i = b.loop(b.i64(0), b.i64(n));
  std::vector<int> args;
  for (int buf : bufs) args.push_back(b.load(buf, i));
  b.store(out, i, b.alu(op, result, args));
  b.endLoop(i);
  return b.kernel();
}

// Equal values, or both NaN; zeros must agree in sign.
bool sameElement(const Tensor& x, const Tensor& y, int64_t k) {
  if (isFloating(x.dtype()) && isFloating(y.dtype())) {
    double a = x.getDouble(k), b = y.getDouble(k);
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
  }
  return x.getInt(k) == y.getInt(k);
}

// Floats between a and b, counted on the ordered bit patterns (denormals
// and the step to inf included); 0 for two NaNs and for equal values,
// a huge distance for NaN against a number or zeros of opposite sign.
int64_t ulpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (a == 0 && b == 0) return std::signbit(a) == std::signbit(b) ? 0 : INT64_MAX;
  auto ordered = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? -(int64_t)(i & 0x7fffffff) : (int64_t)i;
  };
  return std::llabs(ordered(a) - ordered(b));
}

// The f32 ops kernels compute with common/kernel_math.h (float32 only, not
// the interpreter's double-based functions) and how many ulps from the
// interpreter's result each may land (the interpreter is within 0.5 ulp
// of the correctly rounded value); 0 for every other op. Silu's 4: near
// x = -88, where sigmoid's result is denormal (fewer bits).
int64_t kernelMathUlps(AluOp op) {
  switch (op) {
    case AluOp::Exp:
    case AluOp::ExpNonPos:
    case AluOp::Exp2:
    case AluOp::Expm1: return 1;
    case AluOp::Tanh:
    case AluOp::Sigmoid:
    case AluOp::Erf:
    case AluOp::GeluErf:
    case AluOp::GeluTanh: return 2;
    case AluOp::Silu: return 4;
    default: return 0;
  }
}

// Whether a kernel's f32 result `got` of op(x) is close enough to the
// interpreter's `want`: within the op's ulps, or for the gelus within
// 2 ulps of 1 times |x| / 2, their formula's own error (1 + tanh(..) and
// 1 + erf(..) cancel where x is very negative, so the result's ulps say
// nothing there).
bool kernelMathClose(AluOp op, float x, float got, float want) {
  if (ulpDistance(got, want) <= kernelMathUlps(op)) return true;
  return (op == AluOp::GeluTanh || op == AluOp::GeluErf) && std::fabs((double)got - want) <= std::fabs(x) * 0x1p-23;
}

std::string describe(const std::vector<Tensor>& operands, int64_t k) {
  std::string s;
  for (const Tensor& t : operands)
    s += (s.empty() ? "" : ", ") + (isFloating(t.dtype()) ? std::to_string(t.getDouble(k)) : std::to_string(t.getInt(k)));
  return s;
}

struct Case {
  std::string kernel;
  AluOp op;
  DType dtype;
  std::vector<Tensor> operands;
  Tensor expected;
  Tensor out;
};

// The interpreter's result, or for Mod / Where the C++ one.
Tensor reference(AluOp op, DType t, const std::vector<Tensor>& operands) {
  if (auto iop = interpOp(op)) {
    if (aluOpArity(op) == 1) return unaryElementwise(iop->name, operands[0], t, Tensor(), iop->approximate);
    return binaryElementwise(iop->name, Operand(IValue(operands[0])), Operand(IValue(operands[1])), IValue(), t);
  }
  const int64_t n = operands[0].numel();
  Tensor out = Tensor::empty({n}, t);
  for (int64_t k = 0; k < n; ++k) {
    if (op == AluOp::MulAdd) {  // one rounding, as C's fma
      double a = operands[0].getDouble(k), b = operands[1].getDouble(k), c = operands[2].getDouble(k);
      out.setDouble(k, t == DType::f32 ? (double)std::fmaf((float)a, (float)b, (float)c) : std::fma(a, b, c));
    } else if (op == AluOp::Where) {
      bool c = operands[0].getInt(k) != 0;
      if (isFloating(t)) out.setDouble(k, operands[c ? 1 : 2].getDouble(k));
      else out.setInt(k, operands[c ? 1 : 2].getInt(k));
    } else if (isFloating(t)) {  // Mod
      out.setDouble(k, std::fmod(operands[0].getDouble(k), operands[1].getDouble(k)));
    } else {
      out.setInt(k, operands[0].getInt(k) % operands[1].getInt(k));
    }
  }
  return out;
}

TEST(AluSemantics, EveryOpOnEveryDtypeMatchesTheInterpreter) {
  FreshCacheDir cache;
  const int64_t n = 2400;  // every pair of float specials, then random values
  std::vector<Case> cases;
  std::vector<KernelUOps> kernels;
  std::vector<std::string> missing;
  for (AluOp op : allAluOps()) {
    for (DType t : kDtypes) {
      std::optional<InterpOp> iop = interpOp(op);
      bool referenceExists = iop ? inSet(iop->types, t)
                                 : op == AluOp::Where || (op == AluOp::Mod && t != DType::b8) ||
                                       (op == AluOp::MulAdd && isFloating(t));
      CPrelude scratch;
      std::vector<std::string> args(aluOpArity(op), "x");
      bool rendered = true;
      try {
        renderAluExpr(op, t, args, scratch);
      } catch (const InternalError&) {
        rendered = false;
      }
      if (referenceExists && !rendered) missing.push_back(std::string(aluOpName(op)) + "/" + dtypeName(t));
      if (!referenceExists || !rendered) continue;

      Case c;
      c.kernel = std::string("k_") + aluOpName(op) + "_" + dtypeName(t);
      c.op = op;
      c.dtype = t;
      if (op == AluOp::Where) {
        fillOperands(c.operands, DType::b8, 1, n);
        std::vector<Tensor> choices;
        fillOperands(choices, t, 2, n);
        c.operands.insert(c.operands.end(), choices.begin(), choices.end());
      } else {
        fillOperands(c.operands, t, aluOpArity(op), n);
      }
      // Integer division by zero is rejected before kernels run; C's / and %
      // are only used on non-negative index values.
      if (!isFloating(t) && (op == AluOp::FloorDiv || op == AluOp::Remainder))
        for (int64_t k = 0; k < n; ++k)
          if (c.operands[1].getInt(k) == 0) c.operands[1].setInt(k, 1);
      // EXP_NONPOS's producers give it arguments <= 0 (or NaN) only.
      if (op == AluOp::ExpNonPos)
        for (int64_t k = 0; k < n; ++k) c.operands[0].setDouble(k, -std::fabs(c.operands[0].getDouble(k)));
      if (!isFloating(t) && (op == AluOp::Div || op == AluOp::Mod))
        for (int64_t k = 0; k < n; ++k) {
          c.operands[0].setInt(k, (int64_t)(rng()() % 100000));
          c.operands[1].setInt(k, 1 + (int64_t)(rng()() % 1000));
        }
      c.expected = reference(op, t, c.operands);
      DType result = aluOpReturnsBool(op) ? DType::b8 : t;
      c.out = Tensor::empty({n}, result);
      kernels.push_back(aluKernel(c.kernel, op, t, result, n));
      cases.push_back(std::move(c));
    }
  }
  EXPECT_TRUE(missing.empty()) << "ops the interpreter defines but C cannot render: " << ::testing::PrintToString(missing);
  ASSERT_GT(cases.size(), 100u);

  auto lib = loadCompiled(renderC(kernels));
  for (Case& c : cases) {
    std::vector<void*> bufs = {c.out.rawData()};
    for (const Tensor& t : c.operands) bufs.push_back(t.rawData());
    lib->function(c.kernel)(bufs.data(), nullptr, 1);
    int failures = 0;
    const bool kernelMath = c.dtype == DType::f32 && kernelMathUlps(c.op) > 0;
    for (int64_t k = 0; k < n && failures < 5; ++k) {
      if (sameElement(c.out, c.expected, k)) continue;
      if (kernelMath && kernelMathClose(c.op, (float)c.operands[0].getDouble(k), (float)c.out.getDouble(k),
                                        (float)c.expected.getDouble(k)))
        continue;
      ++failures;
      ADD_FAILURE() << aluOpName(c.op) << " on " << dtypeName(c.dtype) << "(" << describe(c.operands, k)
                    << "): C gives "
                    << (isFloating(c.out.dtype()) ? std::to_string(c.out.getDouble(k)) : std::to_string(c.out.getInt(k)))
                    << ", interpreter "
                    << (isFloating(c.expected.dtype()) ? std::to_string(c.expected.getDouble(k))
                                                       : std::to_string(c.expected.getInt(k)));
    }
  }
}

// Every 4099th f32 bit pattern: both signs, zeros, denormals, infinities
// and NaNs, every binade.
std::vector<float> floatsAcrossTheRange() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 4099) {
    uint32_t b = (uint32_t)bits;
    float x;
    std::memcpy(&x, &b, sizeof x);
    xs.push_back(x);
  }
  return xs;
}

// pow with a constant base or exponent (the shapes compilers like to
// rewrite) still calls the same pow as the interpreter.
TEST(AluSemantics, PowWithConstantOperandsMatchesTheInterpreter) {
  FreshCacheDir cache;
  const int64_t n = 4000;
  const std::vector<double> constants = {2.0, 0.5, 3.0, -1.0, 10.0, -0.5, 1.0 / 3.0};
  for (DType t : {DType::f32, DType::f64}) {
    std::vector<KernelUOps> kernels;
    for (size_t c = 0; c < constants.size(); ++c) {
      for (bool constBase : {false, true}) {
        KernelBuilder b("pow_" + std::to_string(c) + (constBase ? "_base" : "_exp"));
        int out = b.global(0, t, true);
        int x = b.global(1, t, false);
        int i = b.loop(b.i64(0), b.i64(n));
        int k = b.constant(constants[c], t), v = b.load(x, i);
        b.store(out, i, b.alu(AluOp::Pow, t, constBase ? std::vector<int>{k, v} : std::vector<int>{v, k}));
        b.endLoop(i);
        kernels.push_back(b.kernel());
      }
    }
    auto lib = loadCompiled(renderC(kernels));
    Tensor x = Tensor::empty({n}, t);
    for (int64_t k = 0; k < n; ++k)
      x.setDouble(k, std::uniform_real_distribution<double>(-3, 3)(rng()) * (k % 3 == 0 ? 30.0 : 1.0));
    for (size_t c = 0; c < constants.size(); ++c) {
      Tensor k = Tensor::empty({n}, t);
      k.fill(constants[c]);
      for (bool constBase : {false, true}) {
        Tensor out = Tensor::empty({n}, t);
        void* bufs[] = {out.rawData(), x.rawData()};
        lib->function("pow_" + std::to_string(c) + (constBase ? "_base" : "_exp"))(bufs, nullptr, 1);
        Tensor expected = constBase ? binaryElementwise("pow", Operand(IValue(k)), Operand(IValue(x)), IValue(), t)
                                    : binaryElementwise("pow", Operand(IValue(x)), Operand(IValue(k)), IValue(), t);
        int failures = 0;
        for (int64_t e = 0; e < n && failures < 3; ++e) {
          if (sameElement(out, expected, e)) continue;
          ++failures;
          ADD_FAILURE() << dtypeName(t) << " pow with constant " << constants[c] << (constBase ? " base" : " exponent")
                        << " at " << x.getDouble(e) << ": C " << out.getDouble(e) << ", interpreter "
                        << expected.getDouble(e);
        }
      }
    }
  }
}

// Division by a constant runs without the divider where the quotient stays
// the same: times the reciprocal for a power of two (every f32 and f64
// value), kernel_math.h's corrected product for other f32 constants (the
// IEEE quotient wherever |a| >= 2^-100 and it is normal, within 2 ulps
// below); constants whose reciprocal is not normal still divide.
TEST(AluSemantics, DivisionByAConstantIsTheIeeeQuotient) {
  FreshCacheDir cache;
  std::vector<float> xs = floatsAcrossTheRange();
  for (float x = 1.0f; x < 2.0f; x = std::nextafter(x, 2.0f)) {  // one binade densely: every 61st float
    xs.push_back(x);
    for (int i = 0; i < 60 && x < 2.0f; ++i) x = std::nextafter(x, 2.0f);
  }
  for (float x : {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 1e-45f, -1e-45f, 0x1p-100f, FLT_MAX, -FLT_MAX, 255.0f, 765.0f})
    xs.push_back(x);
  xs.resize(xs.size() - xs.size() % 16 + 7);  // a scalar remainder after the vector loop
  const int64_t n = (int64_t)xs.size();
  struct Case {
    double c;
    DType t;
    const char* expect;  // what the division renders as
  };
  const std::vector<Case> cases = {
      {255.0, DType::f32, "stitch_kdivc_f32"}, {3.0, DType::f32, "stitch_kdivc_f32"},
      {-7.0, DType::f32, "stitch_kdivc_f32"},  {0.229, DType::f32, "stitch_kdivc_f32"},
      {1e-3, DType::f32, "stitch_kdivc_f32"},  {3e-37, DType::f32, "stitch_kdivc_f32"},
      {4e37, DType::f32, "stitch_kdivc_f32"},  {8.0, DType::f32, " * 0.125f"},
      {-0.5, DType::f32, " * (-2.0f)"},        {0x1p-126, DType::f32, " * 8.507059e+37f"},
      {0x1p-128, DType::f32, " / "},           {1e-39, DType::f32, " / "},
      {1e38, DType::f32, " / "},               {8.0, DType::f64, " * 0.125"},
      {3.0, DType::f64, " / "}};
  std::vector<KernelUOps> kernels;
  for (size_t c = 0; c < cases.size(); ++c) {
    KernelBuilder b("divc_" + std::to_string(c));
    int out = b.global(0, cases[c].t, true);
    int x = b.global(1, cases[c].t, false);
    int i = b.loop(b.i64(0), b.i64(n));
    b.store(out, i, b.alu(AluOp::Div, cases[c].t, {b.load(x, i), b.constant(cases[c].c, cases[c].t)}));
    b.endLoop(i);
    kernels.push_back(b.kernel());
  }
  const std::string source = renderC(kernels);
  auto lib = loadCompiled(source);
  for (size_t c = 0; c < cases.size(); ++c) {
    const Case& k = cases[c];
    const size_t begin = source.find("void divc_" + std::to_string(c) + "(");
    const std::string body = source.substr(begin, source.find("\n}\n", begin) - begin);
    EXPECT_NE(body.find(k.expect), std::string::npos) << "a / " << k.c << " (" << dtypeName(k.t) << ") renders as\n"
                                                      << body;
    const bool corrected = std::string(k.expect) == "stitch_kdivc_f32";
    Tensor x = Tensor::empty({n}, k.t);
    for (int64_t e = 0; e < n; ++e) x.setDouble(e, xs[e]);
    Tensor divisor = Tensor::empty({n}, k.t);
    divisor.fill(k.c);
    Tensor out = Tensor::empty({n}, k.t);
    void* bufs[] = {out.rawData(), x.rawData()};
    lib->function("divc_" + std::to_string(c))(bufs, nullptr, 1);
    Tensor expected = binaryElementwise("div", Operand(IValue(x)), Operand(IValue(divisor)), IValue(), k.t);
    int failures = 0;
    for (int64_t e = 0; e < n && failures < 5; ++e) {
      const double want = expected.getDouble(e), a = x.getDouble(e);
      const bool exact = !corrected || (std::fabs(a) >= 0x1p-100 && !(std::fabs(want) < FLT_MIN && want != 0));
      if (exact ? sameElement(out, expected, e) : ulpDistance((float)out.getDouble(e), (float)want) <= 2) continue;
      ++failures;
      ADD_FAILURE() << a << " / " << k.c << " (" << dtypeName(k.t) << "): kernel " << out.getDouble(e)
                    << ", interpreter " << want;
    }
  }
}

// CAST between every pair of dtypes converts as Tensor::to does, including
// NaN, infinities and out-of-range floats to integers.
TEST(AluSemantics, CastsMatchTensorTo) {
  FreshCacheDir cache;
  const int64_t n = 600;
  struct CastCase {
    std::string kernel;
    DType from, to;
    Tensor in, out;
  };
  std::vector<CastCase> cases;
  std::vector<KernelUOps> kernels;
  for (DType from : kDtypes) {
    for (DType to : kDtypes) {
      CastCase c{std::string("cast_") + dtypeName(from) + "_" + dtypeName(to), from, to, {}, {}};
      std::vector<Tensor> in;
      fillOperands(in, from, 1, n);
      c.in = in[0];
      if (isFloating(from))  // values beyond the integer ranges, and fractions near them
        for (int64_t k = 100; k < 200; ++k)
          c.in.setDouble(k, std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng()), 20 + (int)(k % 50)));
      c.out = Tensor::empty({n}, to);
      KernelBuilder b(c.kernel);
      int out = b.global(0, to, true);
      int src = b.global(1, from, false);
      int i = b.loop(b.i64(0), b.i64(n));
      b.store(out, i, b.cast(b.load(src, i), to));
      b.endLoop(i);
      kernels.push_back(b.kernel());
      cases.push_back(std::move(c));
    }
  }
  auto lib = loadCompiled(renderC(kernels));
  for (CastCase& c : cases) {
    void* bufs[] = {c.out.rawData(), c.in.rawData()};
    lib->function(c.kernel)(bufs, nullptr, 1);
    Tensor expected = c.in.to(c.to);
    int failures = 0;
    for (int64_t k = 0; k < n && failures < 5; ++k) {
      if (sameElement(c.out, expected, k)) continue;
      ++failures;
      ADD_FAILURE() << "cast " << dtypeName(c.from) << " -> " << dtypeName(c.to) << " of "
                    << describe({c.in}, k) << ": C gives " << c.out.getDouble(k) << ", Tensor::to "
                    << expected.getDouble(k);
    }
  }
}

// The f32 exp / exp2 / expm1 / tanh / sigmoid / silu / erf / gelus of the
// C prelude are common/kernel_math.h (float32 only): compiled, on values
// across their whole range (every 4099th f32 bit pattern, and dense where
// the functions bend), in a vectorized loop and in its scalar remainder,
// each stays within its ulp bound of the interpreter's double-based result.
TEST(AluSemantics, KernelMathIsWithinItsUlpBoundsAcrossTheF32Range) {
  FreshCacheDir cache;
  std::ifstream header(std::string(STITCH_SOURCE_DIR) + "/src/common/kernel_math.h");
  std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text, std::string(kKernelMathC)) << "the embedded prelude text is not the header's";

  std::vector<float> xs = floatsAcrossTheRange();
  // Dense around the ranges where the functions change most.
  for (float x = -20.0f; x < 20.0f; x += 1.0f / 1024) xs.push_back(x);
  for (float x = -104.0f; x < -86.0f; x += 1.0f / 256) xs.push_back(x), xs.push_back(-x);
  for (float x : {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 1e-40f, -1e-40f, 0.75f, -0.75f, 4.0f, -4.0f})
    xs.push_back(x);
  // Every float next to the range reductions' boundaries (x = (k + 1/2) ln2
  // for exp and expm1, half-integers for exp2), where the reduced argument
  // is largest: a polynomial one degree short was 2 ulps off for 0.3% of
  // the floats just above ln2 / 2, which the samples above missed.
  for (double boundary : {0.5 * M_LN2, -0.5 * M_LN2, 1.5 * M_LN2, -1.5 * M_LN2, 0.5, -0.5, 1.5}) {
    float x = (float)boundary;
    for (int i = 0; i < (1 << 15); ++i) x = std::nextafter(x, -INFINITY);
    for (int i = 0; i < (1 << 17); ++i, x = std::nextafter(x, INFINITY)) xs.push_back(x);
  }
  xs.resize(xs.size() - xs.size() % 16 + 7);  // a scalar remainder after the vector loop
  const int64_t n = (int64_t)xs.size();
  const AluOp ops[] = {AluOp::Exp,     AluOp::Exp2, AluOp::Expm1,    AluOp::Tanh, AluOp::Sigmoid,
                       AluOp::Silu,    AluOp::Erf,  AluOp::GeluTanh, AluOp::GeluErf};
  std::vector<KernelUOps> kernels;
  for (AluOp op : ops) kernels.push_back(aluKernel(std::string("fm_") + aluOpName(op), op, DType::f32, DType::f32, n));
  const std::string source = renderC(kernels);
  EXPECT_EQ(source.find("expf("), std::string::npos);
  EXPECT_EQ(source.find("tanhf("), std::string::npos);
  EXPECT_EQ(source.find("erff("), std::string::npos);
  auto lib = loadCompiled(source);
  Tensor in = Tensor::empty({n}, DType::f32);
  std::memcpy(in.rawData(), xs.data(), n * sizeof(float));
  for (AluOp op : ops) {
    Tensor out = Tensor::empty({n}, DType::f32);
    void* bufs[] = {out.rawData(), in.rawData()};
    lib->function(std::string("fm_") + aluOpName(op))(bufs, nullptr, 1);
    InterpOp iop = *interpOp(op);
    Tensor expected = unaryElementwise(iop.name, in, DType::f32, Tensor(), iop.approximate);
    int failures = 0;
    int64_t worst = 0;
    for (int64_t k = 0; k < n; ++k) {
      const float got = (float)out.getDouble(k), want = (float)expected.getDouble(k);
      if (kernelMathClose(op, xs[k], got, want)) {
        if (ulpDistance(got, want) <= kernelMathUlps(op)) worst = std::max(worst, ulpDistance(got, want));
        continue;
      }
      if (++failures <= 5)
        ADD_FAILURE() << aluOpName(op) << "(" << xs[k] << "): kernel " << got << ", interpreter " << want << ", "
                      << ulpDistance(got, want) << " ulps";
    }
    std::cout << aluOpName(op) << ": at most " << worst << " ulps from the interpreter\n";
  }
}

// EXP_NONPOS (softmax's exp(x - max x)) is exp by a cheaper kernel: the
// same bits as EXP's for every argument it can be given (<= 0 and NaN) and
// up to 43, on the floats across the range and every float near its
// clamp and near the denormal boundary, where its one scaled factor differs
// from exp's two.
TEST(AluSemantics, ExpOfANonPositiveArgumentHasExpsBits) {
  FreshCacheDir cache;
  std::vector<float> xs;
  for (float x : floatsAcrossTheRange())
    if (!(x > 43.0f)) xs.push_back(x);
  for (float edge : {-104.0f, -87.5f, -103.0f, 43.0f, 0.0f}) {
    float x = edge;
    for (int i = 0; i < (1 << 16); ++i) x = std::nextafter(x, -INFINITY);
    for (int i = 0; i < (1 << 17) && !(x > 43.0f); ++i, x = std::nextafter(x, INFINITY)) xs.push_back(x);
  }
  xs.resize(xs.size() - xs.size() % 16 + 5);  // a scalar remainder after the vector loop
  const int64_t n = (int64_t)xs.size();
  auto lib = loadCompiled(renderC({aluKernel("e", AluOp::Exp, DType::f32, DType::f32, n),
                                   aluKernel("en", AluOp::ExpNonPos, DType::f32, DType::f32, n)}));
  Tensor in = Tensor::empty({n}, DType::f32), exp = Tensor::empty({n}, DType::f32),
         expNonPos = Tensor::empty({n}, DType::f32);
  std::memcpy(in.rawData(), xs.data(), n * sizeof(float));
  void* bufsExp[] = {exp.rawData(), in.rawData()};
  void* bufsNonPos[] = {expNonPos.rawData(), in.rawData()};
  lib->function("e")(bufsExp, nullptr, 1);
  lib->function("en")(bufsNonPos, nullptr, 1);
  int failures = 0;
  for (int64_t k = 0; k < n && failures < 5; ++k)
    if (!sameElement(expNonPos, exp, k))
      ++failures, ADD_FAILURE() << "EXP_NONPOS(" << xs[k] << ") = " << expNonPos.getDouble(k) << ", EXP "
                                << exp.getDouble(k);
}

// A loop applying any of them vectorizes (a libm call would keep it scalar).
TEST(AluSemantics, FloatMathLoopsVectorize) {
  if (!hostCCompiler().isClang) GTEST_SKIP() << "vectorization remarks are read from clang";
  FreshCacheDir cache;
  for (AluOp op : {AluOp::Exp, AluOp::ExpNonPos, AluOp::Exp2, AluOp::Expm1, AluOp::Tanh, AluOp::Sigmoid,
                   AluOp::Silu, AluOp::Erf, AluOp::GeluErf}) {
    std::string source = renderC({aluKernel("vec", op, DType::f32, DType::f32, 4096)});
    CompilerRun run = compileWithVectorizeRemarks(cache.path(), source);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_NE(run.output.find(vectorizedRemark()), std::string::npos) << aluOpName(op) << "\n" << run.output;
  }
}

}  // namespace
}  // namespace stitch
