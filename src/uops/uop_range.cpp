#include "uops/uop_range.h"

#include <algorithm>
#include <climits>

namespace stitch {

namespace {

struct Range {
  int64_t lo = INT64_MIN;
  int64_t hi = INT64_MAX;
};

constexpr Range kFull{};

bool isFull(const Range& r) { return r.lo == INT64_MIN && r.hi == INT64_MAX; }

Range addRange(Range a, Range b) {
  Range r;
  if (isFull(a) || isFull(b) || __builtin_add_overflow(a.lo, b.lo, &r.lo) ||
      __builtin_add_overflow(a.hi, b.hi, &r.hi))
    return kFull;
  return r;
}

Range subRange(Range a, Range b) {
  Range r;
  if (isFull(a) || isFull(b) || __builtin_sub_overflow(a.lo, b.hi, &r.lo) ||
      __builtin_sub_overflow(a.hi, b.lo, &r.hi))
    return kFull;
  return r;
}

Range mulRange(Range a, Range b) {
  if (isFull(a) || isFull(b)) return kFull;
  int64_t c[4];
  if (__builtin_mul_overflow(a.lo, b.lo, &c[0]) || __builtin_mul_overflow(a.lo, b.hi, &c[1]) ||
      __builtin_mul_overflow(a.hi, b.lo, &c[2]) || __builtin_mul_overflow(a.hi, b.hi, &c[3]))
    return kFull;
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Division by a positive constant is monotonic (truncating or flooring).
Range divRange(Range a, int64_t c, bool floor) {
  if (isFull(a) || c <= 0) return kFull;
  if (floor) return {floorDiv(a.lo, c), floorDiv(a.hi, c)};
  return {a.lo / c, a.hi / c};
}

Range modRange(Range a, int64_t c, bool pythonSign) {
  if (c <= 0) return kFull;
  if (!isFull(a) && a.lo >= 0) {
    if (a.hi < c) return a;
    return {0, c - 1};
  }
  if (pythonSign) return {0, c - 1};
  return {-(c - 1), c - 1};
}

}  // namespace

void computeRange(UOp& u, const std::vector<UOp>& uops) {
  Range r = kFull;
  auto rangeOf = [&](int id) { return Range{uops[id].vmin, uops[id].vmax}; };
  auto constOf = [&](int id, int64_t& v) {
    if (uops[id].kind != UOpKind::Const) return false;
    v = uops[id].ival;
    return true;
  };
  if (u.dtype != DType::i64 && u.dtype != DType::b8 && u.dtype != DType::i32) {
    u.vmin = INT64_MIN;
    u.vmax = INT64_MAX;
    return;
  }
  switch (u.kind) {
    case UOpKind::Const: r = {u.ival, u.ival}; break;
    case UOpKind::Special: r = {0, std::max<int64_t>(u.ival - 1, 0)}; break;
    case UOpKind::Loop: {
      Range s = rangeOf(u.src[0]), e = rangeOf(u.src[1]);
      if (s.lo != INT64_MIN && e.hi != INT64_MAX && e.hi - 1 >= s.lo) r = {s.lo, e.hi - 1};
      else if (s.lo != INT64_MIN && e.hi != INT64_MAX) r = {s.lo, s.lo};  // runs no iteration
      break;
    }
    case UOpKind::Cast: {
      DType from = uops[u.src[0]].dtype;
      if (from == DType::b8) r = {0, 1};
      else if (from == DType::i32 && u.dtype == DType::i64) r = rangeOf(u.src[0]);
      break;
    }
    case UOpKind::Alu: {
      if (u.dtype != DType::i64) break;  // bool / i32 bounds are not needed by the simplifier
      int64_t c = 0;
      switch (u.alu) {
        case AluOp::Add: r = addRange(rangeOf(u.src[0]), rangeOf(u.src[1])); break;
        case AluOp::Sub: r = subRange(rangeOf(u.src[0]), rangeOf(u.src[1])); break;
        case AluOp::Mul: r = mulRange(rangeOf(u.src[0]), rangeOf(u.src[1])); break;
        case AluOp::Neg: r = subRange({0, 0}, rangeOf(u.src[0])); break;
        case AluOp::Div:
          if (constOf(u.src[1], c)) r = divRange(rangeOf(u.src[0]), c, false);
          break;
        case AluOp::FloorDiv:
          if (constOf(u.src[1], c)) r = divRange(rangeOf(u.src[0]), c, true);
          break;
        case AluOp::Mod:
          if (constOf(u.src[1], c)) r = modRange(rangeOf(u.src[0]), c, false);
          break;
        case AluOp::Remainder:
          if (constOf(u.src[1], c)) r = modRange(rangeOf(u.src[0]), c, true);
          break;
        case AluOp::Max: {
          Range a = rangeOf(u.src[0]), b = rangeOf(u.src[1]);
          r = {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
          break;
        }
        case AluOp::Min: {
          Range a = rangeOf(u.src[0]), b = rangeOf(u.src[1]);
          r = {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
          break;
        }
        case AluOp::Where: {
          Range a = rangeOf(u.src[1]), b = rangeOf(u.src[2]);
          r = {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
          break;
        }
        default: break;  // other ops: unbounded
      }
      break;
    }
    default: break;  // loads, parameters, accumulators: unbounded
  }
  if (u.dtype == DType::b8 && u.kind != UOpKind::Const) r = {0, 1};
  u.vmin = r.lo;
  u.vmax = r.hi;
}

}  // namespace stitch

