#include "uops/uop_work.h"

#include <algorithm>
#include <optional>

#include "ugraph/numerics.h"
#include "uops/uop_fold.h"

namespace stitch {

namespace {

int64_t saturatedAdd(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

int64_t saturatedMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

class WorkCounter {
 public:
  WorkCounter(const UOpGraph& graph, bool weighted)
      : uops_(graph.uops()), weighted_(weighted), data_(uops_.size(), 0), end_(uops_.size(), (int)uops_.size()),
        env_(uops_.size()) {
    markData();
    for (int i = 0; i < (int)uops_.size(); ++i) {
      const UOp& u = uops_[i];
      if (u.kind == UOpKind::EndLoop || u.kind == UOpKind::EndIf) end_[u.src[0]] = i;
    }
  }

  int64_t count() { return range(0, (int)uops_.size()); }

 private:
  // Backwards from the stores: a value stored, and every operand of a data
  // ALU / CAST / PHI, is data; a LOAD's index is not.
  void markData() {
    for (int i = (int)uops_.size() - 1; i >= 0; --i) {
      const UOp& u = uops_[i];
      if (u.kind == UOpKind::Store) data_[u.src[2]] = 1;
      if (!data_[i]) continue;
      if (u.kind == UOpKind::Alu || u.kind == UOpKind::Cast || u.kind == UOpKind::Phi ||
          u.kind == UOpKind::DefineAcc) {
        for (int s : u.src) data_[s] = 1;
      }
    }
  }

  // The value of an integer uop under the current grid block and loop
  // variables, when it needs no run-time parameter.
  std::optional<int64_t> eval(int id) const {
    const UOp& u = uops_[id];
    if (env_[id]) return env_[id];
    if (isFloating(u.dtype)) return std::nullopt;
    if (u.kind == UOpKind::Const) return u.ival;
    if (u.kind != UOpKind::Alu && u.kind != UOpKind::Cast) return std::nullopt;
    std::vector<UOp> operands;
    UOp folded = u;
    for (size_t k = 0; k < u.src.size(); ++k) {
      std::optional<int64_t> v = eval(u.src[k]);
      if (!v) return std::nullopt;
      operands.push_back(makeConstInt(*v, uops_[u.src[k]].dtype));
      folded.src[k] = (int)k;
    }
    std::optional<UOp> c = foldConstant(folded, operands);
    if (!c) return std::nullopt;
    return c->ival;
  }

  int64_t trips(const UOp& loop) const {
    std::optional<int64_t> lo = eval(loop.src[0]), hi = eval(loop.src[1]);
    if (lo && hi) return std::max<int64_t>(0, *hi - *lo);
    int64_t start = lo ? *lo : uops_[loop.src[0]].vmin, stop = hi ? *hi : uops_[loop.src[1]].vmax;
    if (start <= INT64_MIN / 2 || stop >= INT64_MAX / 2) return INT64_MAX;
    return std::max<int64_t>(0, stop - start);
  }

  int64_t range(int begin, int end) {
    int64_t total = 0;
    for (int i = begin; i < end; ++i) {
      const UOp& u = uops_[i];
      if (u.kind == UOpKind::Special) {
        // Blocks may get different shares of the split loop: each counted.
        for (int64_t g = 0; g < u.ival; ++g) {
          env_[i] = g;
          total = saturatedAdd(total, range(i + 1, end_[i]));
        }
        env_[i].reset();
        i = end_[i];
      } else if (u.kind == UOpKind::Loop) {
        int64_t n = trips(u);
        if (n > 0) {
          env_[i] = eval(u.src[0]).value_or(uops_[u.src[0]].vmin);
          total = saturatedAdd(total, saturatedMul(n, range(i + 1, end_[i])));
          env_[i].reset();
        }
        i = end_[i];
      } else if (u.kind == UOpKind::Store || ((u.kind == UOpKind::Alu || u.kind == UOpKind::Cast) && data_[i])) {
        total = saturatedAdd(total, weight(u));
      } else if (u.kind == UOpKind::FoldLanes && data_[i]) {
        total = saturatedAdd(total, std::max<int64_t>(u.ival - 1, 0));  // one combine per lane but the first
      }
    }
    return total;
  }

  // 1 per operation, or (weighted) the cost of a float transcendental; a
  // division by a constant as the operations that replace the divider.
  int64_t weight(const UOp& u) const {
    if (!weighted_ || u.kind != UOpKind::Alu || !isFloating(u.dtype)) return 1;
    if (u.alu == AluOp::Div && uops_[u.src.at(1)].kind == UOpKind::Const) {
      switch (constantDivision(uops_[u.src[0]].dtype, uops_[u.src[1]].fval)) {
        case ConstantDivision::Reciprocal: return 1;
        case ConstantDivision::Corrected: return kCorrectedDivisionCost;
        case ConstantDivision::Divide: break;
      }
    }
    switch (u.alu) {
      case AluOp::Exp: case AluOp::ExpNonPos: case AluOp::Exp2: case AluOp::Expm1: case AluOp::Log: case AluOp::Log2:
      case AluOp::Log1p: case AluOp::Sqrt: case AluOp::Rsqrt: case AluOp::Reciprocal: case AluOp::Sin:
      case AluOp::Cos: case AluOp::Tan: case AluOp::Asin: case AluOp::Acos: case AluOp::Atan:
      case AluOp::Sinh: case AluOp::Cosh: case AluOp::Tanh: case AluOp::Sigmoid: case AluOp::Silu:
      case AluOp::Erf: case AluOp::GeluErf: case AluOp::GeluTanh: case AluOp::Div: case AluOp::Pow:
      case AluOp::Atan2: case AluOp::FloorDiv: case AluOp::Remainder:
        return kTranscendentalCost;
      default: return 1;
    }
  }

  const std::vector<UOp>& uops_;
  bool weighted_;
  std::vector<char> data_;
  std::vector<int> end_;  // LOOP / SPECIAL / IF -> its ENDLOOP / ENDIF (the end of the list when open)
  std::vector<std::optional<int64_t>> env_;  // SPECIAL / LOOP -> its value now
};

}  // namespace

int64_t uopWork(const UOpGraph& uops) { return WorkCounter(uops, false).count(); }

int64_t uopCost(const UOpGraph& uops) { return WorkCounter(uops, true).count(); }

}  // namespace stitch
