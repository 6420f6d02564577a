// Shared machinery of the x86-64 kernel generators: the vector register file
// of the chosen ISA (zmm x32 for AVX-512, ymm x16 for AVX2), masked loads and
// stores for row tails, and the callee-saved register prologue.
#pragma once
#include <xbyak/xbyak.h>

#include "stitch/tensorop.h"

namespace stitch::tensorop {

// Floats per vector register: 16 (zmm) with AVX-512, 8 (ymm) with AVX2.
inline int vectorLanes(Isa isa) { return isa == Isa::avx512 ? 16 : 8; }

class JitGenerator : public Xbyak::CodeGenerator {
 protected:
  explicit JitGenerator(Isa isa);

  bool avx512() const { return isa_ == Isa::avx512; }
  int width() const { return vectorLanes(isa_); }
  int numVregs() const { return avx512() ? 32 : 16; }
  Xbyak::Xmm vreg(int i) const;

  // Tail handling: after setTailMask(lanes), loads/stores with masked=true
  // touch only the first `lanes` floats. On AVX2 the mask lives in the vector
  // register maskVreg(), which the caller must not use for anything else.
  int maskVreg() const { return 15; }
  void setTailMask(int lanes);
  void loadVec(const Xbyak::Xmm& dst, const Xbyak::Address& src, bool masked);
  void storeVec(const Xbyak::Address& dst, const Xbyak::Xmm& src, bool masked);

  void pushCalleeSaved();
  void popCalleeSavedAndReturn();
  // Must be called once after the last instruction (emits constant tables).
  void finish();

  // Bytes of the callee-saved pushes, for addressing stack arguments.
  static constexpr int kPushedBytes = 6 * 8;

 private:
  Isa isa_;
  Xbyak::Label maskTable_;
  bool usedMaskTable_ = false;
};

}  // namespace stitch::tensorop
