#include "codegen/row_prefetch.h"

#include <optional>

#include "uops/uop_affine.h"

namespace stitch {

namespace {

// Below this many bytes read through the index the rows mostly stay in
// the L2 of the cores that read them (1-2 MB a core on current x86), and
// the prefetches would only cost instructions.
constexpr int64_t kRowPrefetchMinBytes = int64_t(1) << 20;

}  // namespace

std::vector<RowPrefetch> rowPrefetches(const UOpGraph& g, int loop, int rowLoop) {
  std::vector<RowPrefetch> out;
  if (rowLoop < 0) return out;
  const UOp &lo = g.at(g.at(loop).src.at(0)), &hi = g.at(g.at(loop).src.at(1));
  if (lo.kind != UOpKind::Const || hi.kind != UOpKind::Const || hi.ival - lo.ival < 2 * kRowPrefetchChunk)
    return out;
  for (int k = loop + 1; k < (int)g.uops().size(); ++k) {
    const UOp& u = g.at(k);
    if (u.kind == UOpKind::EndLoop && u.src.at(0) == loop) break;
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
    std::optional<Affine> row = affineIn(g.uops(), rowStart, rowLoop);
    if (!row || row->coef == 0) continue;
    if (index.vmax == INT64_MAX || (index.vmax + 1) * (int64_t)dtypeSize(u.dtype) < kRowPrefetchMinBytes) continue;
    bool readBefore = false;  // by an earlier pass of the same row
    for (int p = rowLoop + 1; p < loop && !readBefore; ++p)
      readBefore = g.at(p).kind == UOpKind::Load && g.at(p).src.at(0) == buffer;
    bool seen = false;
    for (const RowPrefetch& r : out) seen |= r.buffer == buffer;
    if (readBefore && !seen) out.push_back({buffer, rowStart, row->coef});
  }
  return out;
}

}  // namespace stitch
