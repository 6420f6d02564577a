// FMA peak, BRGEMM in cache and the BRGEMM sweep (ours and LIBXSMM).
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "bench_util.h"
#include "fma_peak.h"
#include "peers.h"
#include "tensorop/kernels.h"

namespace stitch::bench {
namespace {

using tensorop::BrgemmDesc;
using tensorop::BrgemmKernel;

void fmaPeak(benchmark::State& state, int threads, bool withLoads) {
  const int64_t iters = 100000;
  double flop = 0;
  for (auto _ : state) flop = runFmaLoop(iters, threads, withLoads);
  setFlops(state, flop);
}

struct Shape {
  int64_t m, n, k, br;
};

std::string shapeName(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
         "/br" + std::to_string(s.br);
}

// Packed operands (lda = M, ldb = K, ldc = M) that stay in cache.
void ourBrgemm(benchmark::State& state, Shape s) {
  BrgemmDesc d;
  d.m = s.m;
  d.n = s.n;
  d.k = s.k;
  d.br = s.br;
  BrgemmKernel kernel(d);
  auto a = randomBuffer(size_t(s.m * s.k * s.br)), b = randomBuffer(size_t(s.k * s.n * s.br));
  AlignedFloats c(size_t(s.m * s.n), 0.0f);
  for (auto _ : state) {
    kernel(a.data(), b.data(), c.data(), s.m, s.k, s.m, s.m * s.k, s.k * s.n);
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * s.m * s.n * s.k * s.br);
}

void xsmmBrgemm(benchmark::State& state, Shape s) {
  void* kernel = xsmmBrgemmDispatch(s.m, s.n, s.k);
  if (!kernel) {
    state.SkipWithError("LIBXSMM has no kernel for this shape");
    return;
  }
  auto a = randomBuffer(size_t(s.m * s.k * s.br)), b = randomBuffer(size_t(s.k * s.n * s.br));
  AlignedFloats c(size_t(s.m * s.n), 0.0f);
  for (auto _ : state) {
    xsmmBrgemmCall(kernel, s.br, a.data(), b.data(), c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * s.m * s.n * s.k * s.br);
}

// A plain GEMM through the BLAS peers at the in-cache shape (beta = 0).
void blasGemm(benchmark::State& state, Shape s, bool dnnl) {
  omp_set_num_threads(1);
  auto a = randomBuffer(size_t(s.m * s.k)), b = randomBuffer(size_t(s.k * s.n));
  AlignedFloats c(size_t(s.m * s.n), 0.0f);
  for (auto _ : state) {
    if (dnnl)
      dnnlSgemm(s.m, s.n, s.k, a.data(), b.data(), c.data());
    else
      openblasSgemm(s.m, s.n, s.k, a.data(), b.data(), c.data(), 1);
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * s.m * s.n * s.k);
}

// LIBXSMM's batch stride convention differs between versions; check once
// that it computes the same as ours before reporting it.
bool xsmmAgreesWithOurs() {
  const Shape s{24, 17, 9, 3};
  void* kernel = xsmmBrgemmDispatch(s.m, s.n, s.k);
  if (!kernel) return false;
  auto a = randomBuffer(size_t(s.m * s.k * s.br)), b = randomBuffer(size_t(s.k * s.n * s.br), 2);
  AlignedFloats c1(size_t(s.m * s.n), 0.0f), c2 = c1;
  xsmmBrgemmCall(kernel, s.br, a.data(), b.data(), c1.data());
  BrgemmDesc d{s.m, s.n, s.k, s.br};
  BrgemmKernel ours(d);
  ours(a.data(), b.data(), c2.data(), s.m, s.k, s.m, s.m * s.k, s.k * s.n);
  for (size_t i = 0; i < c1.size(); ++i)
    if (std::abs(c1[i] - c2[i]) > 1e-4f) return false;
  return true;
}

}  // namespace

void registerKernelBenchmarks(int repetitions, bool sweep) {
  // CPU time for one thread (robust to other load), wall time for two.
  for (int t : {1, 2}) {
    auto* b = benchmark::RegisterBenchmark(("peak/fma/-/t" + std::to_string(t)).c_str(),
                                           fmaPeak, t, false)
                  ->Repetitions(repetitions)
                  ->Unit(benchmark::kMicrosecond);
    if (t == 2) b->UseRealTime();
  }
  benchmark::RegisterBenchmark("peak/fma_with_kernel_loads/-/t1", fmaPeak, 1, true)
      ->Repetitions(repetitions)
      ->Unit(benchmark::kMicrosecond);
  const bool xsmm = haveXsmm() && xsmmAgreesWithOurs();
  if (haveXsmm() && !xsmm) std::fprintf(stderr, "bench: LIBXSMM disagrees with ours; skipped\n");
  const Shape inCache{64, 48, 64, 1};
  auto reg = [&](const std::string& name, auto fn, auto... args) {
    return benchmark::RegisterBenchmark(name.c_str(), fn, args...)
        ->Repetitions(repetitions)
        ->Unit(benchmark::kMicrosecond);
  };
  reg("brgemm/stitch/" + shapeName(inCache) + "/t1", ourBrgemm, inCache);
  reg("brgemm/stitch/64x48x64/br16/t1", ourBrgemm, Shape{64, 48, 64, 16});
  if (xsmm) {
    reg("brgemm/libxsmm/" + shapeName(inCache) + "/t1", xsmmBrgemm, inCache);
    reg("brgemm/libxsmm/64x48x64/br16/t1", xsmmBrgemm, Shape{64, 48, 64, 16});
  }
  if (haveDnnl()) reg("brgemm/onednn/" + shapeName(inCache) + "/t1", blasGemm, inCache, true);
  if (haveOpenblas())
    reg("brgemm/openblas/" + shapeName(inCache) + "/t1", blasGemm, inCache, false);
  if (!sweep) return;
  const int64_t grid[] = {1, 2, 4, 8, 15, 16, 17, 24, 31, 32, 48, 63, 64};
  for (int64_t br : {1, 16})
    for (int64_t k : {1, 16, 32, 64, 128})
      for (int64_t m : grid)
        for (int64_t n : grid) {
          const Shape s{m, n, k, br};
          benchmark::RegisterBenchmark(("sweep/stitch/" + shapeName(s) + "/t1").c_str(),
                                       ourBrgemm, s)
              ->MinTime(0.005);
          if (xsmm)
            benchmark::RegisterBenchmark(("sweep/libxsmm/" + shapeName(s) + "/t1").c_str(),
                                         xsmmBrgemm, s)
                ->MinTime(0.005);
        }
}

}  // namespace stitch::bench
