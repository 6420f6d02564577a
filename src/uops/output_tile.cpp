#include "uops/output_tile.h"

#include <optional>

#include "common/error.h"

namespace stitch {

namespace {

class TileMatcher {
 public:
  explicit TileMatcher(const UOpGraph& g) : uops_(g.uops()), scope_(uops_.size(), -1), end_(uops_.size(), -1) {
    std::vector<int> open;
    for (int id = 0; id < (int)uops_.size(); ++id) {
      const UOp& u = uops_[id];
      scope_[id] = open.empty() ? -1 : open.back();
      if (u.kind == UOpKind::Special) grid_ = id;
      if (u.kind == UOpKind::Loop || u.kind == UOpKind::If || u.kind == UOpKind::Special) open.push_back(id);
      if ((u.kind == UOpKind::EndLoop || u.kind == UOpKind::EndIf) && !open.empty()) {
        end_[u.src.at(0)] = id;
        open.pop_back();
      }
    }
    for (int id : open) end_[id] = (int)uops_.size();
  }

  // Per qualifying tile: the store that takes it (by the tile's id).
  struct Match {
    int global = -1;  // G
    int base = -1;    // b
  };
  std::vector<std::optional<Match>> matches() const {
    std::vector<std::optional<Match>> out(uops_.size());
    std::vector<char> taken(uops_.size(), 0);  // a global holds one tile at most
    for (int id = 0; id < (int)uops_.size(); ++id) {
      if (uops_[id].kind != UOpKind::DefineLocal || (grid_ >= 0 && id < grid_)) continue;
      out[id] = match(id);
      if (out[id] && taken[out[id]->global]) out[id].reset();
      if (out[id]) taken[out[id]->global] = 1;
    }
    return out;
  }

 private:
  std::optional<Match> match(int tile) const {
    const UOp& t = uops_[tile];
    // A store of a global at b + L's variable, L in the tile's scope and
    // reading the tile at its variable.
    for (int s = tile + 1; s < (int)uops_.size(); ++s) {
      const UOp& st = uops_[s];
      if (st.kind != UOpKind::Store || uops_[st.src[0]].kind != UOpKind::DefineGlobal) continue;
      const int loop = scope_[s];
      if (loop < 0 || uops_[loop].kind != UOpKind::Loop || scope_[loop] != scope_[tile]) continue;
      const int global = st.src[0];
      const std::optional<int> base = baseOf(st.src[1], loop);
      if (!base || *base >= tile || uops_[global].dtype != t.dtype || !constant(uops_[loop].src[0], 0) ||
          !constant(uops_[loop].src[1], t.ival))
        continue;
      if (usesOk(tile, loop, global, s) && blocksApart(*base, t.ival)) return Match{global, *base};
    }
    return std::nullopt;
  }

  // b when `index` is b + loop (b defined outside the loop), else nothing.
  std::optional<int> baseOf(int index, int loop) const {
    const UOp& u = uops_[index];
    if (index == loop) return std::nullopt;  // b = 0 needs no rewrite of a base, but is rare: left alone
    if (!isAlu(index, AluOp::Add)) return std::nullopt;
    for (int k = 0; k < 2; ++k)
      if (u.src[k] == loop && u.src[1 - k] < loop) return u.src[1 - k];
    return std::nullopt;
  }

  // What else touches the tile and the global, from the tile's declaration on.
  bool usesOk(int tile, int loop, int global, int store) const {
    bool taken = false;  // the loop reads the tile
    for (int id = 0; id < (int)uops_.size(); ++id) {
      const UOp& u = uops_[id];
      const bool inLoop = id > loop && id < end_[loop];
      if (u.kind == UOpKind::Load && u.src[0] == global) return false;
      if (u.kind == UOpKind::Store && u.src[0] == global && id != store && id > tile && id < end_[loop]) return false;
      if (u.kind == UOpKind::FoldLanes && u.src[0] == tile) return false;
      if (u.kind == UOpKind::Store && u.src[0] == tile && (inLoop || id > end_[loop])) return false;
      if (u.kind == UOpKind::Load && u.src[0] == tile) {
        if (id > end_[loop]) return false;
        if (inLoop && (u.src[1] != loop || scope_[id] != loop || id > store)) return false;
        taken |= inLoop;
      }
    }
    return taken;
  }

  // Whether blocks write apart: no grid, or b = r * m (+ c) with r a
  // block's own (the grid index, or a loop over its own chunk).
  bool blocksApart(int base, int64_t n) const {
    if (grid_ < 0) return true;
    int product = base;
    int64_t cmin = 0, cmax = 0;
    const UOp& b = uops_[base];
    if (isAlu(base, AluOp::Add)) {
      for (int k = 0; k < 2; ++k) {
        const UOp& c = uops_[b.src[1 - k]];
        if (isProduct(b.src[k]) && c.dtype == DType::i64 && c.vmin >= 0 && c.vmax != INT64_MAX) {
          product = b.src[k], cmin = c.vmin, cmax = c.vmax;
          break;
        }
      }
    }
    if (!isProduct(product)) return false;
    const UOp& p = uops_[product];
    for (int k = 0; k < 2; ++k) {
      int64_t m = 0;
      if (constantValue(p.src[1 - k], &m) && cmin >= 0 && cmax + n <= m && ownRows(p.src[k])) return true;
    }
    return false;
  }

  bool isProduct(int id) const { return isAlu(id, AluOp::Mul); }

  // The grid index, or a loop over [gidx * k, hi) with hi <= gidx * k + k
  // (k > 0).
  bool ownRows(int r) const {
    if (r == grid_) return true;
    const UOp& u = uops_[r];
    if (u.kind != UOpKind::Loop) return false;
    // lo = gidx * k, or gidx itself (k = 1, the product folded away).
    int64_t k = 1;
    bool perBlock = u.src[0] == grid_;
    if (isProduct(u.src[0])) {
      const UOp& lo = uops_[u.src[0]];
      for (int j = 0; j < 2; ++j) perBlock |= lo.src[j] == grid_ && constantValue(lo.src[1 - j], &k) && k > 0;
    }
    if (!perBlock) return false;
    const int hi = u.src[1];
    if (addsAtMost(hi, u.src[0], k)) return true;
    return isAlu(hi, AluOp::Min) &&
           (addsAtMost(uops_[hi].src[0], u.src[0], k) || addsAtMost(uops_[hi].src[1], u.src[0], k));
  }

  bool isAlu(int id, AluOp op) const {
    const UOp& u = uops_[id];
    return u.kind == UOpKind::Alu && u.alu == op && u.src.size() == 2;
  }

  // Whether `id` is base + c, c a constant <= k.
  bool addsAtMost(int id, int base, int64_t k) const {
    if (!isAlu(id, AluOp::Add)) return false;
    const UOp& u = uops_[id];
    for (int j = 0; j < 2; ++j) {
      int64_t c = 0;
      if (u.src[j] == base && constantValue(u.src[1 - j], &c) && c <= k) return true;
    }
    return false;
  }

  bool constantValue(int id, int64_t* v) const {
    const UOp& u = uops_[id];
    if (u.kind != UOpKind::Const || u.dtype != DType::i64) return false;
    *v = u.ival;
    return true;
  }
  bool constant(int id, int64_t v) const {
    int64_t got = 0;
    return constantValue(id, &got) && got == v;
  }

  const std::vector<UOp>& uops_;
  std::vector<int> scope_;  // per uop: the innermost LOOP / IF / SPECIAL around it, or -1
  std::vector<int> end_;    // per LOOP / IF / SPECIAL: its closing uop
  int grid_ = -1;
};

}  // namespace

UOpGraph fillTilesInOutputs(const UOpGraph& g) {
  const std::vector<std::optional<TileMatcher::Match>> matches = TileMatcher(g).matches();
  bool any = false;
  for (const auto& m : matches) any |= m.has_value();
  if (!any) return g;
  const std::vector<UOp>& uops = g.uops();
  UOpGraph out;
  std::vector<int> map(uops.size(), -1);
  for (int id = 0; id < (int)uops.size(); ++id) {
    UOp u = uops[id];
    if (matches[id]) continue;  // the tile: its accesses go to the output
    for (int& s : u.src) s = map[s];
    const bool access = u.kind == UOpKind::Load || u.kind == UOpKind::Store;
    if (access && matches[uops[id].src[0]]) {
      const TileMatcher::Match& m = *matches[uops[id].src[0]];
      u.src[0] = map[m.global];
      u.src[1] = out.alu(AluOp::Add, DType::i64, {map[m.base], u.src[1]});
      // The output is written here: loads of it are never merged.
      map[id] = out.add(std::move(u), false);
      continue;
    }
    const bool cachable =
        u.kind == UOpKind::Const || u.kind == UOpKind::Alu || u.kind == UOpKind::Cast || u.kind == UOpKind::Load;
    map[id] = out.add(std::move(u), cachable);
    STITCH_ASSERT(map[id] >= 0, "uop ", id, " lost filling a tile in its output");
  }
  return out;
}

}  // namespace stitch
