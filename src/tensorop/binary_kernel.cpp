#include "tensorop/binary_kernel.h"

#include <algorithm>
#include <cassert>

#include "tensorop/jit_generator.h"

namespace stitch::tensorop {
namespace {

using namespace Xbyak;

// rdi = in0, rsi = in1, rdx = out, rcx/r8/r9 = leading dimensions (bytes),
// r10 = column counter. Vector registers: 0..3 in0, 4..7 in1, 8/9 the
// broadcast operands, 15 the AVX2 tail mask.
class BinaryGenerator : public JitGenerator {
 public:
  BinaryGenerator(const BinaryDesc& d, Isa isa) : JitGenerator(isa), d_(d) {
    generate();
  }

 private:
  static constexpr int kGroup = 4;
  const BinaryDesc& d_;

  void applyOp(const Xmm& dst, const Xmm& x, const Xmm& y) {
    switch (d_.op) {
      case ptype_t::add: vaddps(dst, x, y); return;
      case ptype_t::sub: vsubps(dst, x, y); return;
      case ptype_t::mul: vmulps(dst, x, y); return;
      case ptype_t::div: vdivps(dst, x, y); return;
      case ptype_t::min: vminps(dst, x, y); return;
      case ptype_t::max: vmaxps(dst, x, y); return;
      default: assert(false && "not a binary primitive"); return;
    }
  }

  void generate() {
    const int w = width();
    pushCalleeSaved();
    shl(rcx, 2);
    shl(r8, 2);
    shl(r9, 2);
    const int64_t vecs = (d_.m + w - 1) / w;
    const int tailLanes = static_cast<int>(d_.m - (vecs - 1) * w);
    if (tailLanes < w) setTailMask(tailLanes);
    Label loop;
    mov(r10, d_.n);
    L(loop);
    if (d_.bcast_m_in0) vbroadcastss(vreg(8), ptr[rdi]);
    if (d_.bcast_m_in1) vbroadcastss(vreg(9), ptr[rsi]);
    for (int64_t v0 = 0; v0 < vecs; v0 += kGroup) {
      const int cnt = static_cast<int>(std::min<int64_t>(kGroup, vecs - v0));
      for (int i = 0; i < cnt; ++i) {
        const int64_t v = v0 + i;
        const bool m = (v == vecs - 1) && tailLanes < w;
        if (!d_.bcast_m_in0) loadVec(vreg(i), ptr[rdi + v * w * 4], m);
        if (!d_.bcast_m_in1) loadVec(vreg(4 + i), ptr[rsi + v * w * 4], m);
      }
      for (int i = 0; i < cnt; ++i) {
        const Xmm x = d_.bcast_m_in0 ? vreg(8) : vreg(i);
        const Xmm y = d_.bcast_m_in1 ? vreg(9) : vreg(4 + i);
        applyOp(vreg(i), x, y);
      }
      for (int i = 0; i < cnt; ++i) {
        const int64_t v = v0 + i;
        const bool m = (v == vecs - 1) && tailLanes < w;
        storeVec(ptr[rdx + v * w * 4], vreg(i), m);
      }
    }
    add(rdi, rcx);
    add(rsi, r8);
    add(rdx, r9);
    dec(r10);
    jnz(loop, T_NEAR);
    popCalleeSavedAndReturn();
    finish();
  }
};

}  // namespace

std::unique_ptr<CodeGenerator> makeBinaryGenerator(const BinaryDesc& d,
                                                   Isa isa) {
  return std::make_unique<BinaryGenerator>(d, isa);
}

}  // namespace stitch::tensorop
