// The value of an i64 index node of a ThreadGraph at a chosen point: two
// variables (iteration or reduce) at 0 or 1, every other variable at 0.
// Differences of such values give an index's stride along each variable
// (whether a load is contiguous along a loop), which decides loop orders in
// the planner (columnReduceNodes) and the linearizer (column fills).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>

#include "ugraph/thread_graph.h"

namespace stitch {

class IndexProbe {
 public:
  struct Var {
    TOp op;     // TOp::IterVar or TOp::ReduceVar
    int index;  // its dim / reduce variable
  };
  IndexProbe(const ThreadGraph& tg, Var a, Var b) : tg_(tg), a_(a), b_(b) {}

  // nullopt when the index depends on data or parameters.
  std::optional<int64_t> at(int node, bool stepA, bool stepB) {
    stepA_ = stepA;
    stepB_ = stepB;
    return eval(node, 0);
  }

 private:
  std::optional<int64_t> eval(int id, int depth) {
    const TNode& n = tg_.node(id);
    if (depth > 64 || n.dtype != DType::i64) return std::nullopt;
    switch (n.op) {
      case TOp::IterVar:
      case TOp::ReduceVar:
        return (stepA_ && n.op == a_.op && (int)n.index == a_.index) ||
                       (stepB_ && n.op == b_.op && (int)n.index == b_.index)
                   ? 1
                   : 0;
      case TOp::Const: return n.ival;
      case TOp::Alu: break;
      default: return std::nullopt;
    }
    std::optional<int64_t> a = eval(n.args[0], depth + 1), b;
    if (!a) return std::nullopt;
    if (n.args.size() > 1 && !(b = eval(n.args[1], depth + 1))) return std::nullopt;
    switch (n.alu) {
      case AluOp::Neg: return -*a;
      case AluOp::Add: return *a + *b;
      case AluOp::Sub: return *a - *b;
      case AluOp::Mul: return *a * *b;
      case AluOp::Div:
      case AluOp::FloorDiv: return *b > 0 && *a >= 0 ? std::optional<int64_t>(*a / *b) : std::nullopt;
      case AluOp::Mod:
      case AluOp::Remainder: return *b > 0 && *a >= 0 ? std::optional<int64_t>(*a % *b) : std::nullopt;
      case AluOp::Max: return std::max(*a, *b);
      case AluOp::Min: return std::min(*a, *b);
      default: return std::nullopt;
    }
  }

  const ThreadGraph& tg_;
  Var a_, b_;
  bool stepA_ = false, stepB_ = false;
};

}  // namespace stitch
