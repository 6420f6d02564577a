#include "uops/uop_fold.h"

#include <cmath>
#include <limits>

#include "interp/scalar_math.h"

namespace stitch {

UOp makeConstInt(int64_t v, DType dtype) {
  UOp c;
  c.kind = UOpKind::Const;
  c.dtype = dtype;
  if (dtype == DType::b8) c.ival = v != 0;
  else if (dtype == DType::i32) c.ival = (int32_t)v;  // modular since C++20
  else c.ival = v;
  if (isFloating(dtype)) c.fval = (double)v;
  return c;
}

UOp makeConstFloat(double f, DType dtype) {
  UOp c;
  c.kind = UOpKind::Const;
  c.dtype = dtype;
  c.fval = dtype == DType::f32 ? (double)(float)f : f;
  return c;
}

namespace {

template <typename T>
std::optional<bool> foldCompare(AluOp op, T a, T b) {
  switch (op) {
    case AluOp::CmpLT: return a < b;
    case AluOp::CmpLE: return a <= b;
    case AluOp::CmpEQ: return a == b;
    case AluOp::CmpNE: return a != b;
    default: return std::nullopt;  // not a comparison
  }
}

// Integer (i32 / i64) unary and binary ops with the interpreter's wrapping
// semantics.
template <typename T>
std::optional<T> foldIntUnary(AluOp op, T a) {
  switch (op) {
    case AluOp::Neg: return wrapNeg(a);
    case AluOp::BitNot: return T(~a);
    case AluOp::Abs: return a < 0 ? wrapNeg(a) : a;
    case AluOp::Sign: return T((a > 0) - (a < 0));
    case AluOp::Floor:
    case AluOp::Ceil:
    case AluOp::Round:
    case AluOp::Trunc: return a;
    default: return std::nullopt;
  }
}

template <typename T>
std::optional<T> foldIntBinary(AluOp op, T a, T b) {
  switch (op) {
    case AluOp::Add: return wrapAdd(a, b);
    case AluOp::Sub: return wrapSub(a, b);
    case AluOp::Mul: return wrapMul(a, b);
    case AluOp::Div:
      if (b == 0 || (b == -1 && a == std::numeric_limits<T>::min())) return std::nullopt;
      return T(a / b);
    case AluOp::Mod:
      if (b == 0 || b == -1) return std::nullopt;
      return T(a % b);
    case AluOp::FloorDiv:
      if (b == 0) return std::nullopt;
      return floorDivInt(a, b);
    case AluOp::Remainder:
      if (b == 0) return std::nullopt;
      return remainderInt(a, b);
    case AluOp::Pow: return intPow(a, b);
    case AluOp::Max: return a > b ? a : b;
    case AluOp::Min: return a < b ? a : b;
    case AluOp::BitAnd: return T(a & b);
    case AluOp::BitOr: return T(a | b);
    case AluOp::BitXor: return T(a ^ b);
    default: return std::nullopt;
  }
}

template <typename T>
std::optional<T> foldFloatUnary(AluOp op, T a) {
  switch (op) {
    case AluOp::Neg: return -a;
    case AluOp::Abs: return std::fabs(a);
    case AluOp::Floor: return std::floor(a);
    case AluOp::Ceil: return std::ceil(a);
    case AluOp::Trunc: return std::trunc(a);
    case AluOp::Round: return std::nearbyint(a);  // default rounding: half to even
    case AluOp::Sqrt: return std::sqrt(a);        // correctly rounded (IEEE)
    default: return std::nullopt;
  }
}

template <typename T>
std::optional<T> foldFloatBinary(AluOp op, T a, T b) {
  switch (op) {
    case AluOp::Add: return a + b;
    case AluOp::Sub: return a - b;
    case AluOp::Mul: return a * b;
    case AluOp::Div: return a / b;
    case AluOp::Max: return maxPropagateNan(a, b);
    case AluOp::Min: return minPropagateNan(a, b);
    default: return std::nullopt;
  }
}

std::optional<bool> foldBool(AluOp op, bool a, bool b, int arity) {
  if (arity == 1) {
    if (op == AluOp::LogicalNot || op == AluOp::BitNot) return !a;
    return std::nullopt;
  }
  switch (op) {
    case AluOp::LogicalAnd:
    case AluOp::BitAnd:
    case AluOp::Min: return a && b;
    case AluOp::LogicalOr:
    case AluOp::BitOr:
    case AluOp::Max: return a || b;
    case AluOp::LogicalXor:
    case AluOp::BitXor:
    case AluOp::CmpNE: return a != b;
    case AluOp::CmpEQ: return a == b;
    case AluOp::CmpLT: return !a && b;
    case AluOp::CmpLE: return !a || b;
    default: return std::nullopt;
  }
}

template <typename T>
std::optional<UOp> foldIntOp(const UOp& u, T a, T b, int arity) {
  if (aluOpReturnsBool(u.alu)) {
    if (u.dtype != DType::b8) return std::nullopt;
    if (u.alu == AluOp::LogicalNot) return makeConstInt(a == 0, DType::b8);
    if (arity != 2) return std::nullopt;
    if (auto r = foldCompare(u.alu, a, b)) return makeConstInt(*r, DType::b8);
    return std::nullopt;
  }
  auto r = arity == 1 ? foldIntUnary(u.alu, a) : foldIntBinary(u.alu, a, b);
  if (!r) return std::nullopt;
  return makeConstInt(*r, u.dtype);
}

template <typename T>
std::optional<UOp> foldFloatOp(const UOp& u, T a, T b, int arity) {
  if (aluOpReturnsBool(u.alu)) {
    if (u.dtype != DType::b8) return std::nullopt;
    if (u.alu == AluOp::IsNan) return makeConstInt(a != a, DType::b8);
    if (arity != 2) return std::nullopt;
    if (auto r = foldCompare(u.alu, a, b)) return makeConstInt(*r, DType::b8);
    return std::nullopt;
  }
  auto r = arity == 1 ? foldFloatUnary(u.alu, a) : foldFloatBinary(u.alu, a, b);
  if (!r) return std::nullopt;
  return makeConstFloat((double)*r, u.dtype);
}

// C conversion of a constant; nullopt where C leaves it undefined
// (float -> int out of range or NaN).
std::optional<UOp> foldCast(const UOp& c, DType to) {
  DType from = c.dtype;
  if (isFloating(from)) {
    double f = c.fval;
    if (to == DType::b8) return makeConstInt(f != 0, to);  // NaN != 0 holds
    if (isFloating(to)) return makeConstFloat(f, to);
    if (!std::isfinite(f)) return std::nullopt;
    double t = std::trunc(f);
    if (to == DType::i32) {
      if (t < -2147483648.0 || t > 2147483647.0) return std::nullopt;
      return makeConstInt((int64_t)t, to);
    }
    if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) return std::nullopt;
    return makeConstInt((int64_t)t, to);
  }
  int64_t v = c.ival;
  if (to == DType::f32) return makeConstFloat((double)(float)v, to);  // int64 -> float rounds once
  if (to == DType::f64) return makeConstFloat((double)v, to);
  return makeConstInt(v, to);
}

}  // namespace

std::optional<UOp> foldConstant(const UOp& u, const std::vector<UOp>& uops) {
  if (u.kind != UOpKind::Alu && u.kind != UOpKind::Cast) return std::nullopt;
  if (u.src.empty()) return std::nullopt;
  for (int s : u.src)
    if (uops.at(s).kind != UOpKind::Const) return std::nullopt;
  const UOp& a = uops[u.src[0]];
  if (u.kind == UOpKind::Cast) return foldCast(a, u.dtype);
  int arity = aluOpArity(u.alu);
  if ((int)u.src.size() != arity) return std::nullopt;
  if (u.alu == AluOp::MulAdd) return std::nullopt;  // only built from non-constant products
  if (u.alu == AluOp::Where) {
    const UOp& pick = uops[a.ival ? u.src[1] : u.src[2]];
    if (pick.dtype != u.dtype) return std::nullopt;
    return pick;
  }
  const UOp& b = arity == 2 ? uops[u.src[1]] : a;
  if (b.dtype != a.dtype) return std::nullopt;
  // Ops keep their operands' dtype unless they return bool.
  if (!aluOpReturnsBool(u.alu) && u.dtype != a.dtype) return std::nullopt;
  switch (a.dtype) {
    case DType::b8: {
      auto r = foldBool(u.alu, a.ival != 0, b.ival != 0, arity);
      if (!r) return std::nullopt;
      return makeConstInt(*r, DType::b8);
    }
    case DType::i32: return foldIntOp<int32_t>(u, (int32_t)a.ival, (int32_t)b.ival, arity);
    case DType::i64: return foldIntOp<int64_t>(u, a.ival, b.ival, arity);
    case DType::f32: return foldFloatOp<float>(u, (float)a.fval, (float)b.fval, arity);
    case DType::f64: return foldFloatOp<double>(u, a.fval, b.fval, arity);
  }
  return std::nullopt;
}

}  // namespace stitch
