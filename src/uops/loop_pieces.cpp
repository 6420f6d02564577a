#include "uops/loop_pieces.h"

#include <algorithm>
#include <optional>

namespace stitch {

namespace {

bool isIntConst(const TNode& n) { return n.op == TOp::Const && (n.dtype == DType::i64 || n.dtype == DType::i32); }

// k when node is var + k, looking through adds and subtractions of
// constants and clamps (min / max) by constants, which keep the variable's
// breakpoints where they are.
std::optional<int64_t> offsetOf(const ThreadGraph& tg, int node, int var, int depth = 0) {
  if (node == var) return 0;
  const TNode& n = tg.node(node);
  if (depth > 16 || n.op != TOp::Alu || n.dtype != DType::i64 || n.args.size() != 2) return std::nullopt;
  const TNode& a = tg.node(n.args[0]);
  const TNode& b = tg.node(n.args[1]);
  switch (n.alu) {
    case AluOp::Add:
      if (isIntConst(b)) {
        auto k = offsetOf(tg, n.args[0], var, depth + 1);
        return k ? std::optional<int64_t>(*k + b.ival) : std::nullopt;
      }
      if (isIntConst(a)) {
        auto k = offsetOf(tg, n.args[1], var, depth + 1);
        return k ? std::optional<int64_t>(*k + a.ival) : std::nullopt;
      }
      return std::nullopt;
    case AluOp::Sub:
      if (isIntConst(b)) {
        auto k = offsetOf(tg, n.args[0], var, depth + 1);
        return k ? std::optional<int64_t>(*k - b.ival) : std::nullopt;
      }
      return std::nullopt;
    case AluOp::Min:
    case AluOp::Max:
      if (isIntConst(b)) return offsetOf(tg, n.args[0], var, depth + 1);
      if (isIntConst(a)) return offsetOf(tg, n.args[1], var, depth + 1);
      return std::nullopt;
    default: return std::nullopt;
  }
}

bool comparesOrClamps(AluOp op) {
  return op == AluOp::CmpEQ || op == AluOp::CmpNE || op == AluOp::CmpLT || op == AluOp::CmpLE || op == AluOp::Min ||
         op == AluOp::Max;
}

// Where `var OP at` (or `at OP var` when constantFirst) changes value as
// var grows: the first var of each piece on which it is constant. A clamp
// by a constant is var itself on one side and the constant on the other,
// both at `at` itself: max(var, at) is var from `at` on, min(var, at) up to
// and including `at`, so each cuts where its linear part begins or ends
// (a slice's clamped index, linear on exactly the slice, cuts at its ends).
int64_t clampCut(AluOp op, int64_t at) { return op == AluOp::Min ? at + 1 : at; }

std::vector<int64_t> changePoints(AluOp op, bool constantFirst, int64_t at) {
  switch (op) {
    case AluOp::CmpLT: return {constantFirst ? at + 1 : at};
    case AluOp::CmpLE: return {constantFirst ? at : at + 1};
    case AluOp::Min:
    case AluOp::Max: return {clampCut(op, at)};
    default: return {at, at + 1};  // == and !=: true at `at` only
  }
}

// The cuts of the clamps inside `node` (var + k through adds and clamps by
// constants, as offsetOf): where each stops or starts following var.
void clampPoints(const ThreadGraph& tg, int node, int var, std::vector<int64_t>& out, int depth = 0) {
  const TNode& n = tg.node(node);
  if (node == var || depth > 16 || n.op != TOp::Alu || n.dtype != DType::i64 || n.args.size() != 2) return;
  for (int side = 0; side < 2; ++side) {
    const TNode& c = tg.node(n.args[1 - side]);
    if (!isIntConst(c)) continue;
    if (n.alu == AluOp::Min || n.alu == AluOp::Max) {
      if (std::optional<int64_t> k = offsetOf(tg, n.args[side], var)) out.push_back(clampCut(n.alu, c.ival - *k));
    }
    clampPoints(tg, n.args[side], var, out, depth + 1);
  }
}

}  // namespace

std::vector<int64_t> loopPieces(const ThreadGraph& tg, const std::vector<int>& nodes, int var, int64_t extent) {
  std::vector<int64_t> cuts;
  for (int id : nodes) {
    const TNode& n = tg.node(id);
    if (n.op != TOp::Alu || !comparesOrClamps(n.alu) || n.args.size() != 2) continue;
    if (n.alu != AluOp::Min && n.alu != AluOp::Max && !isIntConst(tg.node(n.args[0])) &&
        !isIntConst(tg.node(n.args[1]))) {
      // var compared with a clamp of itself (a slice write's `i == clamp(i -
      // a, 0, b-a-1) + a`): equal exactly where every clamp follows var,
      // so it changes at the clamps' cuts ([a, b) here).
      std::vector<int64_t> points;
      for (int a : n.args) clampPoints(tg, a, var, points);
      for (int64_t at : points)
        if (at > 0 && at < extent) cuts.push_back(at);
      continue;
    }
    for (int side = 0; side < 2; ++side) {
      const TNode& c = tg.node(n.args[1 - side]);
      if (!isIntConst(c)) continue;
      std::optional<int64_t> k = offsetOf(tg, n.args[side], var);
      if (!k) continue;
      for (int64_t at : changePoints(n.alu, side == 1, c.ival - *k))
        if (at > 0 && at < extent) cuts.push_back(at);
    }
  }
  if (cuts.empty()) return {};
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  if ((int64_t)cuts.size() + 1 > kMaxLoopPieces) return {};
  std::vector<int64_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(extent);
  return bounds;
}

}  // namespace stitch
