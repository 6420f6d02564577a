// renderC: kernels built from uops by hand, rendered, compiled and run.
#include "codegen/c_renderer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "codegen/c_compiler.h"
#include "codegen/kernel_cache.h"
#include "codegen_test_util.h"
#include "column_kernel.h"
#include "common/error.h"
#include "common/kernel_math.h"
#include "kernel_builder.h"
#include "../common/kernel_spec.h"
#include "ugraph/block_graph_builder.h"
#include "uops/linearizer.h"

namespace stitch {
namespace {

using namespace codegentest;

// out[i] = a[i] + b[i] over n f32 elements: a grid of blocks of `block`
// elements, each a loop over [gidx0*block, min(gidx0*block + block, n)).
KernelUOps elementwiseAdd(const std::string& name, int64_t n, int64_t block) {
  KernelBuilder b(name);
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int y = b.global(2, DType::f32, false);
  int g = b.special("gidx0", (n + block - 1) / block);
  int start = b.alu(AluOp::Mul, DType::i64, {g, b.i64(block)});
  int end = b.alu(AluOp::Min, DType::i64, {b.alu(AluOp::Add, DType::i64, {start, b.i64(block)}), b.i64(n)});
  int i = b.loop(start, end);
  int sum = b.alu(AluOp::Add, DType::f32, {b.load(x, i), b.load(y, i)});
  b.store(out, i, sum);
  b.endLoop(i);
  return b.kernel();
}

TEST(CRenderer, ElementwiseAddWithGridAndLoop) {
  FreshCacheDir cache;
  const int64_t n = 1000 + (int64_t)(rng()() % 5000), block = 256;
  auto lib = loadCompiled(renderC({elementwiseAdd("add_f32", n, block)}));
  std::vector<float> a = randomFloats(n, -100, 100), b = randomFloats(n, -100, 100);
  for (int64_t threads : {1, 3}) {
    std::vector<float> out(n, NAN);
    void* bufs[] = {out.data(), a.data(), b.data()};
    lib->function("add_f32")(bufs, nullptr, threads);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << "element " << i << ", threads " << threads;
  }
}

// The C compiler vectorizes the innermost loop of an elementwise kernel.
TEST(CRenderer, ElementwiseInnerLoopVectorizes) {
  FreshCacheDir cache;
  CompilerRun run = compileWithVectorizeRemarks(cache.path(), renderC({elementwiseAdd("add_f32", 100000, 4096)}));
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find(vectorizedRemark()), std::string::npos) << run.output;
}

// out[i] = op(x[i]) over rows of `cols` f32 elements, one row per block.
KernelUOps unaryRows(const std::string& name, AluOp op, int64_t rows, int64_t cols) {
  KernelBuilder b(name);
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int g = b.special("gidx0", rows);
  int c = b.loop(b.i64(0), b.i64(cols));
  int i = b.alu(AluOp::Add, DType::i64, {b.alu(AluOp::Mul, DType::i64, {g, b.i64(cols)}), c});
  b.store(out, i, b.alu(op, DType::f32, {b.load(x, i)}));
  b.endLoop(c);
  return b.kernel();
}

// A long row of exp asks the compiler to interleave vector iterations (a
// chain of dependent operations per element); a short row, or a cheap op,
// does not. The values are the prelude's exp, whatever the interleaving.
TEST(CRenderer, LongChainsOfDependentOpsInterleave) {
  FreshCacheDir cache;
  const std::string interleave = "#pragma clang loop interleave_count(";
  const std::string longExp = renderC({unaryRows("exp_long", AluOp::Exp, 3, 4096)});
  EXPECT_NE(longExp.find(interleave + "4)"), std::string::npos) << longExp;
  EXPECT_NE(renderC({unaryRows("exp_mid", AluOp::Exp, 3, 100)}).find(interleave + "2)"), std::string::npos);
  EXPECT_EQ(renderC({unaryRows("exp_short", AluOp::Exp, 3, 40)}).find(interleave), std::string::npos);
  EXPECT_EQ(renderC({unaryRows("neg_long", AluOp::Neg, 3, 4096)}).find(interleave), std::string::npos);
  if (hostCCompiler().isClang) {
    CompilerRun run = compileWithVectorizeRemarks(cache.path(), longExp);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_NE(run.output.find("interleaved count: 4"), std::string::npos) << run.output;
  }
  auto lib = loadCompiled(longExp);
  std::vector<float> in = randomFloats(3 * 4096, -110, 95), out(3 * 4096, NAN);
  void* bufs[] = {out.data(), in.data()};
  lib->function("exp_long")(bufs, nullptr, 2);
  for (size_t k = 0; k < in.size(); ++k) ASSERT_EQ(out[k], stitch_kexp_f32(in[k])) << "x = " << in[k];
}

// A short row of exp whose length is not a multiple of 16 lanes runs its
// last, partial vector masked rather than element by element; a row of
// whole vectors, a long (interleaved) row or a cheap op does not ask for
// it. The values are the prelude's exp either way.
TEST(CRenderer, ShortChainsFoldTheirTail) {
  FreshCacheDir cache;
  const std::string fold = "#pragma clang loop vectorize_predicate(enable)";
  const std::string shortExp = renderC({unaryRows("exp_40", AluOp::Exp, 5, 40)});
  EXPECT_NE(shortExp.find(fold), std::string::npos) << shortExp;
  EXPECT_EQ(renderC({unaryRows("exp_48", AluOp::Exp, 5, 48)}).find(fold), std::string::npos);
  EXPECT_EQ(renderC({unaryRows("exp_100", AluOp::Exp, 5, 100)}).find(fold), std::string::npos);
  EXPECT_EQ(renderC({unaryRows("neg_40", AluOp::Neg, 5, 40)}).find(fold), std::string::npos);
  auto lib = loadCompiled(shortExp);
  std::vector<float> in = randomFloats(5 * 40, -110, 95), out(5 * 40, NAN);
  void* bufs[] = {out.data(), in.data()};
  lib->function("exp_40")(bufs, nullptr, 2);
  for (size_t k = 0; k < in.size(); ++k) ASSERT_EQ(out[k], stitch_kexp_f32(in[k])) << "x = " << in[k];
}

// Rows of `cols` f32 elements, `rowsPerBlock` to a grid block: a first pass
// copies the row of x into out1, a second writes exp(x) into out0 -- the
// shape of softmax's max and exp passes, both reading the row of x.
KernelUOps twoPassRows(const std::string& name, int64_t blocks, int64_t rowsPerBlock, int64_t cols) {
  KernelBuilder b(name);
  int out0 = b.global(0, DType::f32, true);
  int out1 = b.global(1, DType::f32, true);
  int x = b.global(2, DType::f32, false);
  int g = b.special("gidx0", blocks);
  int first = b.alu(AluOp::Mul, DType::i64, {g, b.i64(rowsPerBlock)});
  int r = b.loop(first, b.alu(AluOp::Add, DType::i64, {first, b.i64(rowsPerBlock)}));
  int row = b.alu(AluOp::Mul, DType::i64, {r, b.i64(cols)});
  int c1 = b.loop(b.i64(0), b.i64(cols));
  int i1 = b.alu(AluOp::Add, DType::i64, {row, c1});
  b.store(out1, i1, b.load(x, i1));
  b.endLoop(c1);
  int c2 = b.loop(b.i64(0), b.i64(cols));
  int i2 = b.alu(AluOp::Add, DType::i64, {row, c2});
  b.store(out0, i2, b.alu(AluOp::Exp, DType::f32, {b.load(x, i2)}));
  b.endLoop(c2);
  b.endLoop(r);
  return b.kernel();
}

// A second pass over a row that spans more than a core's L2 share asks for
// the next row of the input it reads, chunk by chunk (codegen/row_prefetch.h):
// not for the first pass, nor for buffers the kernel writes, nor for rows
// that stay in cache. Rows that are whole chunks and rows with a partial
// last chunk compute the same values as without, and write nothing past
// the row (a guard after the output stays untouched).
TEST(CRenderer, SecondPassesOverLongRowsPrefetchTheNextRow) {
  FreshCacheDir cache;
  const std::string prefetch = "__builtin_prefetch(";
  EXPECT_EQ(renderC({twoPassRows("small", 2, 4, 1024)}).find(prefetch), std::string::npos);
  for (int64_t cols : {4096, 7000}) {
    const int64_t blocks = 20, rowsPerBlock = 4, n = blocks * rowsPerBlock * cols, guard = 512;  // 1.3 MB and more
    const std::string source = renderC({twoPassRows("rows", blocks, rowsPerBlock, cols)});
    const size_t at = source.find(prefetch);
    ASSERT_NE(at, std::string::npos) << source;
    EXPECT_EQ(source.find(prefetch, at + 1), std::string::npos) << source;  // the second pass, x only
    EXPECT_NE(source.find("&data2[", at), std::string::npos) << source;
    auto lib = loadCompiled(source);
    std::vector<float> x = randomFloats(n, -90, 80);
    for (int64_t threads : {1, 3}) {
      std::vector<float> out0(n + guard, NAN), out1(n + guard, NAN);
      void* bufs[] = {out0.data(), out1.data(), x.data()};
      lib->function("rows")(bufs, nullptr, threads);
      for (int64_t k = 0; k < n; ++k) {
        ASSERT_EQ(out0[k], stitch_kexp_f32(x[k])) << "cols " << cols << ", element " << k;
        ASSERT_EQ(out1[k], x[k]) << "cols " << cols << ", element " << k;
      }
      for (int64_t k = n; k < n + guard; ++k) ASSERT_TRUE(std::isnan(out0[k]) && std::isnan(out1[k])) << k;
    }
  }
}

// out[r] = (f32) sum over c of (f64) x[r, c]: an accumulator per grid block.
TEST(CRenderer, SumReductionWithAccumulator) {
  FreshCacheDir cache;
  const int64_t rows = 1 + (int64_t)(rng()() % 40), cols = 1 + (int64_t)(rng()() % 300);
  KernelBuilder b("row_sum");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int r = b.special("gidx0", rows);
  int acc = b.acc(DType::f64, b.constant(0.0, DType::f64));
  int c = b.loop(b.i64(0), b.i64(cols));
  int index = b.alu(AluOp::Add, DType::i64, {b.alu(AluOp::Mul, DType::i64, {r, b.i64(cols)}), c});
  int value = b.cast(b.load(x, index), DType::f64);
  int sum = b.alu(AluOp::Add, DType::f64, {acc, value});
  int total = b.phi(acc, sum, c);
  b.endLoop(c);
  b.store(out, r, b.cast(total, DType::f32));

  auto lib = loadCompiled(renderC({b.kernel()}));
  std::vector<float> in = randomFloats(rows * cols, -100, 100), result(rows, NAN);
  void* bufs[] = {result.data(), in.data()};
  lib->function("row_sum")(bufs, nullptr, 2);
  for (int64_t row = 0; row < rows; ++row) {
    double expected = 0;
    for (int64_t col = 0; col < cols; ++col) expected += (double)in[row * cols + col];
    EXPECT_EQ(result[row], (float)expected) << "row " << row;
  }
}

// Scalar parameters of each kind, and an IF guarding a store.
TEST(CRenderer, ParametersAndGuardedStores) {
  FreshCacheDir cache;
  KernelBuilder b("scaled_where");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int scale = b.var(0, DType::f64);
  int limit = b.var(1, DType::i64);
  int enabled = b.var(2, DType::b8);
  int i = b.loop(b.i64(0), b.i64(64));
  int guard = b.alu(AluOp::LogicalAnd, DType::b8, {enabled, b.alu(AluOp::CmpLT, DType::b8, {i, limit})});
  int ifId = b.ifOpen(guard);
  b.store(out, i, b.alu(AluOp::Mul, DType::f32, {b.load(x, i), b.cast(scale, DType::f32)}));
  b.endIf(ifId);
  b.endLoop(i);

  auto lib = loadCompiled(renderC({b.kernel()}));
  std::vector<float> in = randomFloats(64, -100, 100);
  const double s = std::uniform_real_distribution<double>(-3, 3)(rng());
  const int64_t lim = (int64_t)(rng()() % 64);
  for (bool on : {true, false}) {
    std::vector<float> result(64, -1.f);
    void* bufs[] = {result.data(), in.data()};
    StitchScalar params[3];
    params[0].f = s;
    params[1].i = lim;
    params[2].i = on;
    lib->function("scaled_where")(bufs, params, 1);
    for (int64_t k = 0; k < 64; ++k) {
      float expected = on && k < lim ? in[k] * (float)s : -1.f;
      EXPECT_EQ(result[k], expected) << "element " << k;
    }
  }
}

TEST(CRenderer, SeveralKernelsInOneTranslationUnit) {
  FreshCacheDir cache;
  const int64_t n = 500 + (int64_t)(rng()() % 500);
  auto lib = loadCompiled(renderC({elementwiseAdd("first", n, 64), elementwiseAdd("second", n, 1000)}));
  std::vector<float> a = randomFloats(n, -100, 100), b = randomFloats(n, -100, 100);
  for (const char* name : {"first", "second"}) {
    std::vector<float> out(n, NAN);
    void* bufs[] = {out.data(), a.data(), b.data()};
    lib->function(name)(bufs, nullptr, 4);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << name << " element " << i;
  }
}

TEST(CRenderer, GoldenTextOfATinyKernel) {
  KernelBuilder b("relu_scale");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int g = b.special("gidx0", 4);
  int start = b.alu(AluOp::Mul, DType::i64, {g, b.i64(8)});
  int i = b.loop(start, b.alu(AluOp::Add, DType::i64, {start, b.i64(8)}));
  int v = b.alu(AluOp::Max, DType::f32, {b.load(x, i), b.constant(0.0, DType::f32)});
  b.store(out, i, b.alu(AluOp::Mul, DType::f32, {v, b.constant(-0.5, DType::f32)}));
  b.endLoop(i);
  const std::string expected = R"(#include <stdint.h>
typedef union { int64_t i; double f; } stitch_scalar;
#include <math.h>
typedef void (*stitch_block_range)(void* const* bufs, const stitch_scalar* params, int64_t begin, int64_t end);
typedef void (*stitch_parallel_blocks)(stitch_block_range body, void* const* bufs,
                                       const stitch_scalar* params, int64_t count, int64_t threads);
static stitch_parallel_blocks stitch_parallel = 0;
void stitch_set_parallel(stitch_parallel_blocks fn) { stitch_parallel = fn; }
static void stitch_run_blocks(stitch_block_range body, void* const* bufs, const stitch_scalar* params,
                              int64_t count, int64_t threads) {
  if (stitch_parallel && threads > 1 && count > 1) stitch_parallel(body, bufs, params, count, threads);
  else if (count > 0) body(bufs, params, 0, count);
}

static inline float stitch_max_f32(float a, float b) { return a != a || b != b ? a + b : a > b ? a : b; }

void relu_scale_blocks(void* const* bufs, const stitch_scalar* params, int64_t block_begin, int64_t block_end) {
  float* restrict data0 = (float*)bufs[0];
  const float* restrict data1 = (const float*)bufs[1];
  for (int64_t gidx0 = block_begin; gidx0 < block_end; ++gidx0) {
    const int64_t v4 = (int64_t)((uint64_t)gidx0 * (uint64_t)8);
    const int64_t v5 = (int64_t)((uint64_t)v4 + (uint64_t)8);
    for (int64_t loop6 = v4; loop6 < v5; ++loop6) {
      const float v7 = data1[loop6];
      const float v9 = stitch_max_f32(v7, 0.0f);
      const float v11 = v9 * (-0.5f);
      data0[loop6] = v11;
    }
  }
}
void relu_scale(void* const* bufs, const stitch_scalar* params, int64_t threads) {
  stitch_run_blocks(relu_scale_blocks, bufs, params, 4, threads);
}
)";
  EXPECT_EQ(renderC({b.kernel()}), expected);
}

// Helpers and the parallel glue appear only when some kernel needs them,
// each helper once however often it is used.
TEST(CRenderer, PreludeHoldsOnlyWhatKernelsUse) {
  KernelBuilder plain("plain");
  int out = plain.global(0, DType::f64, true);
  int x = plain.global(1, DType::f64, false);
  int i = plain.loop(plain.i64(0), plain.i64(16));
  plain.store(out, i, plain.alu(AluOp::Mul, DType::f64, {plain.load(x, i), plain.load(x, i)}));
  plain.endLoop(i);
  std::string text = renderC({plain.kernel()});
  EXPECT_EQ(text.find("static inline"), std::string::npos) << text;
  EXPECT_EQ(text.find("stitch_run_blocks"), std::string::npos) << text;

  KernelBuilder helpers("helpers");
  out = helpers.global(0, DType::f32, true);
  x = helpers.global(1, DType::f32, false);
  helpers.special("gidx0", 2);
  i = helpers.loop(helpers.i64(0), helpers.i64(16));
  int v = helpers.load(x, i);
  int a = helpers.alu(AluOp::Silu, DType::f32, {v});
  int b = helpers.alu(AluOp::Silu, DType::f32, {helpers.alu(AluOp::Neg, DType::f32, {v})});
  helpers.store(out, i, helpers.alu(AluOp::FloorDiv, DType::f32, {a, b}));
  helpers.endLoop(i);
  text = renderC({plain.kernel(), helpers.kernel()});
  auto count = [&](const std::string& needle) {
    int n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("static inline float stitch_ksilu_f32("), 1) << text;  // kernel_math.h, once
  EXPECT_EQ(count("static inline float stitch_ksigmoid_f32("), 1) << text;
  EXPECT_EQ(count("static inline float stitch_floordiv_f32("), 1) << text;
  EXPECT_EQ(count("static void stitch_run_blocks("), 1) << text;
  EXPECT_EQ(count("_f64("), 0) << text;  // no helper for a dtype nobody used
}

TEST(CRenderer, ConstantsAreExact) {
  FreshCacheDir cache;
  const std::vector<double> values = {0.1, -0.0, 1e-45, 3.4028234663852886e38, 1.0 / 3.0, -2.5e-300,
                                      INFINITY, -INFINITY, NAN, std::ldexp(1.0, -1074)};
  for (DType dtype : {DType::f32, DType::f64}) {
    KernelBuilder b("constants");
    int out = b.global(0, dtype, true);
    for (size_t k = 0; k < values.size(); ++k) b.store(out, b.i64((int64_t)k), b.constant(values[k], dtype));
    auto lib = loadCompiled(renderC({b.kernel()}));
    std::vector<double> got(values.size());
    std::vector<float> got32(values.size());
    void* bufs[] = {dtype == DType::f32 ? (void*)got32.data() : (void*)got.data()};
    lib->function("constants")(bufs, nullptr, 1);
    for (size_t k = 0; k < values.size(); ++k) {
      double want = dtype == DType::f32 ? (double)(float)values[k] : values[k];
      double have = dtype == DType::f32 ? (double)got32[k] : got[k];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(have));
      } else {
        EXPECT_EQ(have, want) << dtypeName(dtype) << " constant " << k;
        EXPECT_EQ(std::signbit(have), std::signbit(want)) << dtypeName(dtype) << " constant " << k;
      }
    }
  }
  // Integer extremes.
  KernelBuilder b("int_constants");
  int out64 = b.global(0, DType::i64, true);
  int out32 = b.global(1, DType::i32, true);
  const std::vector<int64_t> ints = {INT64_MIN, INT64_MAX, -1, (int64_t)INT32_MIN - 1, 1LL << 40};
  for (size_t k = 0; k < ints.size(); ++k) b.store(out64, b.i64((int64_t)k), b.g().constInt(ints[k], DType::i64));
  b.store(out32, b.i64(0), b.g().constInt(INT32_MIN, DType::i32));
  b.store(out32, b.i64(1), b.g().constInt(INT32_MAX, DType::i32));
  auto lib = loadCompiled(renderC({b.kernel()}));
  std::vector<int64_t> got64(ints.size());
  std::vector<int32_t> got32(2);
  void* bufs[] = {got64.data(), got32.data()};
  lib->function("int_constants")(bufs, nullptr, 1);
  EXPECT_EQ(got64, ints);
  EXPECT_EQ(got32, (std::vector<int32_t>{INT32_MIN, INT32_MAX}));
}

// A block-local buffer: each block of 8 elements is staged and written
// back reversed; a second grid dimension repeats it per row.
TEST(CRenderer, BlockLocalBufferAndNestedGrid) {
  FreshCacheDir cache;
  const int64_t rows = 1 + (int64_t)(rng()() % 5), blocks = 1 + (int64_t)(rng()() % 20), n = blocks * 8;
  KernelBuilder b("reverse_blocks");
  int out = b.global(0, DType::i32, true);
  int x = b.global(1, DType::i32, false);
  int r = b.special("gidx0", rows);
  int g = b.special("gidx1", blocks);
  UOp localDef;
  localDef.kind = UOpKind::DefineLocal;
  localDef.dtype = DType::i32;
  localDef.ival = 8;
  localDef.name = "stage";
  int local = b.g().add(localDef, false);
  int base = b.alu(AluOp::Add, DType::i64, {b.alu(AluOp::Mul, DType::i64, {r, b.i64(n)}),
                                             b.alu(AluOp::Mul, DType::i64, {g, b.i64(8)})});
  int k = b.loop(b.i64(0), b.i64(8));
  b.store(local, k, b.load(x, b.alu(AluOp::Add, DType::i64, {base, k})));
  b.endLoop(k);
  int k2 = b.loop(b.i64(0), b.i64(8));
  int mirrored = b.load(local, b.alu(AluOp::Sub, DType::i64, {b.i64(7), k2}));
  b.store(out, b.alu(AluOp::Add, DType::i64, {base, k2}), mirrored);
  b.endLoop(k2);

  auto lib = loadCompiled(renderC({b.kernel()}));
  std::vector<int32_t> in(rows * n), result(rows * n, -1);
  for (int32_t& v : in) v = (int32_t)rng()();
  void* bufs[] = {result.data(), in.data()};
  lib->function("reverse_blocks")(bufs, nullptr, 3);
  for (int64_t e = 0; e < rows * n; ++e)
    ASSERT_EQ(result[e], in[e - e % 8 + (7 - e % 8)]) << "element " << e;
}

// Buffers above the stack limit live in the per-thread scratch arena at
// their offsets: two of them, one block each, staged and written back
// (the second reversed) by several threads.
TEST(CRenderer, LargeBlockLocalBuffersLiveInTheArena) {
  FreshCacheDir cache;
  const int64_t chunk = 20000 + (int64_t)(rng()() % 1000), blocks = 2 + (int64_t)(rng()() % 5), n = blocks * chunk;
  KernelBuilder b("arena_blocks");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int g = b.special("gidx0", blocks);
  auto local = [&](const char* name, int64_t offset) {
    UOp def = makeUOp(UOpKind::DefineLocal, DType::f32);
    def.ival = chunk;
    def.arg = offset;
    def.name = name;
    return b.g().add(def, false);
  };
  int first = local("stage", 0), second = local("mirror", chunk * 4);
  int base = b.alu(AluOp::Mul, DType::i64, {g, b.i64(chunk)});
  int k = b.loop(b.i64(0), b.i64(chunk));
  b.store(first, k, b.load(x, b.alu(AluOp::Add, DType::i64, {base, k})));
  b.endLoop(k);
  int k2 = b.loop(b.i64(0), b.i64(chunk));
  b.store(second, k2, b.load(first, b.alu(AluOp::Sub, DType::i64, {b.i64(chunk - 1), k2})));
  b.endLoop(k2);
  int k3 = b.loop(b.i64(0), b.i64(chunk));
  b.store(out, b.alu(AluOp::Add, DType::i64, {base, k3}), b.load(second, k3));
  b.endLoop(k3);

  std::string source = renderC({b.kernel()});
  EXPECT_NE(source.find("stitch_arena("), std::string::npos);
  auto lib = loadCompiled(source);
  std::vector<float> in = randomFloats(n, -100, 100), result(n, NAN);
  void* bufs[] = {result.data(), in.data()};
  lib->function("arena_blocks")(bufs, nullptr, 3);
  for (int64_t e = 0; e < n; ++e) ASSERT_EQ(result[e], in[e - e % chunk + (chunk - 1 - e % chunk)]) << "element " << e;
}

// A column kernel (Column schedule): out[j] = sum_i x[i, j] over rows
// split into `parts` blocks; each block's partials go to scratch the
// kernel allocates, and the part after the grid combines them in block
// order: the same bits for every thread count.
TEST(CRenderer, ColumnKernelCombinesPartialsAfterTheGrid) {
  FreshCacheDir cache;
  const int64_t parts = 2 + (int64_t)(rng()() % 5), rows = parts * (50 + (int64_t)(rng()() % 200)),
                cols = 1 + (int64_t)(rng()() % 4);
  KernelUOps uops = columnSum(parts, rows, cols);
  std::string source = renderC({uops});
  EXPECT_NE(source.find("column_sum_after"), std::string::npos);
  auto lib = loadCompiled(source);
  std::vector<float> in = randomFloats(rows * cols, -10, 10);
  std::vector<float> first;
  for (int64_t threads : {1, 2, 3}) {
    std::vector<float> out(cols, NAN);
    void* bufs[] = {out.data(), in.data()};
    lib->function("column_sum")(bufs, nullptr, threads);
    for (int64_t c = 0; c < cols; ++c) {
      double expected = 0;
      for (int64_t i = 0; i < rows; ++i) expected += in[i * cols + c];
      EXPECT_NEAR(out[c], expected, 1e-4 * std::max(1.0, std::abs(expected))) << "column " << c;
    }
    if (first.empty()) first = out;
    EXPECT_EQ(out, first) << "threads " << threads;
  }
}

TEST(CRenderer, NegativeBlockLocalBufferIsAnInternalError) {
  KernelBuilder b("bad_local");
  b.global(0, DType::f64, true);
  UOp localDef = makeUOp(UOpKind::DefineLocal, DType::f64);
  localDef.ival = -1;
  localDef.name = "bad";
  b.g().add(localDef, false);
  EXPECT_THROW(renderC({b.kernel()}), InternalError);
}

TEST(CRenderer, UnclosedLoopIsAnInternalError) {
  KernelBuilder b("unclosed");
  int out = b.global(0, DType::f32, true);
  int i = b.loop(b.i64(0), b.i64(4));
  b.store(out, i, b.constant(1.0, DType::f32));
  EXPECT_THROW(renderC({b.kernel()}), InternalError);
}

TEST(CRenderer, ValueUsedAfterItsLoopIsAnInternalError) {
  KernelBuilder b("escaping");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int i = b.loop(b.i64(0), b.i64(4));
  int v = b.load(x, i);
  b.endLoop(i);
  b.store(out, b.i64(0), v);
  EXPECT_THROW(renderC({b.kernel()}), InternalError);
}

TEST(CRenderer, DuplicateKernelNamesAreAnInternalError) {
  EXPECT_THROW(renderC({elementwiseAdd("same", 10, 4), elementwiseAdd("same", 10, 4)}), InternalError);
}

TEST(CRenderer, StoreBeforeTheGridIsAnInternalError) {
  KernelBuilder b("early_store");
  int out = b.global(0, DType::f32, true);
  b.store(out, b.i64(0), b.constant(1.0, DType::f32));
  int g = b.special("gidx0", 4);
  b.store(out, g, b.constant(2.0, DType::f32));
  EXPECT_THROW(renderC({b.kernel()}), InternalError);
}

}  // namespace
}  // namespace stitch
