// linearize() on hand-built kernels: structure of the loop nest, hoisting,
// division-free contiguous indexing, reductions, and results computed by a
// reference executor (uop_eval.h) against direct computation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../common/kernel_spec.h"
#include "uop_eval.h"
#include "uop_test_util.h"
#include "uops/linearizer.h"

namespace stitch {
namespace {

using namespace testing;

std::vector<double> randomF32(size_t n) {
  std::uniform_real_distribution<float> d(-10.f, 10.f);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng());
  return v;
}

// out = x * 2 + 1 over a contiguous [8, 1333, 3] (f32), with the given loop nest.
void checkElementwise(const std::vector<std::vector<int>>& groups, int64_t blockExtent) {
  std::vector<int64_t> shape = {8, 1333, 3};
  KernelSpec kb(shape);
  kb.output(DType::f32, shape);
  kb.input(DType::f32, shape);
  ThreadGraph& tg = kb.tg();
  int x = tg.load(0, DType::f32, tg.flatIndex(kb.iterVars(), shape));
  int y = tg.alu(AluOp::Add, DType::f32,
                 {tg.alu(AluOp::Mul, DType::f32, {x, tg.constFloat(2, DType::f32)}), tg.constFloat(1, DType::f32)});
  tg.store(0, y);
  kb.loops(groups, blockExtent);
  KernelUOps k = linearize(kb.kernel);
  const UOpGraph& g = k.uops;
  ASSERT_EQ(k.buffers, (std::vector<DType>{DType::f32, DType::f32}));
  ASSERT_EQ(k.numOutputs, 1);
  std::vector<int> loops = allOf(g, UOpKind::Loop);
  // A separate innermost loop over the 3 channels is unrolled: its
  // iterations become straight-line code in the loop around it.
  size_t expectedLoops = groups.size() - (groups.size() >= 2 && groups.back() == std::vector<int>{2} ? 1 : 0);
  ASSERT_EQ(loops.size(), expectedLoops) << g.str();
  int inner = loops.back();
  EXPECT_TRUE(divisionFreeIn(g, inner)) << g.str();
  int load = firstOf(g, UOpKind::Load), store = firstOf(g, UOpKind::Store);
  ASSERT_GE(load, 0);
  ASSERT_GE(store, 0);
  if (groups.size() == 1) {
    EXPECT_EQ(g.at(load).src[1], inner) << g.str();  // the plain loop variable
    EXPECT_EQ(g.at(store).src[1], inner) << g.str();
  }
  EXPECT_EQ(g.at(firstOf(g, UOpKind::Special)).ival, kb.kernel.block.grid[0]);
  size_t n = 8 * 1333 * 3;
  auto bufs = evalUOps(g, {std::vector<double>(n, NAN), randomF32(n)});
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(bufs[0][i], (double)((float)bufs[1][i] * 2.f + 1.f)) << i;
}

TEST(Linearizer, ElementwiseMergedLoopIsDivisionFree) { checkElementwise({{0, 1, 2}}, 16384); }
TEST(Linearizer, ElementwisePartlyMerged) { checkElementwise({{0}, {1, 2}}, 3); }
TEST(Linearizer, ElementwiseUnmerged) { checkElementwise({{0}, {1}, {2}}, 1); }

TEST(Linearizer, BroadcastLoadIsHoistedOutOfTheInnerLoop) {
  KernelSpec kb({64, 1000});
  kb.output(DType::f32, {64, 1000});
  kb.input(DType::f32, {64, 1000});
  kb.input(DType::f32, {64, 1});
  ThreadGraph& tg = kb.tg();
  auto iv = kb.iterVars();
  int a = tg.load(0, DType::f32, tg.flatIndex(iv, {64, 1000}));
  int b = tg.load(1, DType::f32, tg.flatIndex({iv[0], tg.constInt(0)}, {64, 1}));
  tg.store(0, tg.alu(AluOp::Add, DType::f32, {a, b}));
  kb.loops({{0}, {1}}, 17);
  KernelUOps k = linearize(kb.kernel);
  const UOpGraph& g = k.uops;
  auto loops = allOf(g, UOpKind::Loop);
  ASSERT_EQ(loops.size(), 2u);
  auto loads = allOf(g, UOpKind::Load);
  ASSERT_EQ(loads.size(), 2u);
  int bload = g.at(loads[0]).src[0] == 2 ? loads[0] : loads[1];  // data2 is the [64, 1] input
  EXPECT_EQ(g.at(g.at(bload).src[0]).name, "data2");
  EXPECT_GT(bload, loops[0]) << g.str();
  EXPECT_LT(bload, loops[1]) << g.str();
  EXPECT_EQ(g.at(bload).src[1], loops[0]);
  EXPECT_TRUE(divisionFreeIn(g, loops[1]));
  // loops[0] covers this block's rows: gidx0*17 .. min((gidx0+1)*17, 64).
  EXPECT_EQ(g.at(firstOf(g, UOpKind::Special)).ival, 4);
  auto bufs = evalUOps(g, {std::vector<double>(64000, NAN), randomF32(64000), randomF32(64)});
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 1000; ++j)
      ASSERT_EQ(bufs[0][i * 1000 + j], (double)((float)bufs[1][i * 1000 + j] + (float)bufs[2][i]));
}

// out[i] = sum_j x[i, j] (f32 accumulated in f64), or max.
KernelUOps reductionKernel(ReduceOp op, int64_t rows, int64_t cols, int64_t blockExtent) {
  KernelSpec kb({rows});
  kb.output(DType::f32, {rows});
  kb.input(DType::f32, {rows, cols});
  ThreadGraph& tg = kb.tg();
  int i = tg.iterVar(0);
  int j = tg.newReduceVar(cols);
  int x = tg.load(0, DType::f32, tg.flatIndex({i, j}, {rows, cols}));
  DType acc = op == ReduceOp::Sum ? DType::f64 : DType::f32;
  int r = tg.reduce(op, acc, tg.cast(x, acc), {j});
  tg.store(0, tg.cast(r, DType::f32));
  kb.loops({{0}}, blockExtent);
  return linearize(kb.kernel);
}

TEST(Linearizer, SumReductionOrder) {
  KernelUOps k = reductionKernel(ReduceOp::Sum, 16, 50, 5);
  const UOpGraph& g = k.uops;
  auto loops = allOf(g, UOpKind::Loop);
  ASSERT_EQ(loops.size(), 2u) << g.str();
  int acc = firstOf(g, UOpKind::DefineAcc), phi = firstOf(g, UOpKind::Phi);
  auto ends = allOf(g, UOpKind::EndLoop);
  ASSERT_EQ(ends.size(), 2u);
  int store = firstOf(g, UOpKind::Store);
  ASSERT_GE(acc, 0);
  ASSERT_GE(phi, 0);
  // DEFINE_ACC inside the output loop, then the reduce LOOP, body, PHI, ENDLOOP, STORE.
  EXPECT_LT(loops[0], acc);
  EXPECT_LT(acc, loops[1]);
  EXPECT_LT(loops[1], firstOf(g, UOpKind::Load));
  EXPECT_LT(firstOf(g, UOpKind::Load), phi);
  EXPECT_EQ(g.at(phi).src[0], acc);
  EXPECT_EQ(g.at(phi).src[2], loops[1]);
  const UOp& add = g.at(g.at(phi).src[1]);
  EXPECT_EQ(add.kind, UOpKind::Alu);
  EXPECT_EQ(add.alu, AluOp::Add);
  EXPECT_EQ(g.at(ends[0]).src[0], loops[1]);
  EXPECT_LT(phi, ends[0]);
  EXPECT_LT(ends[0], store);
  EXPECT_LT(store, ends[1]);
  EXPECT_EQ(g.at(ends[1]).src[0], loops[0]);
  EXPECT_EQ(g.at(g.at(acc).src[0]).fval, 0.0);
  EXPECT_EQ(g.at(acc).dtype, DType::f64);
  auto bufs = evalUOps(g, {std::vector<double>(16, NAN), randomF32(16 * 50)});
  for (int i = 0; i < 16; ++i) {
    double s = 0;
    for (int j = 0; j < 50; ++j) s += bufs[1][i * 50 + j];
    ASSERT_EQ(bufs[0][i], (double)(float)s);
  }
}

TEST(Linearizer, MaxReductionStartsAtMinusInfinityAndPropagatesNaN) {
  KernelUOps k = reductionKernel(ReduceOp::Max, 6, 7, 6);
  const UOpGraph& g = k.uops;
  int acc = firstOf(g, UOpKind::DefineAcc);
  ASSERT_GE(acc, 0);
  EXPECT_EQ(g.at(g.at(acc).src[0]).fval, -INFINITY);
  testing::EvalBuffers bufs;
  bufs.data = {std::vector<double>(6, 0), randomF32(42)};
  bufs.data[1][2 * 7 + 3] = NAN;
  testing::evalUOps(g, bufs);
  for (int i = 0; i < 6; ++i) {
    double m = -INFINITY;
    for (int j = 0; j < 7; ++j) m = std::max(m, bufs.data[1][i * 7 + j]);
    if (i == 2) EXPECT_TRUE(std::isnan(bufs.data[0][i]));
    else EXPECT_EQ(bufs.data[0][i], m);
  }
}

TEST(Linearizer, ParamsAreDefineVarsWithTheirDtypes) {
  KernelSpec kb({10});
  kb.output(DType::f32, {10});
  kb.input(DType::f32, {10});
  kb.param(Type::floatT());
  kb.param(Type::intT());
  ThreadGraph& tg = kb.tg();
  int x = tg.load(0, DType::f32, tg.iterVar(0));
  int p = tg.cast(tg.param(0, DType::f64), DType::f32);
  tg.store(0, tg.alu(AluOp::Mul, DType::f32, {x, p}));
  kb.loops({{0}}, 10);
  KernelUOps k = linearize(kb.kernel);
  EXPECT_EQ(k.params, (std::vector<DType>{DType::f64, DType::i64}));
  auto vars = allOf(k.uops, UOpKind::DefineVar);
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(k.uops.at(vars[0]).name, "p0");
  EXPECT_EQ(k.uops.at(vars[1]).dtype, DType::i64);
  // The parameter's conversion does not depend on the loop: it comes first.
  int cast = firstOf(k.uops, UOpKind::Cast);
  EXPECT_LT(cast, firstOf(k.uops, UOpKind::Loop));
  testing::EvalBuffers bufs;
  bufs.data = {std::vector<double>(10), randomF32(10)};
  bufs.params = {{0, 1.5}, {3, 0}};
  testing::evalUOps(k.uops, bufs);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(bufs.data[0][i], (double)((float)bufs.data[1][i] * 1.5f));
}

TEST(Linearizer, EmptyIterationSpaceDoesNothing) {
  KernelSpec kb({0, 5});
  kb.output(DType::f32, {0, 5});
  kb.input(DType::f32, {0, 5});
  ThreadGraph& tg = kb.tg();
  tg.store(0, tg.load(0, DType::f32, tg.flatIndex(kb.iterVars(), {0, 5})));
  kb.loops({{0, 1}}, 1);
  KernelUOps k = linearize(kb.kernel);
  EXPECT_EQ(firstOf(k.uops, UOpKind::Loop), -1);
  EXPECT_EQ(firstOf(k.uops, UOpKind::Store), -1);
  EXPECT_EQ(allOf(k.uops, UOpKind::DefineGlobal).size(), 2u);
}

TEST(Linearizer, FullReductionToAScalar) {
  KernelSpec kb({});
  kb.output(DType::f64, {});
  kb.input(DType::f64, {5, 7});
  ThreadGraph& tg = kb.tg();
  int a = tg.newReduceVar(5), b = tg.newReduceVar(7);
  int x = tg.load(0, DType::f64, tg.flatIndex({a, b}, {5, 7}));
  tg.store(0, tg.reduce(ReduceOp::Sum, DType::f64, x, {a, b}));
  kb.loops({{}}, 1);
  KernelUOps k = linearize(kb.kernel);
  // The reduction's loops: the inner one walks the buffer contiguously.
  auto loops = allOf(k.uops, UOpKind::Loop);
  ASSERT_EQ(loops.size(), 3u) << k.uops.str();
  EXPECT_TRUE(divisionFreeIn(k.uops, loops[2]));
  auto bufs = evalUOps(k.uops, {std::vector<double>(1, NAN), randomF32(35)});
  double s = 0;
  for (double v : bufs[1]) s += v;
  EXPECT_EQ(bufs[0][0], s);
}

TEST(Linearizer, NestedReductions) {
  // out[i] = sum_j max_k x[i, j, k]
  KernelSpec kb({3});
  kb.output(DType::f64, {3});
  kb.input(DType::f64, {3, 4, 5});
  ThreadGraph& tg = kb.tg();
  int i = tg.iterVar(0);
  int j = tg.newReduceVar(4), kv = tg.newReduceVar(5);
  int x = tg.load(0, DType::f64, tg.flatIndex({i, j, kv}, {3, 4, 5}));
  int m = tg.reduce(ReduceOp::Max, DType::f64, x, {kv});
  tg.store(0, tg.reduce(ReduceOp::Sum, DType::f64, m, {j}));
  kb.loops({{0}}, 2);
  KernelUOps k = linearize(kb.kernel);
  EXPECT_EQ(allOf(k.uops, UOpKind::DefineAcc).size(), 2u);
  EXPECT_EQ(allOf(k.uops, UOpKind::Phi).size(), 2u);
  auto bufs = evalUOps(k.uops, {std::vector<double>(3, NAN), randomF32(60)});
  for (int r = 0; r < 3; ++r) {
    double s = 0;
    for (int c = 0; c < 4; ++c) {
      double mx = -INFINITY;
      for (int e = 0; e < 5; ++e) mx = std::max(mx, bufs[1][(r * 4 + c) * 5 + e]);
      s += mx;
    }
    EXPECT_EQ(bufs[0][r], s) << k.uops.str();
  }
}

TEST(Linearizer, ColumnReductionRunsTheReduceLoopOutside) {
  // out[j] = sum_i x[i, j]: the reduce loop goes outside the column loop,
  // with one accumulator per column of the block in a local array.
  KernelSpec kb({16});
  kb.output(DType::f32, {16});
  kb.input(DType::f32, {50, 16});
  ThreadGraph& tg = kb.tg();
  int j = tg.iterVar(0);
  int i = tg.newReduceVar(50);
  int x = tg.load(0, DType::f32, tg.flatIndex({i, j}, {50, 16}));
  tg.store(0, tg.cast(tg.reduce(ReduceOp::Sum, DType::f64, tg.cast(x, DType::f64), {i}), DType::f32));
  kb.loops({{0}}, 8);
  KernelUOps k = linearize(kb.kernel);
  const UOpGraph& g = k.uops;
  auto locals = allOf(g, UOpKind::DefineLocal);
  ASSERT_EQ(locals.size(), 1u) << g.str();
  EXPECT_EQ(g.at(locals[0]).ival, 8);
  EXPECT_EQ(g.at(locals[0]).dtype, DType::f64);
  EXPECT_EQ(firstOf(g, UOpKind::DefineAcc), -1);
  // Loops: columns (start values), rows, columns (accumulate), columns (store).
  auto loops = allOf(g, UOpKind::Loop);
  ASSERT_EQ(loops.size(), 4u) << g.str();
  int load = -1;
  for (int u : allOf(g, UOpKind::Load))
    if (g.at(g.at(u).src[0]).kind == UOpKind::DefineGlobal) load = u;
  ASSERT_GT(load, loops[2]);
  EXPECT_TRUE(dependsOn(g, g.at(load).src[1], loops[1]));
  EXPECT_TRUE(dependsOn(g, g.at(load).src[1], loops[2]));
  EXPECT_TRUE(divisionFreeIn(g, loops[2]));
  auto bufs = evalUOps(g, {std::vector<double>(16, NAN), randomF32(50 * 16)});
  for (int c = 0; c < 16; ++c) {
    double sum = 0;
    for (int r = 0; r < 50; ++r) sum += bufs[1][r * 16 + c];
    ASSERT_EQ(bufs[0][c], (double)(float)sum) << c;
  }
}

TEST(Linearizer, IndependentColumnReductionsShareOneLoopNest) {
  // out[j] = sum_i x[i, j] * y[i, j] + max_i x[i, j] - sum_i (y[i, j] - m):
  // the first two read no reduction and have reduce loops of one extent,
  // so one reduce loop serves both (independent accumulator chains in one
  // step); the third reads m = the max and gets a nest of its own.
  const int64_t rows = testing::randInt(2, 40), cols = 16;
  KernelSpec kb({cols});
  kb.output(DType::f32, {cols});
  kb.input(DType::f32, {rows, cols});
  kb.input(DType::f32, {rows, cols});
  ThreadGraph& tg = kb.tg();
  int j = tg.iterVar(0);
  int i1 = tg.newReduceVar(rows), i2 = tg.newReduceVar(rows), i3 = tg.newReduceVar(rows);
  auto at = [&](int slot, int i) { return tg.load(slot, DType::f32, tg.flatIndex({i, j}, {rows, cols})); };
  int s = tg.reduce(ReduceOp::Sum, DType::f32, tg.alu(AluOp::Mul, DType::f32, {at(0, i1), at(1, i1)}), {i1});
  int m = tg.reduce(ReduceOp::Max, DType::f32, at(0, i2), {i2});
  int d = tg.reduce(ReduceOp::Sum, DType::f32, tg.alu(AluOp::Sub, DType::f32, {at(1, i3), m}), {i3});
  tg.store(0, tg.alu(AluOp::Sub, DType::f32, {tg.alu(AluOp::Add, DType::f32, {s, m}), d}));
  kb.loops({{0}}, 16);
  KernelUOps k = linearize(kb.kernel);
  const UOpGraph& g = k.uops;
  SCOPED_TRACE(g.str());
  ASSERT_EQ(allOf(g, UOpKind::DefineLocal).size(), 3u);
  // Reduce loops of `rows / jam` iterations (each pass over the columns
  // takes jam rows): one for the batch of two, one for the third.
  const int64_t jam = rows % 4 == 0 ? 4 : rows % 2 == 0 ? 2 : 1;
  int rowLoops = 0;
  for (int l : allOf(g, UOpKind::Loop)) rowLoops += g.at(g.at(l).src[1]).kind == UOpKind::Const &&
                                                    g.at(g.at(l).src[1]).ival == rows / jam && g.at(g.at(l).src[0]).ival == 0;
  EXPECT_EQ(rowLoops, rows / jam == cols ? rowLoops : 2);
  auto bufs = evalUOps(g, {std::vector<double>(cols, NAN), randomF32(rows * cols), randomF32(rows * cols)});
  for (int64_t c = 0; c < cols; ++c) {
    float sum = 0, mx = -INFINITY, dev = 0;
    for (int64_t r = 0; r < rows; ++r) sum = std::fmaf(bufs[1][r * cols + c], bufs[2][r * cols + c], sum);
    for (int64_t r = 0; r < rows; ++r) mx = std::max(mx, (float)bufs[1][r * cols + c]);
    for (int64_t r = 0; r < rows; ++r) dev += (float)bufs[2][r * cols + c] - mx;
    ASSERT_EQ(bufs[0][c], (double)((sum + mx) - dev)) << c;
  }
}

TEST(Linearizer, ReductionIndependentOfTheGridLoopRunsOncePerColumn) {
  // out[i, j] = x[i, j] / sum_r x[r, j] (a softmax over dim 0 without the
  // exp): the sum does not depend on i, so the column loop goes outside the
  // row loop, the grid splits the columns, and each column's sum is
  // computed once.
  const int64_t rows = 40, cols = 6;
  KernelSpec kb({rows, cols});
  kb.output(DType::f64, {rows, cols});
  kb.input(DType::f64, {rows, cols});
  ThreadGraph& tg = kb.tg();
  auto iv = kb.iterVars();
  int r = tg.newReduceVar(rows);
  int col = tg.load(0, DType::f64, tg.flatIndex({r, iv[1]}, {rows, cols}));
  int sum = tg.reduce(ReduceOp::Sum, DType::f64, col, {r});
  int x = tg.load(0, DType::f64, tg.flatIndex(iv, {rows, cols}));
  tg.store(0, tg.alu(AluOp::Div, DType::f64, {x, sum}));
  kb.loops({{0}, {1}}, 1);  // 40 blocks of one row each
  KernelUOps k = linearize(kb.kernel);
  const UOpGraph& g = k.uops;
  EXPECT_EQ(g.at(firstOf(g, UOpKind::Special)).ival, rows);  // the grid's block count is kept
  auto loops = allOf(g, UOpKind::Loop);
  ASSERT_EQ(loops.size(), 3u) << g.str();
  // Columns (the grid's share), the reduction, then all rows.
  EXPECT_TRUE(dependsOn(g, g.at(loops[0]).src[0], firstOf(g, UOpKind::Special))) << g.str();
  int phi = firstOf(g, UOpKind::Phi);
  EXPECT_EQ(g.at(phi).src[2], loops[1]);
  EXPECT_LT(phi, loops[2]);
  EXPECT_EQ(g.at(g.at(loops[2]).src[1]).ival, rows);
  auto bufs = evalUOps(g, {std::vector<double>(rows * cols, NAN), randomF32(rows * cols)});
  for (int c = 0; c < cols; ++c) {
    double s = 0;
    for (int i = 0; i < rows; ++i) s += bufs[1][i * cols + c];
    for (int i = 0; i < rows; ++i) ASSERT_EQ(bufs[0][i * cols + c], bufs[1][i * cols + c] / s);
  }
}

}  // namespace
}  // namespace stitch
