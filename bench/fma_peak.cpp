#include "fma_peak.h"

#include <omp.h>
#include <xbyak/xbyak.h>
#include <xbyak/xbyak_util.h>

namespace stitch::bench {
namespace {

// 24 accumulators cover FMA latency x throughput on every current core.
constexpr int kAccumulators = 24;
constexpr int kUnroll = 4;

struct FmaLoop : Xbyak::CodeGenerator {
  int lanes;
  FmaLoop() {
    using namespace Xbyak;
    util::Cpu cpu;
    const bool avx512 = cpu.has(util::Cpu::tAVX512F);
    lanes = avx512 ? 16 : 8;
    const int accs = avx512 ? kAccumulators : 12;
    Label loop;
    L(loop);
    for (int u = 0; u < kUnroll; ++u)
      for (int j = 0; j < accs; ++j) {
        if (avx512)
          vfmadd231ps(Zmm(j), Zmm(30), Zmm(31));
        else
          vfmadd231ps(Ymm(j), Ymm(14), Ymm(15));
      }
    dec(rdi);
    jnz(loop, T_NEAR);
    vzeroupper();
    ret();
    flopsPerIteration = double(kUnroll) * accs * lanes * 2;
  }
  double flopsPerIteration = 0;
};

const FmaLoop& loop() {
  static FmaLoop l;
  return l;
}

}  // namespace

double runFmaLoop(int64_t iterations, int threads) {
  auto fn = loop().getCode<void (*)(int64_t)>();
#pragma omp parallel num_threads(threads)
  fn(iterations);
  return loop().flopsPerIteration * double(iterations) * threads;
}

}  // namespace stitch::bench
