// Shared pieces of the uop tests: random numbers, building bare uops, and
// finding uops in a linearized list.
#pragma once
#include <vector>

#include "../common/random.h"
#include "uops/uop.h"

namespace stitch::testing {

// A LOOP from constant lo to constant hi (exclusive).
inline int loop(UOpGraph& g, int64_t lo, int64_t hi) {
  return g.add(makeUOp(UOpKind::Loop, DType::i64, {g.constInt(lo), g.constInt(hi)}), false);
}

// The first uop of `kind` at or after `from`, or -1.
inline int firstOf(const UOpGraph& g, UOpKind kind, int from = 0) {
  for (int i = from; i < g.size(); ++i)
    if (g.at(i).kind == kind) return i;
  return -1;
}

inline std::vector<int> allOf(const UOpGraph& g, UOpKind kind) {
  std::vector<int> r;
  for (int i = 0; i < g.size(); ++i)
    if (g.at(i).kind == kind) r.push_back(i);
  return r;
}

// Whether uop `id` is `target` or computed from it.
inline bool dependsOn(const UOpGraph& g, int id, int target) {
  if (id == target) return true;
  for (int s : g.at(id).src)
    if (dependsOn(g, s, target)) return true;
  return false;
}

// No DIV / MOD uop depends on `loop`.
inline bool divisionFreeIn(const UOpGraph& g, int loop) {
  for (int i = 0; i < g.size(); ++i) {
    const UOp& u = g.at(i);
    if (u.kind == UOpKind::Alu && (u.alu == AluOp::Div || u.alu == AluOp::Mod) && dependsOn(g, i, loop))
      return false;
  }
  return true;
}

}  // namespace stitch::testing
