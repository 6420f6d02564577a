#include "tensorop/unary_kernel.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>

#include "tensorop/jit_generator.h"

namespace stitch::tensorop {
namespace {

using namespace Xbyak;

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Constants live in registers 4..14 (15 is the AVX2 tail mask); work
// registers are 0..3.
enum ConstSlot {
  kOne = 4,
  kZero,
  kExpLo,
  kExpHi,
  kLog2e,
  kLn2Hi,
  kLn2Lo,
  kC2,
  kC3,
  kC4,
  kC5,  // = 14
};

// rdi = in, rsi = out, rdx = ld_in, rcx = ld_out (bytes after the prologue),
// r8 = loop counter, r9/r10/r11 = scratch pointers.
class UnaryGenerator : public JitGenerator {
 public:
  UnaryGenerator(const UnaryDesc& d, Isa isa) : JitGenerator(isa), d_(d) {
    generate();
  }

 private:
  const UnaryDesc& d_;
  Label constants_;
  Label iota_;

  void broadcastConst(int slot, float value) {
    mov(eax, bitsOf(value));
    vmovd(Xmm(slot), eax);
    vbroadcastss(vreg(slot), Xmm(slot));
  }

  void loadConstants() {
    broadcastConst(kOne, 1.0f);
    if (avx512())
      vpxord(vreg(kZero), vreg(kZero), vreg(kZero));
    else
      vxorps(vreg(kZero), vreg(kZero), vreg(kZero));
    if (d_.op != ptype_t::exp) return;
    broadcastConst(kExpLo, -87.3f);
    broadcastConst(kExpHi, 88.7f);
    broadcastConst(kLog2e, 1.44269504088896341f);
    broadcastConst(kLn2Hi, 0.693359375f);
    broadcastConst(kLn2Lo, -2.12194440e-4f);
    broadcastConst(kC2, 0.5f);
    broadcastConst(kC3, 1.0f / 6.0f);
    broadcastConst(kC4, 1.0f / 24.0f);
    broadcastConst(kC5, 1.0f / 120.0f);
  }

  // x = op(x); may use work register `tmp`.
  void applyOp(const Xmm& x, const Xmm& tmp, const Xmm& tmp2) {
    switch (d_.op) {
      case ptype_t::zero: vmovaps(x, vreg(kZero)); return;
      case ptype_t::identity: return;
      case ptype_t::relu: vmaxps(x, x, vreg(kZero)); return;
      case ptype_t::square: vmulps(x, x, x); return;
      case ptype_t::reciprocal: vdivps(x, vreg(kOne), x); return;
      case ptype_t::increment: vaddps(x, x, vreg(kOne)); return;
      case ptype_t::exp: applyExp(x, tmp, tmp2); return;
      default: assert(false && "not a unary primitive"); return;
    }
  }

  // exp(x) = 2^n * p(r), n = round(x*log2 e), r = x - n*ln 2 (two-part
  // constant), p the degree-5 Taylor polynomial: relative error ~2e-7.
  void applyExp(const Xmm& x, const Xmm& n, const Xmm& p) {
    vmaxps(x, x, vreg(kExpLo));
    vminps(x, x, vreg(kExpHi));
    vmulps(n, x, vreg(kLog2e));
    if (avx512())
      vrndscaleps(n, n, 0);
    else
      vroundps(n, n, 0);
    vfnmadd231ps(x, n, vreg(kLn2Hi));
    vfnmadd231ps(x, n, vreg(kLn2Lo));
    vmovaps(p, vreg(kC5));
    vfmadd213ps(p, x, vreg(kC4));
    vfmadd213ps(p, x, vreg(kC3));
    vfmadd213ps(p, x, vreg(kC2));
    vfmadd213ps(p, x, vreg(kOne));
    vfmadd213ps(p, x, vreg(kOne));
    if (avx512()) {
      vscalefps(x, p, n);
      return;
    }
    vcvtps2dq(n, n);
    vpslld(n, n, 23);
    vpaddd(x, p, n);  // adding to the exponent field multiplies by 2^n
  }

  void generate() {
    pushCalleeSaved();
    loadConstants();
    if (d_.transpose)
      generateTransposed();
    else
      generatePlain();
    popCalleeSavedAndReturn();
    if (d_.transpose) {
      align(64);
      L(iota_);
      for (int i = 0; i < 16; ++i) dd(i);
    }
    finish();
  }

  void generatePlain() {
    const int w = width();
    shl(rdx, 2);
    shl(rcx, 2);
    const int64_t vecs = (d_.m + w - 1) / w;
    const int tailLanes = static_cast<int>(d_.m - (vecs - 1) * w);
    if (tailLanes < w) setTailMask(tailLanes);
    const int group = d_.op == ptype_t::exp ? 1 : 4;
    Label loop;
    mov(r8, d_.n);
    L(loop);
    for (int64_t v0 = 0; v0 < vecs; v0 += group) {
      const int cnt = static_cast<int>(std::min<int64_t>(group, vecs - v0));
      for (int i = 0; i < cnt; ++i) {
        const int64_t v = v0 + i;
        const bool m = (v == vecs - 1) && tailLanes < w;
        if (d_.op != ptype_t::zero)
          loadVec(vreg(i), ptr[rdi + v * w * 4], m);
      }
      for (int i = 0; i < cnt; ++i) applyOp(vreg(i), vreg(1), vreg(2));
      for (int i = 0; i < cnt; ++i) {
        const int64_t v = v0 + i;
        const bool m = (v == vecs - 1) && tailLanes < w;
        storeVec(ptr[rsi + v * w * 4], vreg(i), m);
      }
    }
    add(rdi, rdx);
    add(rsi, rcx);
    dec(r8);
    jnz(loop, T_NEAR);
  }

  // out(n, m) = op(in(m, n)): for each m, gather N elements strided by ld_in
  // and store them as one contiguous output column.
  void generateTransposed() {
    const int w = width();
    const Xmm idx = vreg(3);
    vmovd(Xmm(3), edx);
    vpbroadcastd(idx, Xmm(3));
    vpmulld(idx, idx, ptr[rip + iota_]);
    shl(rdx, 2);
    shl(rcx, 2);
    mov(r9, rdx);
    shl(r9, w == 16 ? 4 : 3);  // bytes between gathered chunks
    const int64_t chunks = (d_.n + w - 1) / w;
    const int tailLanes = static_cast<int>(d_.n - (chunks - 1) * w);
    if (tailLanes < w) setTailMask(tailLanes);
    Label loop;
    mov(r8, d_.m);
    L(loop);
    mov(r10, rdi);
    for (int64_t c = 0; c < chunks; ++c) {
      const bool m = (c == chunks - 1) && tailLanes < w;
      const Xmm x = vreg(0);
      if (avx512()) {
        if (m)
          kmovw(k2, k1);
        else
          kxnorw(k2, k2, k2);
        vgatherdps(Zmm(0) | k2, ptr[r10 + Zmm(3) * 4]);
      } else {
        if (m)
          vmovaps(Ymm(2), Ymm(maskVreg()));
        else
          vpcmpeqd(Ymm(2), Ymm(2), Ymm(2));
        vxorps(Ymm(0), Ymm(0), Ymm(0));
        vgatherdps(Ymm(0), ptr[r10 + Ymm(3) * 4], Ymm(2));
      }
      applyOp(x, vreg(1), vreg(2));
      storeVec(ptr[rsi + c * w * 4], x, m);
      if (c + 1 < chunks) add(r10, r9);
    }
    add(rdi, 4);
    add(rsi, rcx);
    dec(r8);
    jnz(loop, T_NEAR);
  }
};

}  // namespace

std::unique_ptr<CodeGenerator> makeUnaryGenerator(const UnaryDesc& d, Isa isa) {
  return std::make_unique<UnaryGenerator>(d, isa);
}

}  // namespace stitch::tensorop
