#include "fma_peak.h"

#include <omp.h>
#include <xbyak/xbyak.h>
#include <xbyak/xbyak_util.h>

#include "stitch/aligned_buffer.h"

namespace stitch::bench {
namespace {

// 24 accumulators cover FMA latency x throughput on every current core.
constexpr int kAccumulators = 24;
constexpr int kUnroll = 4;

bool haveAvx512() {
  static const bool yes = Xbyak::util::Cpu().has(Xbyak::util::Cpu::tAVX512F);
  return yes;
}

// With `withLoads`, each group of 24 FMAs also loads 4 vectors and
// broadcasts 6 scalars from L1, exactly the operand traffic of one k step
// of the BRGEMM's 64 x 6 register block (rsi = A, rdx = B).
struct FmaLoop : Xbyak::CodeGenerator {
  int lanes;
  explicit FmaLoop(bool withLoads) {
    using namespace Xbyak;
    const bool avx512 = haveAvx512();
    lanes = avx512 ? 16 : 8;
    const int accs = avx512 ? kAccumulators : 12, regs = avx512 ? 32 : 16;
    auto reg = [&](int i) -> Xmm { return avx512 ? Xmm(Zmm(i)) : Xmm(Ymm(i)); };
    // Zeroed registers: an accumulator left holding a denormal by earlier
    // code would make every FMA take a microcode assist.
    for (int r = 0; r < regs; ++r) {
      if (avx512)
        vpxord(Zmm(r), Zmm(r), Zmm(r));
      else
        vxorps(Ymm(r), Ymm(r), Ymm(r));
    }
    Label loop;
    L(loop);
    // With loads: `vecs` vector loads of A (registers after the
    // accumulators) and 6 broadcasts of B alternating between two registers.
    const int vecs = accs / 6, vecBytes = lanes * 4;
    for (int u = 0; u < kUnroll; ++u) {
      if (withLoads) {
        for (int v = 0; v < vecs; ++v)
          vmovups(reg(accs + v), ptr[rsi + (u * vecs + v) * vecBytes]);
        for (int j = 0; j < 6; ++j) {
          const Xmm b = reg(accs + vecs + (j & 1));
          vbroadcastss(b, ptr[rdx + j * 256 + u * 4]);
          for (int v = 0; v < vecs; ++v) vfmadd231ps(reg(j * vecs + v), reg(accs + v), b);
        }
        continue;
      }
      for (int j = 0; j < accs; ++j) vfmadd231ps(reg(j), reg(regs - 2), reg(regs - 1));
    }
    dec(rdi);
    jnz(loop, T_NEAR);
    vzeroupper();
    ret();
    flopsPerIteration = double(kUnroll) * accs * lanes * 2;
  }
  double flopsPerIteration = 0;
};

const FmaLoop& loop(bool withLoads) {
  static FmaLoop plain(false), loads(true);
  return withLoads ? loads : plain;
}

}  // namespace

double runFmaLoop(int64_t iterations, int threads, bool withLoads) {
  const FmaLoop& l = loop(withLoads);
  auto fn = l.getCode<void (*)(int64_t, const float*, const float*)>();
#pragma omp parallel num_threads(threads)
  {
    // Small zeroed operands per thread: they stay in L1 and add no denormals.
    AlignedFloats a(1024, 0.0f), b(2048, 0.0f);
    fn(iterations, a.data(), b.data());
  }
  return l.flopsPerIteration * double(iterations) * threads;
}

}  // namespace stitch::bench
