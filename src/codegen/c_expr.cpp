#include "codegen/c_expr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "codegen/text_cat.h"
#include "common/error.h"
#include "ugraph/numerics.h"

namespace stitch {

namespace {

std::string unsignedOf(DType t) { return t == DType::i32 ? "uint32_t" : "uint64_t"; }

// Integer +, -, * wrap (two's complement), as the interpreter's wrapAdd etc.;
// going through the unsigned type keeps C from treating overflow as undefined.
std::string wrapping(DType t, const std::string& a, const char* op, const std::string& b) {
  std::string u = cat("(", unsignedOf(t), ")");
  return cat("(", cTypeName(t), ")(", u, a, " ", op, " ", u, b, ")");
}

std::string call(const std::string& fn, const std::vector<std::string>& args) {
  std::string out = fn + "(";
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
  return out + ")";
}

// <math.h> function for the float type: "exp" -> "expf" for f32.
std::string mathFn(const char* base, DType t) { return std::string(base) + (t == DType::f32 ? "f" : ""); }

std::string one(DType t) { return std::string("(") + cTypeName(t) + ")1"; }

[[noreturn]] void unsupported(AluOp op, DType t) {
  throw InternalError(errorMessage("no C rendering of ", aluOpName(op), " on ", dtypeName(t)));
}

// The <math.h> function computing a float-only unary op, or null.
const char* libmUnary(AluOp op) {
  switch (op) {
    case AluOp::Exp: case AluOp::ExpNonPos: return "exp";
    case AluOp::Exp2: return "exp2";
    case AluOp::Expm1: return "expm1";
    case AluOp::Log: return "log";
    case AluOp::Log2: return "log2";
    case AluOp::Log1p: return "log1p";
    case AluOp::Sqrt: return "sqrt";
    case AluOp::Sin: return "sin";
    case AluOp::Cos: return "cos";
    case AluOp::Tan: return "tan";
    case AluOp::Asin: return "asin";
    case AluOp::Acos: return "acos";
    case AluOp::Atan: return "atan";
    case AluOp::Sinh: return "sinh";
    case AluOp::Cosh: return "cosh";
    case AluOp::Tanh: return "tanh";
    case AluOp::Erf: return "erf";
    default: return nullptr;
  }
}

// The prelude helper computing a float-only unary op, if one does.
std::optional<PreludeFn> preludeUnary(AluOp op) {
  switch (op) {
    case AluOp::Sigmoid: return PreludeFn::Sigmoid;
    case AluOp::Silu: return PreludeFn::Silu;
    case AluOp::GeluErf: return PreludeFn::GeluErf;
    case AluOp::GeluTanh: return PreludeFn::GeluTanh;
    default: return std::nullopt;
  }
}

// The f32 ops that common/float_math.h computes (vectorizable, and the
// interpreter's own bits).
std::optional<PreludeFn> floatMathUnary(AluOp op) {
  switch (op) {
    case AluOp::Exp: return PreludeFn::Exp;
    case AluOp::ExpNonPos: return PreludeFn::ExpNonPos;
    case AluOp::Exp2: return PreludeFn::Exp2;
    case AluOp::Expm1: return PreludeFn::Expm1;
    case AluOp::Tanh: return PreludeFn::Tanh;
    case AluOp::Erf: return PreludeFn::Erf;
    default: return std::nullopt;
  }
}

// Transcendental and other float-only unary ops; empty when `op` is not one.
std::string floatUnary(AluOp op, DType t, const std::string& x, CPrelude& prelude) {
  if (auto fn = floatMathUnary(op); fn && t == DType::f32) return prelude.use(*fn, t) + "(" + x + ")";
  if (const char* fn = libmUnary(op)) return mathFn(fn, t) + "(" + x + ")";
  if (auto helper = preludeUnary(op)) return prelude.use(*helper, t) + "(" + x + ")";
  if (op == AluOp::Rsqrt) return one(t) + " / " + mathFn("sqrt", t) + "(" + x + ")";
  if (op == AluOp::Reciprocal) return one(t) + " / " + x;
  return "";  // not a float-only op: the caller handles it
}

std::string unaryExpr(AluOp op, DType t, const std::string& x, CPrelude& prelude) {
  const bool isFloat = isFloating(t), isBool = t == DType::b8;
  const std::string T = cTypeName(t);
  if (isFloat) {
    if (std::string e = floatUnary(op, t, x, prelude); !e.empty()) return e;
  }
  switch (op) {
    case AluOp::Neg:
      if (isFloat) return "-" + x;
      return isBool ? x : wrapping(t, "0", "-", x);
    case AluOp::LogicalNot: return "!" + x;
    case AluOp::BitNot:
      if (isFloat) break;
      return isBool ? "!" + x : "~" + x;
    case AluOp::Abs:
      if (isFloat) return mathFn("fabs", t) + "(" + x + ")";
      return isBool ? x : x + " < 0 ? " + wrapping(t, "0", "-", x) + " : " + x;
    case AluOp::Sign:  // NaN gives 0, as the interpreter's signOf
      return isBool ? x : "(" + T + ")((0 < " + x + ") - (" + x + " < 0))";
    case AluOp::Floor: return isFloat ? mathFn("floor", t) + "(" + x + ")" : x;
    case AluOp::Ceil: return isFloat ? mathFn("ceil", t) + "(" + x + ")" : x;
    case AluOp::Round: return isFloat ? mathFn("nearbyint", t) + "(" + x + ")" : x;  // half to even
    case AluOp::Trunc: return isFloat ? mathFn("trunc", t) + "(" + x + ")" : x;
    case AluOp::Relu:  // NaN stays NaN
      return isBool ? x : x + " < 0 ? (" + T + ")0 : " + x;
    case AluOp::IsNan: return isFloat ? x + " != " + x : "0";
    default: break;
  }
  unsupported(op, t);
}

std::string binaryExpr(AluOp op, DType t, const std::string& a, const std::string& b,
                       CPrelude& prelude) {
  const bool isFloat = isFloating(t), isBool = t == DType::b8, isInt = isIntegral(t);
  switch (op) {
    // bool: + is or, - is xor (true - false wraps to true), * is and.
    case AluOp::Add: return isFloat ? a + " + " + b : isBool ? a + " | " + b : wrapping(t, a, "+", b);
    case AluOp::Sub: return isFloat ? a + " - " + b : isBool ? a + " ^ " + b : wrapping(t, a, "-", b);
    case AluOp::Mul: return isFloat ? a + " * " + b : isBool ? a + " & " + b : wrapping(t, a, "*", b);
    case AluOp::Div:
      if (isBool) break;
      return a + " / " + b;
    case AluOp::Mod:
      if (isInt) return a + " % " + b;
      if (isFloat) return mathFn("fmod", t) + "(" + a + ", " + b + ")";
      break;
    case AluOp::FloorDiv:
      if (isBool) break;
      return call(prelude.use(PreludeFn::FloorDiv, t), {a, b});
    case AluOp::Remainder:
      if (isBool) break;
      return call(prelude.use(PreludeFn::Remainder, t), {a, b});
    case AluOp::Pow:
      if (isFloat) return call(mathFn("pow", t), {a, b});
      return call(prelude.use(PreludeFn::Pow, t), {a, b});
    case AluOp::Atan2:
      if (!isFloat) break;
      return call(mathFn("atan2", t), {a, b});
    case AluOp::Max:
      if (isFloat) return call(prelude.use(PreludeFn::Max, t), {a, b});
      return a + " > " + b + " ? " + a + " : " + b;
    case AluOp::Min:
      if (isFloat) return call(prelude.use(PreludeFn::Min, t), {a, b});
      return a + " < " + b + " ? " + a + " : " + b;
    case AluOp::CmpLT: return a + " < " + b;
    case AluOp::CmpLE: return a + " <= " + b;
    case AluOp::CmpEQ: return a + " == " + b;
    case AluOp::CmpNE: return a + " != " + b;
    case AluOp::LogicalAnd: return isBool ? a + " & " + b : "(" + a + " != 0) & (" + b + " != 0)";
    case AluOp::LogicalOr: return isBool ? a + " | " + b : "(" + a + " != 0) | (" + b + " != 0)";
    case AluOp::LogicalXor: return isBool ? a + " ^ " + b : "(" + a + " != 0) ^ (" + b + " != 0)";
    case AluOp::BitAnd:
      if (isFloat) break;
      return a + " & " + b;
    case AluOp::BitOr:
      if (isFloat) break;
      return a + " | " + b;
    case AluOp::BitXor:
      if (isFloat) break;
      return a + " ^ " + b;
    default: break;
  }
  unsupported(op, t);
}

std::string shortestFloat(double v, bool f32) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (f32 ? std::strtof(buf, nullptr) == (float)v : std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + (f32 ? "f" : "");
}

std::string parenthesizeNegative(const std::string& s) { return s[0] == '-' ? "(" + s + ")" : s; }

}  // namespace

std::string renderAluExpr(AluOp op, DType operand, const std::vector<std::string>& args,
                          CPrelude& prelude) {
  STITCH_ASSERT((int)args.size() == aluOpArity(op), aluOpName(op), " takes ", aluOpArity(op),
                " operands, not ", args.size());
  if (op == AluOp::Where) return args[0] + " ? " + args[1] + " : " + args[2];
  if (op == AluOp::MulAdd) {
    if (!isFloating(operand)) unsupported(op, operand);
    return call(operand == DType::f32 ? "fmaf" : "fma", args);
  }
  if (args.size() == 1) return unaryExpr(op, operand, args[0], prelude);
  return binaryExpr(op, operand, args[0], args[1], prelude);
}

std::optional<std::string> renderDivByConstant(DType t, const std::string& a, double c, CPrelude& prelude) {
  const bool f32 = t == DType::f32;
  if (f32) c = (float)c;
  switch (constantDivision(t, c)) {
    case ConstantDivision::Divide: return std::nullopt;
    case ConstantDivision::Reciprocal: return a + " * " + parenthesizeNegative(shortestFloat(1.0 / c, f32));
    case ConstantDivision::Corrected:
      return call(prelude.use(PreludeFn::DivByConstant, t),
                  {a, parenthesizeNegative(shortestFloat(c, true)), parenthesizeNegative(shortestFloat(1.0f / (float)c, true))});
  }
  return std::nullopt;
}

std::string renderCastExpr(DType from, DType to, const std::string& arg, CPrelude& prelude) {
  if (from == to) return arg;
  if (to == DType::b8) return arg + " != 0";  // NaN converts to true, as static_cast<bool>
  if (isFloating(from) && isIntegral(to)) return prelude.useFloatToInt(from, to) + "(" + arg + ")";
  return std::string("(") + cTypeName(to) + ")" + arg;
}

std::string renderConstC(const UOp& c) {
  STITCH_ASSERT(c.kind == UOpKind::Const, "not a CONST uop");
  switch (c.dtype) {
    case DType::b8: return c.ival ? "1" : "0";
    case DType::i32:
      if (c.ival == INT32_MIN) return "(-2147483647 - 1)";
      return parenthesizeNegative(std::to_string(c.ival));
    case DType::i64:
      if (c.ival == INT64_MIN) return "INT64_MIN";
      if (c.ival >= INT32_MIN && c.ival <= INT32_MAX) return parenthesizeNegative(std::to_string(c.ival));
      return "INT64_C(" + std::to_string(c.ival) + ")";
    case DType::f32:
    case DType::f64: {
      const bool f32 = c.dtype == DType::f32;
      if (std::isnan(c.fval)) return f32 ? "NAN" : "(double)NAN";
      if (std::isinf(c.fval)) {
        std::string inf = f32 ? "INFINITY" : "(double)INFINITY";
        return c.fval < 0 ? "(-" + inf + ")" : inf;
      }
      return parenthesizeNegative(shortestFloat(f32 ? (double)(float)c.fval : c.fval, f32));
    }
  }
  return "?";
}

}  // namespace stitch
