// UOps: the linear IR of one kernel (tinygrad's UOps). A kernel is a list of
// uops in execution order; each uop names its operands by position in the
// list. Built only through UOpGraph::add, which folds constants, simplifies
// index arithmetic and reuses an equal earlier uop (CSE) when that is valid
// at the insertion point.
//
//   0 DEFINE_GLOBAL ptr.f32   data0 (output)
//   1 DEFINE_GLOBAL ptr.f32   data1
//   2 SPECIAL       i64       gidx0 < 100          (the grid: one block per value)
//   3 CONST         i64       0
//   4 CONST         i64       8
//   5 LOOP          i64       [3, 4]
//   6 ...           index arithmetic, LOAD, ALU, STORE
//   9 ENDLOOP                 [5]
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "ugraph/alu_op.h"

namespace stitch {

// Constant loops of at most this many trips are written out: by the
// linearizer (a block's innermost output loop, short loop pieces) and, for
// the rest, by the C compiler at the renderer's request. One figure, so
// that what the linearizer keeps as a short loop is what gets unrolled.
inline constexpr int64_t kShortLoopTrips = 4;

enum class UOpKind : uint8_t {
  DefineGlobal,  // kernel buffer `arg` (pointer to dtype); ival: 1 when written
  DefineVar,     // scalar kernel parameter `arg` (dtype i64, f64 or bool)
  DefineLocal,   // block-local array `name` of ival elements of dtype, declared where it stands (uninitialized);
                 // `arg` is its offset in the per-thread scratch arena when the renderer places it there.
                 // One placed before the SPECIAL is scratch shared by all blocks of a call (the caller
                 // allocates it: a Column kernel's partial results)
  DefineAcc,     // accumulator with initial value src[0] (a CONST); set where it stands, updated by PHI
  Const,         // ival (bool / ints) or fval (floats)
  Special,       // grid index `name` in [0, ival); opens the parallel block loop
  Loop,          // counted loop from src[0] to src[1] (exclusive); the uop is the induction variable
  EndLoop,       // closes src[0] (a LOOP, or the SPECIAL: what follows runs once, after every block)
  Load,          // src[0][src[1]]: buffer (DEFINE_GLOBAL / DEFINE_LOCAL) and i64 index
  Store,         // src[0][src[1]] = src[2] (dtype: the element's; STORE / ENDLOOP / ENDIF have no value)
  Alu,           // alu(src...)
  Phi,           // accumulator src[0] = src[1] (each iteration of loop src[2], inside it); the PHI's
                 // value, used after the loop, is the accumulator's final value
  Cast,          // src[0] converted to dtype
  If,            // opens a guarded region when src[0] (bool) holds
  EndIf,         // closes src[0] (an IF)
  FoldLanes,     // src[0] (a DEFINE_LOCAL of ival lanes, a power of two) folded pairwise, halving: lane l
                 // and lane l + h combined by alu for h = ival/2, .., 1 (ADD, MUL: alu(lane l, lane l + h);
                 // MAX, MIN: alu(lane l + h, lane l), the combine of lane_reduce.h); the value is lane 0's.
                 // The C renderer folds float ADDs in vector registers (the loops of lane_reduce.h's
                 // combineLanes would take the array through memory at every step); CUDA any of the
                 // four, in a thread's registers or across a block (warp shuffles)
};

struct UOp {
  UOpKind kind = UOpKind::Const;
  DType dtype = DType::i64;   // value dtype; a DEFINE_GLOBAL / DEFINE_LOCAL's element dtype
  std::vector<int> src;
  AluOp alu = AluOp::Add;     // Alu
  int64_t arg = 0;            // DefineGlobal / DefineVar: slot
  int64_t ival = 0;
  double fval = 0;
  std::string name;           // Special / DefineLocal / DefineGlobal / DefineVar: the C name
  // For i64 values: bounds known at construction (from loop and grid
  // ranges and constants); used by the index simplifier. Bool values are in
  // [0, 1]; other dtypes are unbounded.
  int64_t vmin = INT64_MIN;
  int64_t vmax = INT64_MAX;
};

// A uop of `kind` and `dtype` over `src`, every other field at its default:
// the start of each uop handed to UOpGraph::add.
inline UOp makeUOp(UOpKind kind, DType dtype, std::vector<int> src = {}) {
  UOp u;
  u.kind = kind;
  u.dtype = dtype;
  u.src = std::move(src);
  return u;
}

const char* uopKindName(UOpKind kind);  // "DEFINE_GLOBAL", "LOOP", ...

class UOpGraph {
 public:
  // Appends a uop (or returns an equal, still-valid earlier one, or a
  // simpler equivalent one). cachable = false for uops that must stay
  // distinct; definitions, DEFINE_ACC, SPECIAL, LOOP, ENDLOOP, STORE, PHI,
  // IF and ENDIF are never merged whatever the flag. ENDLOOP / ENDIF must
  // close the innermost open LOOP / IF. Only CONST, LOAD (from a
  // DEFINE_GLOBAL: kernel inputs are read-only), ALU and CAST are reused,
  // and only when the scope they were added in is still open.
  int add(UOp uop, bool cachable = true);
  // Shorthands.
  int constInt(int64_t v, DType dtype = DType::i64);
  int constFloat(double v, DType dtype);
  int alu(AluOp op, DType dtype, std::vector<int> src);
  // Gives LOOP `loop` new bounds (CONSTs or values defined before it) after
  // its body is in place, and recomputes the ranges of the uops after it;
  // for a caller that has checked what the body means over the new range
  // (flat_rows.h).
  void setLoopBounds(int loop, int start, int end);

  const std::vector<UOp>& uops() const { return uops_; }
  const UOp& at(int id) const { return uops_.at(id); }
  int size() const { return (int)uops_.size(); }

  // One line per uop: step, kind, dtype, operands, argument (as above).
  std::string str() const;

 private:
  int append(UOp uop, bool cachable);

  std::vector<UOp> uops_;
  std::unordered_map<std::string, int> saved_;  // CSE: key -> uop id
  // Loops still open at the end of the list (CSE must not reuse a uop from
  // inside a loop that has been closed).
  std::vector<int> openScopes_;
  std::vector<int> scopeOf_;   // per uop: innermost LOOP / IF / SPECIAL open at its insertion, or -1
  std::vector<char> closed_;   // per uop: a LOOP / IF whose END has been added
};

// The uops of one kernel plus what a caller needs to call it.
struct KernelUOps {
  std::string name;                // C function name
  std::vector<DType> buffers;      // element dtype per buffer slot (outputs first)
  int numOutputs = 0;
  std::vector<DType> params;       // dtype per scalar parameter slot
  UOpGraph uops;
};

}  // namespace stitch
