// Lane-split reductions (uops/lane_reduce.h) compiled and run: row
// reductions of random shapes, dtypes and NaN placements give exactly the
// lane-order fold computed here, stay within rounding of the interpreter's
// serial reductions, do not depend on the thread count, and a softmax
// kernel's reduce loops vectorize.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <vector>

#include "../common/kernel_spec.h"
#include "codegen/c_renderer.h"
#include "codegen/kernel_cache.h"
#include "codegen_test_util.h"
#include "common/kernel_math.h"
#include "interp/reduce_ops.h"
#include "interp/scalar_math.h"
#include "interp/tensor.h"
#include "uops/lane_reduce.h"
#include "uops/linearizer.h"

namespace stitch {
namespace {

using namespace codegentest;
using testing::KernelSpec;

// One kind of row reduction: op, the input dtype, the accumulator dtype.
struct Config {
  ReduceOp op;
  DType in, acc;
};

// The fold the kernel computes: serial, or lane l folding the elements
// j == l (mod W = reduceLanes(row length)) of every row in order, then the lanes pairwise
// (lane l with lane l + h, for h = W/2 down to 1).
// Values are held in the accumulator's type, as the kernel's.
template <typename A>
A fold(ReduceOp op, const std::vector<A>& values, bool lanes) {
  auto combine = [&](A prev, A v) -> A {
    switch (op) {
      case ReduceOp::Sum: return wrapAdd(prev, v);
      case ReduceOp::Prod: return wrapMul(prev, v);
      case ReduceOp::Max: return maxPropagateNan(v, prev);
      case ReduceOp::Min: return minPropagateNan(v, prev);
    }
    return prev;
  };
  A init = op == ReduceOp::Sum    ? A(0)
           : op == ReduceOp::Prod ? A(1)
           : op == ReduceOp::Max  ? (std::is_floating_point_v<A> ? A(-INFINITY) : A(INT64_MIN))
                                  : (std::is_floating_point_v<A> ? A(INFINITY) : A(INT64_MAX));
  if (!lanes) {
    A acc = init;
    for (A v : values) acc = combine(acc, v);
    return acc;
  }
  const size_t width = (size_t)reduceLanes((int64_t)values.size());
  std::vector<A> lane(width, init);
  for (size_t j = 0; j < values.size(); ++j) lane[j % width] = combine(lane[j % width], values[j]);
  for (size_t half = width / 2; half >= 1; half /= 2)  // pairwise, halving
    for (size_t l = 0; l < half; ++l) lane[l] = combine(lane[l], lane[l + half]);
  A acc = lane[0];
  return acc;
}

// out[r] = reduce over j of x[r, j] (cast to the accumulator), stored in
// the input dtype.
void buildRowReduce(KernelSpec& k, const Config& c, int64_t rows, int64_t cols) {
  k.output(c.in, {rows});
  k.input(c.in, {rows, cols});
  ThreadGraph& tg = k.tg();
  int i = tg.iterVar(0);
  int j = tg.newReduceVar(cols);
  int x = tg.cast(tg.load(0, c.in, tg.flatIndex({i, j}, {rows, cols})), c.acc);
  tg.store(0, tg.cast(tg.reduce(c.op, c.acc, x, {j}), c.in));
  k.loops({{0}}, randInt(1, rows));
}

bool sameBits(const Tensor& a, const Tensor& b, int64_t k) {
  if (isFloating(a.dtype())) {
    double x = a.getDouble(k), y = b.getDouble(k);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return x == y && std::signbit(x) == std::signbit(y);
  }
  return a.getInt(k) == b.getInt(k);
}

// The interpreter's reduction of each row.
Tensor interpreterRows(const Config& c, const Tensor& x) {
  switch (c.op) {
    case ReduceOp::Sum: return reduceSum(x, {-1}, false, std::nullopt);
    case ReduceOp::Prod: return reduceProd(x, -1, false, std::nullopt);
    case ReduceOp::Max: return reduceExtremum(x, Extremum::Max, {-1}, false);
    case ReduceOp::Min: return reduceExtremum(x, Extremum::Min, {-1}, false);
  }
  return x;
}

TEST(LaneReduceKernels, RowReductionsFoldInLaneOrder) {
  FreshCacheDir cache;
  const Config configs[] = {
      {ReduceOp::Sum, DType::f32, DType::f64}, {ReduceOp::Sum, DType::f32, DType::f32},
      {ReduceOp::Prod, DType::f32, DType::f64},
      {ReduceOp::Max, DType::f32, DType::f32}, {ReduceOp::Min, DType::f32, DType::f32},
      {ReduceOp::Max, DType::f64, DType::f64}, {ReduceOp::Sum, DType::f64, DType::f64},
      {ReduceOp::Sum, DType::i32, DType::i64}, {ReduceOp::Sum, DType::i64, DType::i64},
      {ReduceOp::Prod, DType::i64, DType::i64}, {ReduceOp::Min, DType::i64, DType::i64},
  };
  const int64_t colChoices[] = {1, 5, 16, 63, 64, 65, 80, 127, 128, 129, 255, 1000, 1023, 1024, 1025, 1100};
  int trial = 0;
  for (const Config& c : configs) {
    for (int rep = 0; rep < 4; ++rep, ++trial) {
      const int64_t rows = randInt(1, 7);
      const int64_t cols = rep == 3 ? randInt(1, 400) : colChoices[randInt(0, std::size(colChoices) - 1)];
      SCOPED_TRACE(std::string(reduceOpName(c.op)) + " " + dtypeName(c.in) + " -> " + dtypeName(c.acc) +
                   " rows " + std::to_string(rows) + " cols " + std::to_string(cols));
      KernelSpec k({rows}, "rows" + std::to_string(trial));
      buildRowReduce(k, c, rows, cols);
      KernelUOps uops = linearize(k.kernel);
      const std::string source = renderC({uops});
      auto lib = loadCompiled(source);

      Tensor x = Tensor::empty({rows, cols}, c.in);
      const bool fl = isFloating(c.in);
      for (int64_t e = 0; e < rows * cols; ++e) {
        if (!fl) {
          bool big = c.op == ReduceOp::Sum && c.in == DType::i64 && randInt(0, 3) == 0;
          x.setInt(e, big ? (int64_t)rng()() : randInt(c.op == ReduceOp::Prod ? -3 : -1000, c.op == ReduceOp::Prod ? 3 : 1000));
        } else if (c.op == ReduceOp::Prod) {
          x.setDouble(e, std::uniform_real_distribution<double>(0.9, 1.1)(rng()));
        } else {
          double v = std::uniform_real_distribution<double>(-100, 100)(rng());
          // Sums of a wide range of magnitudes round differently in every
          // other order.
          if (c.op == ReduceOp::Sum) v = std::ldexp(v, (int)randInt(-12, 12));
          // About one special value in every other row: rows without one
          // check the order of the fold.
          int special = (int)randInt(0, 2 * cols);
          if (special == 0) v = NAN;
          if (special == 1) v = -0.0;
          if (special == 2) v = 0.0;
          if (special == 3) v = c.op == ReduceOp::Min ? -INFINITY : INFINITY;
          x.setDouble(e, v);
        }
      }
      const bool lanes = laneSplits(c.op, cols);
      Tensor expected = Tensor::empty({rows}, c.in);
      for (int64_t r = 0; r < rows; ++r) {
        if (c.acc == DType::f32) {  // float32 accumulated in float32
          std::vector<float> row;
          for (int64_t j = 0; j < cols; ++j) row.push_back((float)x.getDouble(r * cols + j));
          expected.setDouble(r, fold(c.op, row, lanes));
        } else if (isFloating(c.acc)) {
          std::vector<double> row;
          for (int64_t j = 0; j < cols; ++j) row.push_back(x.getDouble(r * cols + j));
          double v = fold(c.op, row, lanes);
          expected.setDouble(r, c.in == DType::f32 ? (double)(float)v : v);
        } else {
          std::vector<int64_t> row;
          for (int64_t j = 0; j < cols; ++j) row.push_back(x.getInt(r * cols + j));
          expected.setInt(r, fold(c.op, row, lanes));
        }
      }
      Tensor serial = interpreterRows(c, x);
      for (int64_t threads : {1, 3}) {
        Tensor out = Tensor::empty({rows}, c.in);
        void* bufs[] = {out.rawData(), x.rawData()};
        lib->function(uops.name)(bufs, nullptr, threads);
        for (int64_t r = 0; r < rows; ++r) {
          ASSERT_TRUE(sameBits(out, expected, r))
              << "row " << r << ": kernel " << out.getDouble(r) << ", lane-order fold " << expected.getDouble(r)
              << ", threads " << threads << "\n" << source;
          // The interpreter folds serially: equal up to the result's rounding
          // and the accumulator's, which scales with the terms summed.
          double got = out.getDouble(r), want = serial.getDouble(r);
          if (std::isnan(want) || std::isinf(want)) {
            EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << "row " << r << ": " << got;
          } else if (fl) {
            double terms = 0;
            for (int64_t j = 0; j < cols; ++j) terms += std::fabs(x.getDouble(r * cols + j));
            double unit = c.acc == DType::f32 ? 0x1p-23 : 0x1p-52;
            double reorder = c.op == ReduceOp::Sum ? (double)cols * unit * terms : 0;
            EXPECT_NEAR(got, want, std::fabs(want) * (c.in == DType::f32 ? 1.2e-7 : 1e-15) + reorder)
                << "row " << r;
          } else {
            EXPECT_EQ(out.getInt(r), serial.getInt(r)) << "row " << r;
          }
        }
      }
    }
  }
}

// Several reduce variables: lanes split the innermost one, under the
// serial outer loop.
TEST(LaneReduceKernels, InnermostOfSeveralReduceVariables) {
  FreshCacheDir cache;
  for (int trial = 0; trial < 4; ++trial) {
    const int64_t rows = randInt(1, 4), a = randInt(1, 5), b = randInt(0, 1) ? randInt(64, 300) : randInt(1024, 1300);
    KernelSpec k({rows}, "sum2_" + std::to_string(trial));
    k.output(DType::f32, {rows});
    k.input(DType::f32, {rows, a, b});
    ThreadGraph& tg = k.tg();
    int i = tg.iterVar(0), ra = tg.newReduceVar(a), rb = tg.newReduceVar(b);
    int x = tg.cast(tg.load(0, DType::f32, tg.flatIndex({i, ra, rb}, {rows, a, b})), DType::f64);
    tg.store(0, tg.cast(tg.reduce(ReduceOp::Sum, DType::f64, x, {ra, rb}), DType::f32));
    k.loops({{0}}, 1);
    KernelUOps uops = linearize(k.kernel);
    auto lib = loadCompiled(renderC({uops}));
    std::vector<float> xs = randomFloats(rows * a * b, -10, 10), out(rows, NAN);
    void* bufs[] = {out.data(), xs.data()};
    lib->function(uops.name)(bufs, nullptr, 2);
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> lane(reduceLanes(b), 0.0);
      double serial = 0;
      for (int64_t p = 0; p < a; ++p)
        for (int64_t q = 0; q < b; ++q) {
          double v = xs[(r * a + p) * b + q];
          lane[q % (int64_t)lane.size()] += v;
          serial += v;
        }
      double acc = 0;
      for (double v : lane) acc += v;
      EXPECT_EQ(out[r], (float)acc) << "row " << r;
      EXPECT_NEAR(out[r], serial, std::fabs(serial) * 1.2e-7 + 1e-30) << "row " << r;
    }
  }
}

// A short dot product (64 terms: 16 lanes of 4 terms each) is one trip of
// the lane loop folding every term of a lane; clang vectorizes that loop
// too, so the lane array is loaded and stored once per output.
TEST(LaneReduceKernels, ShortDotIsOneVectorizedLaneTrip) {
  if (!hostCCompiler().isClang) GTEST_SKIP() << "vectorization remarks need clang";
  FreshCacheDir cache;
  for (int64_t depth : {kMinLaneSplitExtent}) {
    SCOPED_TRACE("k = " + std::to_string(depth));
    const int64_t rows = 4, cols = 32;
    KernelSpec k({rows, cols}, "dot" + std::to_string(depth));
    k.output(DType::f32, {rows, cols});
    k.input(DType::f32, {rows, depth});
    k.input(DType::f32, {cols, depth});
    ThreadGraph& tg = k.tg();
    int i = tg.iterVar(0), j = tg.iterVar(1), r = tg.newReduceVar(depth);
    int x = tg.load(0, DType::f32, tg.flatIndex({i, r}, {rows, depth}));
    int w = tg.load(1, DType::f32, tg.flatIndex({j, r}, {cols, depth}));
    tg.store(0, tg.reduce(ReduceOp::Sum, DType::f32, tg.alu(AluOp::Mul, DType::f32, {x, w}), {r}));
    k.loops({{0}, {1}}, 2);
    KernelUOps uops = linearize(k.kernel);
    // One lane loop reading the inputs, inside a loop of one trip.
    int laneLoops = 0;
    for (int l = 1; l < uops.uops.size(); ++l) {
      const UOp& loop = uops.uops.at(l);
      if (loop.kind != UOpKind::Loop) continue;
      if (uops.uops.at(loop.src[1]).kind != UOpKind::Const || uops.uops.at(loop.src[1]).ival != 16) continue;
      const UOp& outer = uops.uops.at(l - 1);
      if (outer.kind != UOpKind::Loop) continue;
      ++laneLoops;
      EXPECT_EQ(uops.uops.at(outer.src[1]).ival - uops.uops.at(outer.src[0]).ival, 1) << uops.uops.str();
    }
    EXPECT_EQ(laneLoops, 1) << uops.uops.str();
    const std::string source = renderC({uops});
    CompilerRun run = compileWithVectorizeRemarks(cache.path(), source);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    std::vector<std::string> lines;
    for (size_t b = 0, e; b < source.size(); b = e + 1) {
      e = source.find('\n', b);
      if (e == std::string::npos) e = source.size();
      lines.push_back(source.substr(b, e - b));
    }
    std::set<int> vectorized;
    for (size_t p = run.output.find(vectorizedRemark()); p != std::string::npos;
         p = run.output.find(vectorizedRemark(), p + 1)) {
      size_t colon = run.output.rfind(".c:", p);
      if (colon != std::string::npos) vectorized.insert(std::atoi(run.output.c_str() + colon + 3));
    }
    int checked = 0;
    for (size_t l = 0; l + 1 < lines.size(); ++l) {
      if (lines[l].find("for (") == std::string::npos || lines[l].find(" < 16;") == std::string::npos) continue;
      if (lines[l + 1].find("= local") == std::string::npos) continue;  // the init loop stores; this one loads
      ++checked;
      EXPECT_TRUE(vectorized.count((int)l + 1)) << "not vectorized: " << lines[l] << "\n" << source << run.output;
    }
    EXPECT_EQ(checked, 1) << source;
  }
}

// softmax over rows (as the lowering writes it): max, sum of exp in double,
// then exp(x - max) / sum. The reduce loops and the output loop vectorize
// (no libm call is left in them), and the result is the lane-order one.
TEST(LaneReduceKernels, SoftmaxLoopsVectorize) {
  FreshCacheDir cache;
  const int64_t rows = 64, cols = 1000;
  KernelSpec k({rows, cols}, "softmax");
  k.output(DType::f32, {rows, cols});
  k.input(DType::f32, {rows, cols});
  ThreadGraph& tg = k.tg();
  int i = tg.iterVar(0), j = tg.iterVar(1);
  int r1 = tg.newReduceVar(cols), r2 = tg.newReduceVar(cols);
  int m = tg.reduce(ReduceOp::Max, DType::f32, tg.load(0, DType::f32, tg.flatIndex({i, r1}, {rows, cols})), {r1});
  int x2 = tg.load(0, DType::f32, tg.flatIndex({i, r2}, {rows, cols}));
  int e2 = tg.alu(AluOp::Exp, DType::f32, {tg.alu(AluOp::Sub, DType::f32, {x2, m})});
  int s = tg.reduce(ReduceOp::Sum, DType::f64, tg.cast(e2, DType::f64), {r2});
  int xi = tg.load(0, DType::f32, tg.flatIndex({i, j}, {rows, cols}));
  int e = tg.cast(tg.alu(AluOp::Exp, DType::f32, {tg.alu(AluOp::Sub, DType::f32, {xi, m})}), DType::f64);
  int scale = tg.alu(AluOp::Div, DType::f64, {tg.constFloat(1.0, DType::f64), s});
  tg.store(0, tg.cast(tg.alu(AluOp::Mul, DType::f64, {e, scale}), DType::f32));
  k.loops({{0}, {1}}, 4);
  KernelUOps uops = linearize(k.kernel);
  const std::string source = renderC({uops});
  EXPECT_EQ(source.find("expf("), std::string::npos) << source;

  if (hostCCompiler().isClang) {
    CompilerRun run = compileWithVectorizeRemarks(cache.path(), source);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    // Source lines of the loops clang reports vectorized ("vectorize.c:LINE:").
    std::set<int> vectorized;
    for (size_t p = run.output.find(vectorizedRemark()); p != std::string::npos;
         p = run.output.find(vectorizedRemark(), p + 1)) {
      size_t colon = run.output.rfind(".c:", p);
      if (colon != std::string::npos) vectorized.insert(std::atoi(run.output.c_str() + colon + 3));
    }
    // The lane loops of the max and the sum (a loop over the 16 lanes that
    // reads the input) and the output loop over the 1000 columns.
    std::vector<std::string> lines;
    for (size_t b = 0, e; b < source.size(); b = e + 1) {
      e = source.find('\n', b);
      if (e == std::string::npos) e = source.size();
      lines.push_back(source.substr(b, e - b));
    }
    int laneLoops = 0, outputLoops = 0;
    for (size_t l = 0; l + 8 < lines.size(); ++l) {
      if (lines[l].find("for (") == std::string::npos) continue;
      bool readsInput = false;  // within the loop's first lines (the lane array's load, the index)
      for (size_t k = l + 1; k <= l + 8 && lines[k].find("for (") == std::string::npos; ++k)
        readsInput |= lines[k].find("data1[") != std::string::npos;
      bool lanesLoop = lines[l].find(" < 16;") != std::string::npos && readsInput;
      bool outputLoop = lines[l].find(" < 1000;") != std::string::npos;
      if (!lanesLoop && !outputLoop) continue;
      EXPECT_TRUE(vectorized.count((int)l + 1)) << "not vectorized: " << lines[l] << "\n" << source << run.output;
      (lanesLoop ? laneLoops : outputLoops) += 1;
    }
    EXPECT_EQ(laneLoops, 2) << source;
    EXPECT_EQ(outputLoops, 1) << source;
  }

  auto lib = loadCompiled(source);
  std::vector<float> xs = randomFloats(rows * cols, -20, 20), out(rows * cols, NAN);
  void* bufs[] = {out.data(), xs.data()};
  lib->function("softmax")(bufs, nullptr, 2);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> row, exps;
    for (int64_t c = 0; c < cols; ++c) row.push_back(xs[r * cols + c]);
    float mx = (float)fold(ReduceOp::Max, row, true);
    for (int64_t c = 0; c < cols; ++c) exps.push_back(stitch_kexp_f32(xs[r * cols + c] - mx));
    double scaleRef = 1.0 / fold(ReduceOp::Sum, exps, true);
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_EQ(out[r * cols + c], (float)((double)stitch_kexp_f32(xs[r * cols + c] - mx) * scaleRef))
          << "row " << r << " col " << c;
  }
}

}  // namespace
}  // namespace stitch
