// Golden uops text for tiny kernels: the exact linearized form (order,
// hoisting, folded bounds, simplified indices) of three kernel shapes.
#include <gtest/gtest.h>

#include "../common/kernel_spec.h"
#include "uops/linearizer.h"

namespace stitch {
namespace {

using testing::KernelSpec;

TEST(UOpsGolden, ElementwiseAffine) {
  KernelSpec kb({6});
  kb.output(DType::f32, {6});
  kb.input(DType::f32, {6});
  ThreadGraph& tg = kb.tg();
  int x = tg.load(0, DType::f32, tg.iterVar(0));
  int y = tg.alu(AluOp::Mul, DType::f32, {x, tg.constFloat(2, DType::f32)});
  tg.store(0, tg.alu(AluOp::Add, DType::f32, {y, tg.constFloat(1, DType::f32)}));
  kb.loops({{0}}, 6);
  EXPECT_EQ(linearize(kb.kernel).uops.str(),
            "   0 DEFINE_GLOBAL ptr.f32                  data0 (output)\n"
            "   1 DEFINE_GLOBAL ptr.f32                  data1\n"
            "   2 SPECIAL       i64                      gidx0 < 1\n"
            "   3 CONST         f32                      2.0\n"
            "   4 CONST         f32                      1.0\n"
            "   5 CONST         i64                      6\n"
            "   6 ALU           i64      [2, 5]          MUL\n"
            "   7 ALU           i64      [6, 5]          ADD\n"
            "   8 LOOP          i64      [6, 7]\n"
            "   9 LOAD          f32      [1, 8]\n"
            "  10 ALU           f32      [9, 3]          MUL\n"
            "  11 ALU           f32      [10, 4]         ADD\n"
            "  12 STORE                  [0, 8, 11]\n"
            "  13 ENDLOOP                [8]\n");
}

TEST(UOpsGolden, SumOverLastDim) {
  KernelSpec kb({2});
  kb.output(DType::f32, {2});
  kb.input(DType::f32, {2, 3});
  ThreadGraph& tg = kb.tg();
  int i = tg.iterVar(0);
  int j = tg.newReduceVar(3);
  int x = tg.load(0, DType::f32, tg.flatIndex({i, j}, {2, 3}));
  int r = tg.reduce(ReduceOp::Sum, DType::f64, tg.cast(x, DType::f64), {j});
  tg.store(0, tg.cast(r, DType::f32));
  kb.loops({{0}}, 2);
  EXPECT_EQ(linearize(kb.kernel).uops.str(),
            "   0 DEFINE_GLOBAL ptr.f32                  data0 (output)\n"
            "   1 DEFINE_GLOBAL ptr.f32                  data1\n"
            "   2 SPECIAL       i64                      gidx0 < 1\n"
            "   3 CONST         i64                      3\n"
            "   4 CONST         i64                      2\n"
            "   5 ALU           i64      [2, 4]          MUL\n"
            "   6 ALU           i64      [5, 4]          ADD\n"
            "   7 LOOP          i64      [5, 6]\n"
            "   8 ALU           i64      [7, 3]          MUL\n"
            "   9 CONST         f64                      0.0\n"
            "  10 DEFINE_ACC    f64      [9]\n"
            "  11 CONST         i64                      0\n"
            "  12 LOOP          i64      [11, 3]\n"
            "  13 ALU           i64      [8, 12]         ADD\n"
            "  14 LOAD          f32      [1, 13]\n"
            "  15 CAST          f64      [14]\n"
            "  16 ALU           f64      [10, 15]        ADD\n"
            "  17 PHI           f64      [10, 16, 12]\n"
            "  18 ENDLOOP                [12]\n"
            "  19 CAST          f32      [17]\n"
            "  20 STORE                  [0, 7, 19]\n"
            "  21 ENDLOOP                [7]\n");
}

TEST(UOpsGolden, BroadcastSubWithBlocksOfOneRow) {
  KernelSpec kb({2, 5});
  kb.output(DType::f32, {2, 5});
  kb.input(DType::f32, {2, 5});
  kb.input(DType::f32, {2, 1});
  ThreadGraph& tg = kb.tg();
  auto iv = kb.iterVars();
  int a = tg.load(0, DType::f32, tg.flatIndex(iv, {2, 5}));
  int b = tg.load(1, DType::f32, tg.flatIndex({iv[0], tg.constInt(0)}, {2, 1}));
  tg.store(0, tg.alu(AluOp::Sub, DType::f32, {a, b}));
  kb.loops({{0}, {1}}, 1);
  // The [2, 1] operand is loaded once per row, before the inner loop; the
  // row loop of a one-row block runs gidx0 .. gidx0+1.
  EXPECT_EQ(linearize(kb.kernel).uops.str(), "   0 DEFINE_GLOBAL ptr.f32                  data0 (output)\n"
            "   1 DEFINE_GLOBAL ptr.f32                  data1\n"
            "   2 DEFINE_GLOBAL ptr.f32                  data2\n"
            "   3 SPECIAL       i64                      gidx0 < 2\n"
            "   4 CONST         i64                      0\n"
            "   5 CONST         i64                      5\n"
            "   6 CONST         i64                      1\n"
            "   7 ALU           i64      [3, 6]          ADD\n"
            "   8 LOOP          i64      [3, 7]\n"
            "   9 ALU           i64      [8, 5]          MUL\n"
            "  10 LOAD          f32      [2, 8]\n"
            "  11 LOOP          i64      [4, 5]\n"
            "  12 ALU           i64      [9, 11]         ADD\n"
            "  13 LOAD          f32      [1, 12]\n"
            "  14 ALU           f32      [13, 10]        SUB\n"
            "  15 STORE                  [0, 12, 14]\n"
            "  16 ENDLOOP                [11]\n"
            "  17 ENDLOOP                [8]\n");
}

TEST(UOpsGolden, ShortInnerLoopIsUnrolled) {
  KernelSpec kb({2, 3});
  kb.output(DType::f32, {2, 3});
  kb.input(DType::f32, {2, 3});
  kb.input(DType::f32, {2, 1});
  ThreadGraph& tg = kb.tg();
  auto iv = kb.iterVars();
  int a = tg.load(0, DType::f32, tg.flatIndex(iv, {2, 3}));
  int b = tg.load(1, DType::f32, tg.flatIndex({iv[0], tg.constInt(0)}, {2, 1}));
  tg.store(0, tg.alu(AluOp::Sub, DType::f32, {a, b}));
  kb.loops({{0}, {1}}, 1);
  // Three iterations of the inner loop, written out: each column's index
  // is the row's base plus a constant.
  EXPECT_EQ(linearize(kb.kernel).uops.str(), "   0 DEFINE_GLOBAL ptr.f32                  data0 (output)\n"
            "   1 DEFINE_GLOBAL ptr.f32                  data1\n"
            "   2 DEFINE_GLOBAL ptr.f32                  data2\n"
            "   3 SPECIAL       i64                      gidx0 < 2\n"
            "   4 CONST         i64                      3\n"
            "   5 CONST         i64                      1\n"
            "   6 ALU           i64      [3, 5]          ADD\n"
            "   7 CONST         i64                      2\n"
            "   8 LOOP          i64      [3, 6]\n"
            "   9 ALU           i64      [8, 4]          MUL\n"
            "  10 LOAD          f32      [2, 8]\n"
            "  11 LOAD          f32      [1, 9]\n"
            "  12 ALU           f32      [11, 10]        SUB\n"
            "  13 STORE                  [0, 9, 12]\n"
            "  14 ALU           i64      [9, 5]          ADD\n"
            "  15 LOAD          f32      [1, 14]\n"
            "  16 ALU           f32      [15, 10]        SUB\n"
            "  17 STORE                  [0, 14, 16]\n"
            "  18 ALU           i64      [9, 7]          ADD\n"
            "  19 LOAD          f32      [1, 18]\n"
            "  20 ALU           f32      [19, 10]        SUB\n"
            "  21 STORE                  [0, 18, 20]\n"
            "  22 ENDLOOP                [8]\n");
}

}  // namespace
}  // namespace stitch
