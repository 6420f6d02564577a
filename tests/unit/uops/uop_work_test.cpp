// uopWork (and uopCost) on hand-built uop lists: what counts, and loop
// trip counts that differ per grid block.
#include "uops/uop_work.h"

#include <gtest/gtest.h>

#include "uop_test_util.h"

namespace stitch {
namespace {

using testing::loop;

int global(UOpGraph& g, int slot) {
  UOp u = makeUOp(UOpKind::DefineGlobal, DType::f32);
  u.arg = slot;
  u.name = "data" + std::to_string(slot);
  return g.add(u, false);
}

int special(UOpGraph& g, int64_t blocks) {
  UOp u = makeUOp(UOpKind::Special, DType::i64);
  u.name = "gidx0";
  u.ival = blocks;
  return g.add(u, false);
}

void endLoop(UOpGraph& g, int l) { g.add(makeUOp(UOpKind::EndLoop, DType::i64, {l}), false); }

TEST(UOpWork, CountsDataAluAndStoresTimesTheirLoops) {
  UOpGraph g;
  int out = global(g, 0), in = global(g, 1);
  special(g, 3);
  int i = loop(g, 0, 10);
  int j = loop(g, 0, 4);
  // Index arithmetic (i * 4 + j) is not counted; the multiply, the add and
  // the store are.
  int index = g.alu(AluOp::Add, DType::i64, {g.alu(AluOp::Mul, DType::i64, {i, g.constInt(4)}), j});
  int x = g.add(makeUOp(UOpKind::Load, DType::f32, {in, index}));
  int y = g.alu(AluOp::Add, DType::f32, {g.alu(AluOp::Mul, DType::f32, {x, x}), g.constFloat(1.0, DType::f32)});
  g.add(makeUOp(UOpKind::Store, DType::f32, {out, index, y}), false);
  endLoop(g, j);
  endLoop(g, i);
  EXPECT_EQ(uopWork(g), 3 * 10 * 4 * 3);
}

// uopCost weighs a float transcendental; index arithmetic and integer ops
// stay 1 (or uncounted).
TEST(UOpWork, CostWeighsTranscendentals) {
  UOpGraph g;
  int out = global(g, 0), in = global(g, 1);
  int i = loop(g, 0, 8);
  int x = g.add(makeUOp(UOpKind::Load, DType::f32, {in, i}));
  int y = g.alu(AluOp::Mul, DType::f32, {g.alu(AluOp::Exp, DType::f32, {x}), x});
  g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, y}), false);
  endLoop(g, i);
  EXPECT_EQ(uopWork(g), 8 * 3);
  EXPECT_EQ(uopCost(g), 8 * (kTranscendentalCost + 2));
}

// A division costs as the code that computes it: by a value, the divider
// (a transcendental's weight); by a power of two, one multiply; by another
// f32 constant, the corrected product's operations.
TEST(UOpWork, CostWeighsADivisionAsItsRenderedForm) {
  struct Case {
    bool constant;
    double c;
    int64_t weight;
  };
  for (const Case& k : {Case{false, 0.0, kTranscendentalCost}, Case{true, 8.0, 1},
                        Case{true, 255.0, kCorrectedDivisionCost}, Case{true, 1e-39, kTranscendentalCost}}) {
    UOpGraph g;
    int out = global(g, 0), in = global(g, 1), den = global(g, 2);
    int i = loop(g, 0, 8);
    int x = g.add(makeUOp(UOpKind::Load, DType::f32, {in, i}));
    int d = k.constant ? g.constFloat(k.c, DType::f32) : g.add(makeUOp(UOpKind::Load, DType::f32, {den, i}));
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, g.alu(AluOp::Div, DType::f32, {x, d})}), false);
    endLoop(g, i);
    EXPECT_EQ(uopCost(g), 8 * (k.weight + 1)) << "x / " << (k.constant ? std::to_string(k.c) : "y");
  }
}

TEST(UOpWork, ASplitLoopCountsEachBlocksShare) {
  // Blocks of 3 iterations over 10: 3 + 3 + 3 + 1.
  UOpGraph g;
  int out = global(g, 0);
  int gidx = special(g, 4);
  int start = g.alu(AluOp::Mul, DType::i64, {gidx, g.constInt(3)});
  int stop = g.alu(AluOp::Min, DType::i64,
                   {g.alu(AluOp::Mul, DType::i64, {g.alu(AluOp::Add, DType::i64, {gidx, g.constInt(1)}), g.constInt(3)}),
                    g.constInt(10)});
  int i = g.add(makeUOp(UOpKind::Loop, DType::i64, {start, stop}), false);
  g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, g.constFloat(0.0, DType::f32)}), false);
  endLoop(g, i);
  EXPECT_EQ(uopWork(g), 10);
}

TEST(UOpWork, ALoopInsideALoopThatItDoesNotDependOnIsCountedPerOuterIteration) {
  // A reduction recomputed per element of an output loop it does not read:
  // the work the estimate exists to expose.
  UOpGraph g;
  int out = global(g, 0), in = global(g, 1);
  special(g, 1);
  int i = loop(g, 0, 50);
  int acc = g.add(makeUOp(UOpKind::DefineAcc, DType::f32, {g.constFloat(0.0, DType::f32)}), false);
  int k = loop(g, 0, 50);
  int x = g.add(makeUOp(UOpKind::Load, DType::f32, {in, k}));
  int sum = g.alu(AluOp::Add, DType::f32, {acc, x});
  int phi = g.add(makeUOp(UOpKind::Phi, DType::f32, {acc, sum, k}), false);
  endLoop(g, k);
  g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, phi}), false);
  endLoop(g, i);
  EXPECT_EQ(uopWork(g), 50 * 50 + 50);
}

}  // namespace
}  // namespace stitch
