#include "tensorop/brgemm_kernel_x64.h"

#include <algorithm>
#include <cassert>

#include "tensorop/jit_generator.h"

namespace stitch::tensorop {
namespace {

using namespace Xbyak;

// Argument and loop registers (System V: rdi, rsi, rdx, rcx, r8, r9, stack).
// rdi = a, rsi = B of the current column block, rdx = C of the current column
// block, rcx/r8/r9 = lda/ldb/ldc in bytes, r10/r11 = pointer corrections
// between batch-reduce steps, rax = A pointer, rbx = 3*lda, r12 = C
// pointer while loading/storing, rbp/r13/r14/r15 = B column pointers (each
// covers three columns via [p], [p + ldb], [p + 2*ldb]; with transposed B
// only rbp is a pointer and r13 = 3*ldb).
class BrgemmGenerator : public JitGenerator {
 public:
  BrgemmGenerator(const BrgemmDesc& d, Isa isa) : JitGenerator(isa), d_(d) {
    assert(!d.trans_a && "BRGEMM generator expects packed (non-transposed) A");
    generate();
  }

 private:
  // Stack slots below the pushed registers.
  static constexpr int kSaveB = 0, kSaveC = 8, kNCount = 16, kBrCount = 24;
  static constexpr int kKCount = 32;
  static constexpr int kFrame = 48;
  static constexpr int kUnrollK = 4;
  // Up to this K the k loop is written out: no counter and no loop exit per
  // column block (64x48x64 ran about 3% faster); 64 steps of the largest
  // block are ~2200 instructions, which still fit the decoded-uop cache.
  // Only for one pass of row blocks: each pass has its own copy of the
  // block code, and a long M would multiply it.
  static constexpr int64_t kFullUnrollMaxK = 64;

  const BrgemmDesc& d_;
  int mv_ = 0;          // vectors along M in the current block
  int m0_ = 0;          // first row of the current block
  bool tailMasked_ = false;
  int passVectors_ = 0;  // vectors along M per pass

  Reg64 bPtr(int group) const {
    static const Reg64 regs[] = {rbp, r13, r14, r15};
    return regs[group];
  }
  int maxVectors() const { return passVectors_; }
  int accReg(int j, int v) const { return j * mv_ + v; }
  int aReg(int nb, int v) const { return nb * mv_ + v; }
  int bReg(int nb, int u) const {
    // Two broadcast registers on AVX-512 so consecutive columns overlap.
    return nb * mv_ + mv_ + (avx512() ? (u & 1) : 0);
  }
  bool masked(int v) const { return tailMasked_ && v == mv_ - 1; }
  int maxColumns(int mv) const {
    if (!avx512()) return mv == 1 ? 12 : 6;
    static const int caps[] = {0, 12, 12, 8, 6};
    return caps[mv];
  }

  // Within an unrolled group of k steps the A (and transposed B) pointers
  // stay put and step u is reached through an index register (u * ld), which
  // saves the pointer increments between FMAs.
  Address stepped(const Reg64& base, const Reg64& ld, const Reg64& ld3, int u,
                  int disp) {
    switch (u) {
      case 0: return ptr[base + disp];
      case 1: return ptr[base + ld + disp];
      case 2: return ptr[base + ld * 2 + disp];
      default: return ptr[base + ld3 + disp];
    }
  }

  Address bAddress(int j, int u) {
    if (d_.trans_b) return stepped(rbp, r8, r13, u, j * 4);
    const Reg64 p = bPtr(j / 3);
    switch (j % 3) {
      case 0: return ptr[p + u * 4];
      case 1: return ptr[p + r8 + u * 4];
      default: return ptr[p + r8 * 2 + u * 4];
    }
  }

  // The pass width with the fewest loads per k step and M row: a block
  // loads its mv vectors of A, and each of its columns broadcasts one B
  // value per mv vectors. For 7 or 8 columns 3 vectors take them in one
  // block where 4 take two, each reloading the pass's strip of A (K x 64,
  // past L1 for K in the hundreds): [8, 256] @ [256, 512], a tile of
  // rmsnorm_swiglu_mlp's products, median 20 -> 16 us on 2 threads.
  int choosePassVectors() const {
    auto loads = [&](int mv) { return double((d_.n + maxColumns(mv) - 1) / maxColumns(mv)) + double(d_.n) / mv; };
    int best = brgemmPassVectors(avx512() ? Isa::avx512 : Isa::avx2);
    for (int mv = best - 1; mv >= 1; --mv)
      if (loads(mv) < loads(best)) best = mv;
    return best;
  }

  void generate() {
    passVectors_ = choosePassVectors();
    pushCalleeSaved();
    sub(rsp, kFrame);
    const int args = kFrame + kPushedBytes + 8;
    mov(r10, ptr[rsp + args]);
    mov(r11, ptr[rsp + args + 8]);
    for (const Reg64& r : {rcx, r8, r9, r10, r11}) shl(r, 2);
    lea(rbx, ptr[rcx + rcx * 2]);
    if (d_.trans_b) lea(r13, ptr[r8 + r8 * 2]);
    // r10 = br_stride_a - K*lda: after K steps rax has moved K*lda.
    imul(rax, rcx, static_cast<int>(d_.k));
    sub(r10, rax);
    if (d_.trans_b) {
      imul(rax, r8, static_cast<int>(d_.k));
      sub(r11, rax);
    } else {
      sub(r11, static_cast<int>(d_.k * 4));
    }
    mov(ptr[rsp + kSaveB], rsi);
    mov(ptr[rsp + kSaveC], rdx);

    const int w = width();
    const int maxVecs = maxVectors();
    const int64_t totalVecs = (d_.m + w - 1) / w;
    for (int64_t v0 = 0; v0 < totalVecs; v0 += maxVecs) {
      mv_ = static_cast<int>(std::min<int64_t>(maxVecs, totalVecs - v0));
      m0_ = static_cast<int>(v0 * w);
      const int64_t rowsLeft = d_.m - m0_;
      tailMasked_ = rowsLeft < int64_t(mv_) * w;
      if (tailMasked_) setTailMask(static_cast<int>(rowsLeft - (mv_ - 1) * w));
      if (v0 > 0) {
        mov(rsi, ptr[rsp + kSaveB]);
        mov(rdx, ptr[rsp + kSaveC]);
      }
      emitColumnBlocks();
    }
    add(rsp, kFrame);
    popCalleeSavedAndReturn();
    finish();
  }

  // Splits N into equal-ish blocks no wider than the register budget allows.
  void emitColumnBlocks() {
    const int64_t cap = maxColumns(mv_);
    const int64_t blocks = (d_.n + cap - 1) / cap;
    const int nb = static_cast<int>((d_.n + blocks - 1) / blocks);
    const int64_t full = d_.n / nb;
    const int tail = static_cast<int>(d_.n - full * nb);
    if (full == 1) {
      emitBlock(nb, tail > 0);
    } else if (full > 1) {
      Label loop;
      mov(qword[rsp + kNCount], full);
      L(loop);
      emitBlock(nb, true);
      dec(qword[rsp + kNCount]);
      jnz(loop, T_NEAR);
    }
    if (tail > 0) emitBlock(tail, false);
  }

  void clearVec(const Xmm& x) {
    if (avx512())
      vpxord(x, x, x);
    else
      vxorps(x, x, x);
  }

  void emitBlock(int nb, bool advance) {
    const int w = width();
    // C block into registers.
    mov(r12, rdx);
    for (int j = 0; j < nb; ++j) {
      for (int v = 0; v < mv_; ++v) {
        const Xmm acc = vreg(accReg(j, v));
        if (d_.accumulate)
          loadVec(acc, ptr[r12 + (m0_ + v * w) * 4], masked(v));
        else
          clearVec(acc);
      }
      if (d_.accumulate && j + 1 < nb) add(r12, r9);
    }
    // A and B pointers.
    if (m0_ == 0)
      mov(rax, rdi);
    else
      lea(rax, ptr[rdi + m0_ * 4]);
    mov(rbp, rsi);
    if (!d_.trans_b) {
      for (int g = 1; g * 3 < nb; ++g) {
        lea(bPtr(g), ptr[bPtr(g - 1) + r8 * 2]);
        add(bPtr(g), r8);
      }
    }
    Label brLoop;
    if (d_.br > 1) {
      mov(qword[rsp + kBrCount], d_.br);
      L(brLoop);
    }
    emitKLoop(nb);
    if (d_.br > 1) {
      add(rax, r10);
      addToBPointers(nb, r11);
      dec(qword[rsp + kBrCount]);
      jnz(brLoop, T_NEAR);
    }
    // C block back to memory.
    mov(r12, rdx);
    for (int j = 0; j < nb; ++j) {
      for (int v = 0; v < mv_; ++v)
        storeVec(ptr[r12 + (m0_ + v * w) * 4], vreg(accReg(j, v)), masked(v));
      if (j + 1 < nb) add(r12, r9);
    }
    if (!advance) return;
    if (d_.trans_b) {
      add(rsi, nb * 4);
    } else {
      imul(rax, r8, nb);
      add(rsi, rax);
    }
    imul(rax, r9, nb);
    add(rdx, rax);
  }

  void addToBPointers(int nb, const Reg64& delta) {
    if (d_.trans_b) {
      add(rbp, delta);
      return;
    }
    for (int g = 0; g * 3 < nb; ++g) add(bPtr(g), delta);
  }

  void addToBPointers(int nb, int delta) {
    for (int g = 0; g * 3 < nb; ++g) add(bPtr(g), delta);
  }

  void emitKLoop(int nb) {
    const int64_t full = d_.k / kUnrollK;
    const int rest = static_cast<int>(d_.k % kUnrollK);
    if (full > 0 && d_.k <= kFullUnrollMaxK && d_.m <= maxVectors() * width()) {
      for (int64_t g = 0; g < full; ++g) {
        for (int u = 0; u < kUnrollK; ++u) emitKStep(nb, u);
        advanceK(nb, kUnrollK);
      }
    } else if (full > 0) {
      Label loop;
      if (full > 1) {
        mov(qword[rsp + kKCount], full);
        L(loop);
      }
      for (int u = 0; u < kUnrollK; ++u) emitKStep(nb, u);
      advanceK(nb, kUnrollK);
      if (full > 1) {
        dec(qword[rsp + kKCount]);
        jnz(loop, T_NEAR);
      }
    }
    for (int u = 0; u < rest; ++u) emitKStep(nb, u);
    advanceK(nb, rest);
  }

  // One rank-1 update of the C block: C[:, j] += A[:, k] * B(k, j).
  void emitKStep(int nb, int u) {
    const int w = width();
    for (int v = 0; v < mv_; ++v)
      loadVec(vreg(aReg(nb, v)), stepped(rax, rcx, rbx, u, v * w * 4),
              masked(v));
    for (int j = 0; j < nb; ++j) {
      const Xmm b = vreg(bReg(nb, j));
      vbroadcastss(b, bAddress(j, u));
      for (int v = 0; v < mv_; ++v)
        vfmadd231ps(vreg(accReg(j, v)), vreg(aReg(nb, v)), b);
    }
  }

  // Moves the A (and transposed B) pointers past `steps` k steps.
  void advanceK(int nb, int steps) {
    if (steps == 0) return;
    if (steps == 4) {
      lea(rax, ptr[rax + rcx * 4]);
      if (d_.trans_b) lea(rbp, ptr[rbp + r8 * 4]);
    } else {
      add(rax, steps == 3 ? rbx : rcx);
      if (steps == 2) add(rax, rcx);
      if (d_.trans_b) {
        add(rbp, steps == 3 ? r13 : r8);
        if (steps == 2) add(rbp, r8);
      }
    }
    if (!d_.trans_b) addToBPointers(nb, steps * 4);
  }
};

}  // namespace

// 4 zmm of A plus 6 columns' 24 accumulators and 2 broadcasts fill AVX-512's
// 32 registers; AVX2's 16 take 2 ymm of A by 6 columns.
int brgemmPassVectors(Isa isa) { return isa == Isa::avx512 ? 4 : 2; }

std::unique_ptr<CodeGenerator> makeBrgemmGenerator(const BrgemmDesc& d,
                                                   Isa isa) {
  return std::make_unique<BrgemmGenerator>(d, isa);
}

}  // namespace stitch::tensorop
