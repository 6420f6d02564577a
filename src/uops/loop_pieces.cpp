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

}  // namespace

std::vector<int64_t> loopPieces(const ThreadGraph& tg, const std::vector<int>& nodes, int var, int64_t extent) {
  std::vector<int64_t> cuts;
  for (int id : nodes) {
    const TNode& n = tg.node(id);
    if (n.op != TOp::Alu || !comparesOrClamps(n.alu) || n.args.size() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      const TNode& c = tg.node(n.args[1 - side]);
      if (!isIntConst(c)) continue;
      std::optional<int64_t> k = offsetOf(tg, n.args[side], var);
      if (!k) continue;
      // var + k against c changes at var = c - k and just after it.
      for (int64_t at : {c.ival - *k, c.ival - *k + 1})
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
