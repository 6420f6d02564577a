// The renderer on real linearizer output: kernels described by thread
// graphs, linearized, rendered, compiled and run on random data, compared
// with direct loops in C++.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../common/kernel_spec.h"
#include "codegen/c_compiler.h"
#include "codegen/c_renderer.h"
#include "codegen/kernel_cache.h"
#include "codegen_test_util.h"
#include "common/kernel_math.h"
#include "uops/lane_reduce.h"
#include "uops/linearizer.h"

namespace stitch {
namespace {

using namespace codegentest;

using testing::KernelSpec;
using testing::numel;
using testing::randomGroups;

// out = exp(x - m), m broadcast along the last dim, on random shapes, loop
// groupings and block extents; every thread count gives the same bits.
TEST(LinearizedKernels, BroadcastElementwiseOnRandomShapes) {
  FreshCacheDir cache;
  for (int trial = 0; trial < 12; ++trial) {
    int rank = (int)randInt(1, 4);
    std::vector<int64_t> shape(rank), mshape(rank);
    for (int d = 0; d < rank; ++d) {
      shape[d] = randInt(1, 9);
      mshape[d] = randInt(0, 1) ? shape[d] : 1;
    }
    KernelSpec k(shape, "k" + std::to_string(trial));
    k.output(DType::f32, shape);
    k.input(DType::f32, shape);
    k.input(DType::f32, mshape);
    ThreadGraph& tg = k.tg();
    std::vector<int> iv, mv;
    for (int d = 0; d < rank; ++d) {
      iv.push_back(tg.iterVar(d));
      mv.push_back(mshape[d] == 1 ? tg.constInt(0) : iv.back());
    }
    int x = tg.load(0, DType::f32, tg.flatIndex(iv, shape));
    int m = tg.load(1, DType::f32, tg.flatIndex(mv, mshape));
    tg.store(0, tg.alu(AluOp::Exp, DType::f32, {tg.alu(AluOp::Sub, DType::f32, {x, m})}));
    k.randomBlockLoops(randomGroups(rank));
    SCOPED_TRACE(tg.str());

    KernelUOps uops = linearize(k.kernel);
    auto lib = loadCompiled(renderC({uops}));
    const int64_t n = numel(shape);
    std::vector<float> xs = randomFloats(n, -4, 4), ms = randomFloats(numel(mshape), -4, 4);
    std::vector<float> expected(n);
    for (int64_t flat = 0; flat < n; ++flat) {
      int64_t rest = flat, mflat = 0, mstride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        int64_t i = rest % shape[d];
        rest /= shape[d];
        mflat += (mshape[d] == 1 ? 0 : i) * mstride;
        mstride *= mshape[d];
      }
      expected[flat] = stitch_kexp_f32(xs[flat] - ms[mflat]);  // the kernels' f32 exp
    }
    for (int64_t threads : {1, 2, 5}) {
      std::vector<float> out(n, NAN);
      void* bufs[] = {out.data(), xs.data(), ms.data()};
      lib->function(uops.name)(bufs, nullptr, threads);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], expected[i]) << "element " << i << ", threads " << threads;
    }
  }
}

// out[i] = (f32) sum_j (f64) x[i, j] * p0: a reduction with a parameter.
TEST(LinearizedKernels, ScaledRowSums) {
  FreshCacheDir cache;
  const int64_t rows = randInt(1, 50), cols = randInt(1, 200);
  KernelSpec k({rows}, "row_sums");
  k.output(DType::f32, {rows});
  k.input(DType::f32, {rows, cols});
  k.param(Type::floatT());
  ThreadGraph& tg = k.tg();
  int i = tg.iterVar(0);
  int j = tg.newReduceVar(cols);
  int x = tg.cast(tg.load(0, DType::f32, tg.flatIndex({i, j}, {rows, cols})), DType::f64);
  int sum = tg.reduce(ReduceOp::Sum, DType::f64, x, {j});
  tg.store(0, tg.cast(tg.alu(AluOp::Mul, DType::f64, {sum, tg.param(0, DType::f64)}), DType::f32));
  k.loops({{0}}, randInt(1, rows));

  KernelUOps uops = linearize(k.kernel);
  auto lib = loadCompiled(renderC({uops}));
  std::vector<float> xs = randomFloats(rows * cols, -4, 4), out(rows, NAN);
  const double scale = std::uniform_real_distribution<double>(-2, 2)(rng());
  void* bufs[] = {out.data(), xs.data()};
  StitchScalar params[1];
  params[0].f = scale;
  lib->function("row_sums")(bufs, params, 3);
  // Rows of kMinLaneSplitExtent or more elements sum in reduceLanes(cols)
  // lanes (uops/lane_reduce.h): lane l takes the columns c == l (mod lanes).
  const bool lanes = cols >= kMinLaneSplitExtent;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> lane(lanes ? reduceLanes(cols) : 1, 0.0);
    for (int64_t c = 0; c < cols; ++c) lane[c % (int64_t)lane.size()] += (double)xs[r * cols + c];
    double acc = 0;
    for (double v : lane) acc += v;
    EXPECT_EQ(out[r], (float)(acc * scale)) << "row " << r;
  }
}

// A contiguous elementwise kernel's innermost loop vectorizes.
TEST(LinearizedKernels, ContiguousElementwiseVectorizes) {
  if (!hostCCompiler().isClang) GTEST_SKIP() << "vectorization remarks are read from clang";
  FreshCacheDir cache;
  KernelSpec k({64, 4096}, "scale_add");
  k.output(DType::f32, {64, 4096});
  k.input(DType::f32, {64, 4096});
  k.input(DType::f32, {64, 4096});
  ThreadGraph& tg = k.tg();
  int idx = tg.flatIndex({tg.iterVar(0), tg.iterVar(1)}, {64, 4096});
  int a = tg.load(0, DType::f32, idx), b = tg.load(1, DType::f32, idx);
  tg.store(0, tg.alu(AluOp::Add, DType::f32, {tg.alu(AluOp::Mul, DType::f32, {a, tg.constFloat(3, DType::f32)}), b}));
  k.loops({{0, 1}}, 16384);
  std::string source = renderC({linearize(k.kernel)});
  CompilerRun run = compileWithVectorizeRemarks(cache.path(), source);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find(vectorizedRemark()), std::string::npos) << source << run.output;
}

}  // namespace
}  // namespace stitch
