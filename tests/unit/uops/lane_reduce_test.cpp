// Lane-split reductions in the linearizer (uops/lane_reduce.h): which
// reductions split, the uops they become, and their results by the
// reference executor (uop_eval.h) against the lane-order fold computed
// here, on random extents around the threshold and the lane count.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../common/kernel_spec.h"
#include "uop_eval.h"
#include "uop_test_util.h"
#include "uops/lane_reduce.h"
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

TEST(LaneReduce, WhichReductionsSplit) {
  const int64_t n = kMinLaneSplitExtent;
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {
    EXPECT_TRUE(laneSplits(op, n));
    EXPECT_TRUE(laneSplits(op, 1000));
    EXPECT_FALSE(laneSplits(op, n - 1));  // short: serial
  }
}

// out[i] = (f32) sum_j (f64) x[i, j].
KernelUOps rowSum(int64_t rows, int64_t cols) {
  KernelSpec kb({rows});
  kb.output(DType::f32, {rows});
  kb.input(DType::f32, {rows, cols});
  ThreadGraph& tg = kb.tg();
  int i = tg.iterVar(0), j = tg.newReduceVar(cols);
  int x = tg.cast(tg.load(0, DType::f32, tg.flatIndex({i, j}, {rows, cols})), DType::f64);
  tg.store(0, tg.cast(tg.reduce(ReduceOp::Sum, DType::f64, x, {j}), DType::f32));
  kb.loops({{0}}, randInt(1, rows));
  return linearize(kb.kernel);
}

TEST(LaneReduce, LongSumsAccumulateInLanesInLaneOrder) {
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t rows = randInt(1, 6);
    const int64_t cols = trial < 4 ? kMinLaneSplitExtent - 2 + trial
                         : trial < 6 ? kWideLaneExtent - 5 + trial  // 16 lanes, then 64
                         : trial < 8 ? randInt(kWideLaneExtent, 3000)
                                     : randInt(1, 600);
    SCOPED_TRACE("rows " + std::to_string(rows) + " cols " + std::to_string(cols));
    KernelUOps k = rowSum(rows, cols);
    const UOpGraph& g = k.uops;
    const bool lanes = cols >= kMinLaneSplitExtent;
    std::vector<int> locals = allOf(g, UOpKind::DefineLocal);
    if (lanes) {
      ASSERT_EQ(locals.size(), 1u) << g.str();
      const int64_t width = cols >= kWideLaneExtent ? kWideReduceLanes : kReduceLanes;
      EXPECT_EQ(g.at(locals[0]).ival, width);
      EXPECT_EQ(g.at(locals[0]).dtype, DType::f64);
      // Start, main (outer and lane loop), tail when cols % lanes; a float
      // sum's pairwise combine is one FOLD_LANES of the whole array.
      size_t loops = allOf(g, UOpKind::Loop).size();
      EXPECT_EQ(loops, 1u + 3u + (cols % width ? 1u : 0u)) << g.str();
      std::vector<int> folds = allOf(g, UOpKind::FoldLanes);
      ASSERT_EQ(folds.size(), 1u) << g.str();
      EXPECT_EQ(g.at(folds[0]).src, std::vector<int>{locals[0]});
      EXPECT_EQ(g.at(folds[0]).ival, width);
      // The main lane loop (the one reading the input) folds `unroll`
      // terms per lane per trip: one load of the lane array, `unroll` adds.
      const int64_t outer = cols / width;
      const int64_t unroll = outer <= 4 ? outer : outer % 4 == 0 ? 4 : outer % 2 == 0 ? 2 : 1;
      int laneLoads = -1, adds = 0;
      for (int l : allOf(g, UOpKind::Loop)) {
        if (g.at(g.at(l).src[1]).ival != width) continue;
        int loads = 0, sums = 0, inputs = 0, depth = 0;
        for (int u = l + 1; u < g.size(); ++u) {
          const UOp& x = g.at(u);
          if (x.kind == UOpKind::Loop) ++depth;
          if (x.kind == UOpKind::EndLoop && depth-- == 0) break;
          if (x.kind == UOpKind::Load) (x.src[0] == locals[0] ? loads : inputs) += 1;
          sums += x.kind == UOpKind::Alu && x.alu == AluOp::Add && x.dtype == DType::f64;
        }
        if (inputs == 0) continue;
        laneLoads = loads;
        adds = sums;
        break;
      }
      EXPECT_EQ(laneLoads, 1) << g.str();
      EXPECT_EQ(adds, unroll) << g.str();
    } else {
      EXPECT_TRUE(locals.empty()) << g.str();
    }
    auto bufs = evalUOps(g, {std::vector<double>(rows, NAN), randomF32(rows * cols)});
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> lane(lanes ? reduceLanes(cols) : 1, 0.0);
      for (int64_t c = 0; c < cols; ++c) lane[c % (int64_t)lane.size()] += bufs[1][r * cols + c];
      for (size_t half = lane.size() / 2; half >= 1; half /= 2)  // pairwise, halving
        for (size_t l = 0; l < half; ++l) lane[l] += lane[l + half];
      ASSERT_EQ(bufs[0][r], (double)(float)lane[0]) << "row " << r;
    }
  }
}

// max with NaN anywhere (also in the tail) is NaN; otherwise the maximum.
TEST(LaneReduce, MaxPropagatesNaNFromAnyLaneAndTheTail) {
  const int64_t rows = 4, cols = randInt(kMinLaneSplitExtent, 300);
  KernelSpec kb({rows});
  kb.output(DType::f32, {rows});
  kb.input(DType::f32, {rows, cols});
  ThreadGraph& tg = kb.tg();
  int i = tg.iterVar(0), j = tg.newReduceVar(cols);
  tg.store(0, tg.reduce(ReduceOp::Max, DType::f32, tg.load(0, DType::f32, tg.flatIndex({i, j}, {rows, cols})), {j}));
  kb.loops({{0}}, 1);
  KernelUOps k = linearize(kb.kernel);
  ASSERT_EQ(allOf(k.uops, UOpKind::DefineLocal).size(), 1u) << k.uops.str();
  // max keeps the halving loops (its NaN rule is not a vector add).
  EXPECT_TRUE(allOf(k.uops, UOpKind::FoldLanes).empty()) << k.uops.str();
  std::vector<double> x = randomF32(rows * cols);
  x[0 * cols + randInt(0, cols - 1)] = NAN;  // row 0: anywhere
  x[1 * cols + cols - 1] = NAN;              // row 1: the last element (tail when cols % 16)
  x[2 * cols + 0] = NAN;                     // row 2: lane 0
  auto bufs = evalUOps(k.uops, {std::vector<double>(rows, 0), x});
  for (int64_t r = 0; r < 3; ++r) EXPECT_TRUE(std::isnan(bufs[0][r])) << "row " << r;
  double m = -INFINITY;
  for (int64_t c = 0; c < cols; ++c) m = std::max(m, x[3 * cols + c]);
  EXPECT_EQ(bufs[0][3], m);
}

// A long reduction whose body holds another reduction depending on its
// variable stays serial (the inner one may split); results are exact.
TEST(LaneReduce, NestedReductionKeepsTheOuterSerial) {
  const int64_t rows = 2, a = randInt(kMinLaneSplitExtent, 100), b = randInt(kMinLaneSplitExtent, 90);
  KernelSpec kb({rows});
  kb.output(DType::f32, {rows});
  kb.input(DType::f32, {rows, a, b});
  ThreadGraph& tg = kb.tg();
  int i = tg.iterVar(0), ra = tg.newReduceVar(a), rb = tg.newReduceVar(b);
  int x = tg.load(0, DType::f32, tg.flatIndex({i, ra, rb}, {rows, a, b}));
  int inner = tg.reduce(ReduceOp::Max, DType::f32, x, {rb});
  tg.store(0, tg.cast(tg.reduce(ReduceOp::Sum, DType::f64, tg.cast(inner, DType::f64), {ra}), DType::f32));
  kb.loops({{0}}, 1);
  KernelUOps k = linearize(kb.kernel);
  EXPECT_EQ(allOf(k.uops, UOpKind::DefineLocal).size(), 1u) << k.uops.str();  // the inner max's lanes
  auto bufs = evalUOps(k.uops, {std::vector<double>(rows, NAN), randomF32(rows * a * b)});
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t p = 0; p < a; ++p) {
      double m = -INFINITY;
      for (int64_t q = 0; q < b; ++q) m = std::max(m, bufs[1][(r * a + p) * b + q]);
      s += m;
    }
    EXPECT_EQ(bufs[0][r], (double)(float)s) << "row " << r;
  }
}

}  // namespace
}  // namespace stitch
