// loopPieces: the cut points of each kind of comparison with constants,
// and the slice-write pattern that compares a variable with its own clamp.
#include "uops/loop_pieces.h"

#include <gtest/gtest.h>

#include <set>

#include "../common/random.h"

namespace stitch {
namespace {

std::vector<int> allNodes(const ThreadGraph& tg) {
  std::vector<int> ids;
  for (int i = 0; i < (int)tg.nodes().size(); ++i) ids.push_back(i);
  return ids;
}

TEST(LoopPieces, EachComparisonCutsWhereItChanges) {
  const int64_t n = testing::randInt(20, 40), c = testing::randInt(2, 10);
  struct Case {
    AluOp op;
    bool constantFirst;
    int64_t cut;  // the first value of the piece after the change
  };
  for (Case k : {Case{AluOp::CmpLT, false, c}, Case{AluOp::CmpLT, true, c + 1}, Case{AluOp::CmpLE, false, c + 1},
                 Case{AluOp::CmpLE, true, c}, Case{AluOp::Min, false, c + 1}, Case{AluOp::Max, true, c}}) {
    ThreadGraph tg({n});
    int i = tg.iterVar(0);
    int konst = tg.constInt(c);
    tg.alu(k.op, aluOpReturnsBool(k.op) ? DType::b8 : DType::i64, k.constantFirst ? std::vector<int>{konst, i}
                                                                                   : std::vector<int>{i, konst});
    EXPECT_EQ(loopPieces(tg, allNodes(tg), i, n), (std::vector<int64_t>{0, k.cut, n})) << aluOpName(k.op);
  }
  ThreadGraph tg({n});
  int i = tg.iterVar(0);
  tg.alu(AluOp::CmpEQ, DType::b8, {i, tg.constInt(c)});
  EXPECT_EQ(loopPieces(tg, allNodes(tg), i, n), (std::vector<int64_t>{0, c, c + 1, n}));
}

TEST(LoopPieces, AVariableAgainstItsOwnClampChangesWhereTheClampDoes) {
  // x[a:b] = v lowers to `i == clamp(i - a, 0, b - a - 1) + a ? v : x`: true
  // on [a, b), exactly where the clamped index follows i: both the clamps
  // and the comparison cut at a and b, nowhere else (a piece of one index
  // between them would leave a scalar remainder in every row).
  const int64_t n = testing::randInt(12, 30), a = testing::randInt(1, 4), b = a + testing::randInt(2, 5);
  ThreadGraph tg({n});
  int i = tg.iterVar(0);
  int shifted = tg.alu(AluOp::Sub, DType::i64, {i, tg.constInt(a)});
  int clamped = tg.alu(AluOp::Max, DType::i64, {tg.alu(AluOp::Min, DType::i64, {shifted, tg.constInt(b - a - 1)}),
                                                tg.constInt(0)});
  tg.alu(AluOp::CmpEQ, DType::b8, {i, tg.alu(AluOp::Add, DType::i64, {clamped, tg.constInt(a)})});
  std::vector<int64_t> bounds = loopPieces(tg, allNodes(tg), i, n);
  std::set<int64_t> cuts{0, a, b, n};
  EXPECT_EQ(bounds, std::vector<int64_t>(cuts.begin(), cuts.end()));
}

TEST(LoopPieces, TooManyCutsGiveNoSplit) {
  ThreadGraph tg({100});
  int i = tg.iterVar(0);
  for (int64_t c = 1; c <= kMaxLoopPieces; ++c) tg.alu(AluOp::CmpLT, DType::b8, {i, tg.constInt(c * 10)});
  EXPECT_TRUE(loopPieces(tg, allNodes(tg), i, 100).empty());
}

}  // namespace
}  // namespace stitch
