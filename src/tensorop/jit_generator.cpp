#include "tensorop/jit_generator.h"

#include <cassert>

namespace stitch::tensorop {

using namespace Xbyak;

JitGenerator::JitGenerator(Isa isa)
    : CodeGenerator(16 * 4096, Xbyak::AutoGrow), isa_(isa) {
  assert((isa == Isa::avx512 || isa == Isa::avx2) && "JIT needs an x86 ISA");
}

Xmm JitGenerator::vreg(int i) const {
  assert(i >= 0 && i < numVregs());
  if (avx512()) return Zmm(i);
  return Ymm(i);
}

void JitGenerator::setTailMask(int lanes) {
  assert(lanes > 0 && lanes <= width());
  if (avx512()) {
    mov(eax, (1u << lanes) - 1);
    kmovw(k1, eax);
    return;
  }
  usedMaskTable_ = true;
  // The table is 8 x -1 then 8 x 0: reading 8 dwords from (8 - lanes)
  // yields `lanes` set lanes.
  vmovups(Ymm(maskVreg()), ptr[rip + maskTable_ + (8 - lanes) * 4]);
}

void JitGenerator::loadVec(const Xmm& dst, const Address& src, bool masked) {
  if (!masked) {
    vmovups(dst, src);
  } else if (avx512()) {
    vmovups(dst | k1 | T_z, src);
  } else {
    vmaskmovps(dst, Ymm(maskVreg()), src);
  }
}

void JitGenerator::storeVec(const Address& dst, const Xmm& src, bool masked) {
  if (!masked) {
    vmovups(dst, src);
  } else if (avx512()) {
    Address d = dst;
    d.setOpmaskIdx(1);
    vmovups(d, src);
  } else {
    vmaskmovps(dst, Ymm(maskVreg()), src);
  }
}

void JitGenerator::pushCalleeSaved() {
  push(rbx);
  push(rbp);
  push(r12);
  push(r13);
  push(r14);
  push(r15);
}

void JitGenerator::popCalleeSavedAndReturn() {
  pop(r15);
  pop(r14);
  pop(r13);
  pop(r12);
  pop(rbp);
  pop(rbx);
  vzeroupper();
  ret();
}

void JitGenerator::finish() {
  if (usedMaskTable_) {
    align(32);
    L(maskTable_);
    for (int i = 0; i < 8; ++i) dd(0xffffffffu);
    for (int i = 0; i < 8; ++i) dd(0);
  }
  ready();
}

}  // namespace stitch::tensorop
