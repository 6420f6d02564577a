#include "codegen/row_prefetch.h"

#include <optional>

namespace stitch {

namespace {

// Below this many bytes read through the index the rows mostly stay in
// the L2 of the cores that read them (1-2 MB a core on current x86), and
// the prefetches would only cost instructions.
constexpr int64_t kRowPrefetchMinBytes = int64_t(1) << 20;

// How much i64 uop `v` moves when loop `var` steps by one; nullopt where
// it is not affine in the loop's variable. Uops are in program order, so
// one defined before the loop opens does not depend on it.
std::optional<int64_t> stepOf(const UOpGraph& g, int v, int var) {
  if (v == var) return 1;
  if (v < var) return 0;
  const UOp& u = g.at(v);
  switch (u.kind) {
    case UOpKind::Const: return 0;
    case UOpKind::Loop: {  // a loop inside `var`: its values move with its bounds
      std::optional<int64_t> lo = stepOf(g, u.src.at(0), var), hi = stepOf(g, u.src.at(1), var);
      if (lo && hi && *lo == 0 && *hi == 0) return 0;
      return std::nullopt;
    }
    case UOpKind::Alu: {
      if (u.dtype != DType::i64 || (u.alu != AluOp::Add && u.alu != AluOp::Sub && u.alu != AluOp::Mul))
        return std::nullopt;
      std::optional<int64_t> a = stepOf(g, u.src.at(0), var), b = stepOf(g, u.src.at(1), var);
      if (!a || !b) return std::nullopt;
      if (u.alu == AluOp::Add) return *a + *b;
      if (u.alu == AluOp::Sub) return *a - *b;
      // A product moves linearly only with a constant factor.
      const UOp &x = g.at(u.src[0]), &y = g.at(u.src[1]);
      if (y.kind == UOpKind::Const) return *a * y.ival;
      if (x.kind == UOpKind::Const) return *b * x.ival;
      if (*a == 0 && *b == 0) return 0;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// The end of the loop that uop `loop` opens.
int endOf(const UOpGraph& g, int loop) {
  for (int k = loop + 1; k < (int)g.uops().size(); ++k)
    if (g.at(k).kind == UOpKind::EndLoop && g.at(k).src.at(0) == loop) return k;
  return (int)g.uops().size();
}

}  // namespace

std::vector<RowPrefetch> rowPrefetches(const UOpGraph& g, int loop, int rowLoop) {
  std::vector<RowPrefetch> out;
  if (rowLoop < 0) return out;
  const UOp &lo = g.at(g.at(loop).src.at(0)), &hi = g.at(g.at(loop).src.at(1));
  if (lo.kind != UOpKind::Const || hi.kind != UOpKind::Const || hi.ival - lo.ival < 2 * kRowPrefetchChunk)
    return out;
  const int end = endOf(g, loop);
  for (int k = loop + 1; k < end; ++k) {
    const UOp& u = g.at(k);
    if (u.kind == UOpKind::Loop) return {};
    // A buffer the kernel writes gets its next row from this kernel, later.
    if (u.kind != UOpKind::Load || g.at(u.src.at(0)).kind != UOpKind::DefineGlobal || g.at(u.src[0]).ival != 0)
      continue;
    const int buffer = u.src[0];
    const UOp& index = g.at(u.src.at(1));
    if (index.kind != UOpKind::Alu || index.alu != AluOp::Add) continue;
    // index = rowStart + the loop's variable, rowStart from outside the loop.
    int rowStart = index.src.at(0) == loop ? index.src.at(1) : index.src.at(1) == loop ? index.src.at(0) : -1;
    if (rowStart < 0 || rowStart > loop) continue;
    std::optional<int64_t> step = stepOf(g, rowStart, rowLoop);
    if (!step || *step == 0) continue;
    if (index.vmax == INT64_MAX || (index.vmax + 1) * (int64_t)dtypeSize(u.dtype) < kRowPrefetchMinBytes) continue;
    bool readBefore = false;  // by an earlier pass of the same row
    for (int p = rowLoop + 1; p < loop && !readBefore; ++p)
      readBefore = g.at(p).kind == UOpKind::Load && g.at(p).src.at(0) == buffer;
    bool seen = false;
    for (const RowPrefetch& r : out) seen |= r.buffer == buffer;
    if (readBefore && !seen) out.push_back({buffer, rowStart, *step});
  }
  return out;
}

}  // namespace stitch
