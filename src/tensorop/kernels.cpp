#include "tensorop/kernels.h"

#include <xbyak/xbyak.h>
#include <xbyak/xbyak_util.h>

#include <cassert>
#include <cstdlib>
#include <string>
#include <vector>

#include "stitch/aligned_buffer.h"
#include "tensorop/binary_kernel.h"
#include "tensorop/brgemm_kernel_x64.h"
#include "tensorop/jit_cache.h"
#include "tensorop/jit_generator.h"
#include "tensorop/reference.h"
#include "tensorop/unary_kernel.h"

namespace stitch::tensorop {

const char* toString(Isa isa) {
  switch (isa) {
    case Isa::automatic: return "automatic";
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    case Isa::reference: return "reference";
  }
  return "?";
}

Isa detectIsa() {
  static const Isa detected = [] {
    using Xbyak::util::Cpu;
    Cpu cpu;
    if (cpu.has(Cpu::tAVX512F)) return Isa::avx512;
    if (cpu.has(Cpu::tAVX2) && cpu.has(Cpu::tFMA)) return Isa::avx2;
    return Isa::reference;
  }();
  return detected;
}

int64_t gemmPassRows(Isa isa) {
  const Isa use = resolveIsa(isa);
  // The portable code has no register passes: it takes AVX2's width (any
  // width packs correctly).
  const Isa lanesOf = use == Isa::avx512 ? use : Isa::avx2;
  return int64_t(brgemmPassVectors(lanesOf)) * vectorLanes(lanesOf);
}

Isa resolveIsa(Isa isa) {
  if (isa != Isa::automatic) {
    // Never emit instructions the CPU lacks, even when asked to.
    if (isa == Isa::avx512 && detectIsa() != Isa::avx512) return detectIsa();
    if (isa == Isa::avx2 && detectIsa() == Isa::reference) return Isa::reference;
    return isa;
  }
  if (const char* env = std::getenv("STITCH_TENSOROP_ISA")) {
    std::string s = env;
    if (s == "avx512") return resolveIsa(Isa::avx512);
    if (s == "avx2") return resolveIsa(Isa::avx2);
    if (s == "reference") return Isa::reference;
  }
  return detectIsa();
}

std::string BrgemmDesc::key() const {
  return "brgemm_m" + std::to_string(m) + "_n" + std::to_string(n) + "_k" +
         std::to_string(k) + "_br" + std::to_string(br) + "_ta" +
         std::to_string(trans_a) + "_tb" + std::to_string(trans_b) + "_acc" +
         std::to_string(accumulate);
}

std::string UnaryDesc::key() const {
  return std::string("unary_") + toString(op) + "_m" + std::to_string(m) +
         "_n" + std::to_string(n) + "_t" + std::to_string(transpose);
}

std::string BinaryDesc::key() const {
  return std::string("binary_") + toString(op) + "_m" + std::to_string(m) +
         "_n" + std::to_string(n) + "_b" + std::to_string(bcast_m_in0) +
         std::to_string(bcast_m_in1);
}

namespace {

bool isJit(Isa isa) { return isa == Isa::avx512 || isa == Isa::avx2; }

// The generators unroll M fully (rows are compile-time register blocks), so
// a huge unsplittable M would mean megabytes of code; such kernels use the
// portable path instead. The optimizer keeps contraction M at <= 64.
constexpr int64_t kMaxJitRows = 1 << 14;

Isa jitOrReference(Isa isa, int64_t rows) {
  return rows > kMaxJitRows ? Isa::reference : isa;
}

std::string isaKey(Isa isa, const std::string& key) {
  return std::string(toString(isa)) + "_" + key;
}

}  // namespace

BrgemmKernel::BrgemmKernel(const BrgemmDesc& d, Isa isa)
    : desc_(d), isa_(jitOrReference(resolveIsa(isa), d.m)) {
  assert(d.m >= 1 && d.n >= 1 && d.k >= 1 && d.br >= 1);
  if (!isJit(isa_)) return;
  BrgemmDesc packed = d;
  packed.trans_a = false;
  const Isa use = isa_;
  fn_ = reinterpret_cast<BrgemmFn>(jitKernel(isaKey(use, packed.key()), [&] {
    return makeBrgemmGenerator(packed, use);
  }));
}

void BrgemmKernel::operator()(const float* a, const float* b, float* c,
                              int64_t lda, int64_t ldb, int64_t ldc,
                              int64_t br_stride_a, int64_t br_stride_b) const {
  if (!fn_) {
    reference::brgemm(desc_, a, b, c, lda, ldb, ldc, br_stride_a, br_stride_b);
    return;
  }
  if (!desc_.trans_a) {
    fn_(a, b, c, lda, ldb, ldc, br_stride_a, br_stride_b);
    return;
  }
  // Transposed A would put K on the vector lanes; repack it column-major once
  // per call instead (M x K per batch entry, back to back).
  thread_local AlignedFloats packed;
  const int64_t mk = desc_.m * desc_.k;
  packed.resize(static_cast<size_t>(mk * desc_.br));
  for (int64_t r = 0; r < desc_.br; ++r) {
    const float* src = a + r * br_stride_a;
    float* dst = packed.data() + r * mk;
    for (int64_t m = 0; m < desc_.m; ++m)
      for (int64_t k = 0; k < desc_.k; ++k)
        dst[m + k * desc_.m] = src[k + m * lda];
  }
  fn_(packed.data(), b, c, desc_.m, ldb, ldc, mk, br_stride_b);
}

UnaryKernel::UnaryKernel(const UnaryDesc& d, Isa isa)
    : desc_(d),
      isa_(jitOrReference(resolveIsa(isa), d.transpose ? d.n : d.m)),
      valid_(true) {
  assert(d.m >= 1 && d.n >= 1 && isUnary(d.op));
  if (!isJit(isa_)) return;
  UnaryDesc gen = d;
  // A zero block written transposed is just a zero N x M block.
  if (d.op == ptype_t::zero && d.transpose) {
    gen.m = d.n;
    gen.n = d.m;
    gen.transpose = false;
  }
  desc_ = gen;
  const Isa use = isa_;
  fn_ = reinterpret_cast<UnaryFn>(
      jitKernel(isaKey(use, gen.key()), [&] { return makeUnaryGenerator(gen, use); }));
}

void UnaryKernel::operator()(const float* in, float* out, int64_t ld_in,
                             int64_t ld_out) const {
  // Gathers use 32-bit indices; fall back where the offsets do not fit.
  const bool fits = !desc_.transpose || ld_in * desc_.n < (int64_t(1) << 31);
  if (fn_ && fits) {
    fn_(in, out, ld_in, ld_out);
    return;
  }
  reference::unary(desc_, in, out, ld_in, ld_out);
}

BinaryKernel::BinaryKernel(const BinaryDesc& d, Isa isa)
    : desc_(d), isa_(jitOrReference(resolveIsa(isa), d.m)) {
  assert(d.m >= 1 && d.n >= 1 && isBinary(d.op));
  if (!isJit(isa_)) return;
  const Isa use = isa_;
  fn_ = reinterpret_cast<BinaryFn>(
      jitKernel(isaKey(use, d.key()), [&] { return makeBinaryGenerator(d, use); }));
}

void BinaryKernel::operator()(const float* in0, const float* in1, float* out,
                              int64_t ld_in0, int64_t ld_in1,
                              int64_t ld_out) const {
  if (fn_) {
    fn_(in0, in1, out, ld_in0, ld_in1, ld_out);
    return;
  }
  reference::binary(desc_, in0, in1, out, ld_in0, ld_in1, ld_out);
}

}  // namespace stitch::tensorop
