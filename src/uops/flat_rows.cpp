#include "uops/flat_rows.h"

#include <vector>

#include "ir/dtype.h"

namespace stitch {
namespace {

// An i64 value that is h + row * kRow + col * kCol, h independent of both
// loops.
struct Affine {
  bool dependent = false;  // on the row or the column loop
  bool affine = true;      // when dependent: of the form above
  int64_t kRow = 0, kCol = 0;
};

bool trapsOnData(const UOp& u, const std::vector<UOp>& uops) {
  if (u.kind == UOpKind::Cast) return isFloating(uops.at(u.src.at(0)).dtype) && !isFloating(u.dtype);
  if (u.kind != UOpKind::Alu || isFloating(u.dtype)) return false;
  return u.alu == AluOp::Div || u.alu == AluOp::Mod || u.alu == AluOp::FloorDiv || u.alu == AluOp::Remainder ||
         u.alu == AluOp::Pow;
}

bool storesToOutput(const UOp& u, const std::vector<UOp>& uops) {
  return u.kind == UOpKind::Store && uops.at(u.src.at(0)).kind == UOpKind::DefineGlobal;
}

// The uops from `from` on that a store into a kernel output depends on: the
// rest (a tile filled for the short pieces, which the long one does not
// read, and its loops) is dropped as dead later and means nothing here.
std::vector<char> liveFrom(const std::vector<UOp>& uops, int from) {
  std::vector<char> live(uops.size() - from, 0);
  for (int id = (int)uops.size() - 1; id >= from; --id) {
    if (storesToOutput(uops[id], uops)) live[id - from] = 1;
    if (live[id - from])
      for (int s : uops[id].src)
        if (s >= from) live[s - from] = 1;
  }
  return live;
}

}  // namespace

bool runsFlat(const UOpGraph& g, int rowLoop, int colLoop, int64_t rowLength) {
  const auto& uops = g.uops();
  if (uops.at(rowLoop).kind != UOpKind::Loop || uops.at(colLoop).kind != UOpKind::Loop) return false;
  const std::vector<char> live = liveFrom(uops, rowLoop);
  std::vector<Affine> a(uops.size() - rowLoop);
  auto at = [&](int id) -> Affine& { return a.at(id - rowLoop); };
  auto of = [&](int id) { return id < rowLoop ? Affine{} : at(id); };
  at(rowLoop) = {true, true, 1, 0};
  at(colLoop) = {true, true, 0, 1};
  // The index operand of a LOAD / STORE: row-major and contiguous across rows.
  auto flatIndex = [&](int id) {
    Affine f = of(id);
    return !f.dependent || (f.affine && f.kRow == f.kCol * rowLength);
  };
  std::vector<int> scopes = {rowLoop};  // open LOOPs and IFs
  for (int id = rowLoop + 1; id < (int)uops.size(); ++id) {
    const UOp& u = uops[id];
    if (u.kind == UOpKind::Loop || u.kind == UOpKind::If) {
      scopes.push_back(id);
      continue;
    }
    if (u.kind == UOpKind::EndLoop || u.kind == UOpKind::EndIf) {
      scopes.pop_back();
      continue;
    }
    if (!live[id - rowLoop]) continue;
    // What the stores need runs in the two loops only, once per element.
    if (scopes.back() != rowLoop && scopes.back() != colLoop) return false;
    bool dependent = false;
    for (int s : u.src) dependent |= of(s).dependent;
    switch (u.kind) {
      case UOpKind::Const: continue;
      case UOpKind::Load:
      case UOpKind::Store: {
        const UOp& buffer = uops.at(u.src.at(0));
        // Inputs only are read (an output's extra columns are garbage until
        // written again); outputs only are written.
        if (buffer.kind != UOpKind::DefineGlobal || (u.kind == UOpKind::Load && buffer.ival != 0)) return false;
        if (!flatIndex(u.src.at(1))) return false;
        if (u.kind == UOpKind::Store && of(u.src.at(2)).dependent && of(u.src.at(2)).affine) return false;
        at(id) = {dependent, false};
        continue;
      }
      case UOpKind::Alu:
      case UOpKind::Cast: break;
      default: return false;  // an accumulator, a block-local buffer, a definition
    }
    if (!dependent) continue;
    if (trapsOnData(u, uops)) return false;
    Affine& r = at(id);
    r = {true, false};
    std::vector<Affine> src;
    for (int s : u.src) src.push_back(of(s));
    bool anyIndex = false, allIndex = true;
    for (const Affine& s : src) {
      anyIndex |= s.dependent && s.affine;
      allIndex &= !s.dependent || s.affine;
    }
    if (!anyIndex) continue;  // element data (a loaded value and what is computed from it)
    // A loop variable in anything but index arithmetic (a comparison with
    // the column, a cast, a mix with loaded data) changes meaning on the
    // extra columns.
    if (!allIndex || u.kind != UOpKind::Alu || u.dtype != DType::i64) return false;
    if (u.alu == AluOp::Add || u.alu == AluOp::Sub) {
      const int64_t sign = u.alu == AluOp::Sub ? -1 : 1;
      r = {true, true, src[0].kRow + sign * src[1].kRow, src[0].kCol + sign * src[1].kCol};
    } else if (u.alu == AluOp::Neg) {
      r = {true, true, -src[0].kRow, -src[0].kCol};
    } else if (u.alu == AluOp::Mul && src[0].dependent != src[1].dependent) {
      const int factor = u.src[src[0].dependent ? 1 : 0];
      const Affine& term = src[0].dependent ? src[0] : src[1];
      if (uops.at(factor).kind != UOpKind::Const) return false;
      r = {true, true, term.kRow * uops.at(factor).ival, term.kCol * uops.at(factor).ival};
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace stitch
