#include "uops/uop_affine.h"

#include <algorithm>

namespace stitch {

std::optional<Affine> affineIn(const std::vector<UOp>& uops, int id, int loop) {
  const UOp& u = uops.at(id);
  if (id == loop) return Affine{1, -1, 0};
  if (u.kind == UOpKind::Const && u.dtype == DType::i64) return Affine{0, -1, u.ival};
  if (id < loop) return Affine{0, id, 0};
  if (u.kind != UOpKind::Alu || u.src.size() != 2) return std::nullopt;
  std::optional<Affine> a = affineIn(uops, u.src[0], loop), b = affineIn(uops, u.src[1], loop);
  if (!a || !b) return std::nullopt;
  if (u.alu == AluOp::Add) {
    if (a->base >= 0 && b->base >= 0) return std::nullopt;
    return Affine{a->coef + b->coef, std::max(a->base, b->base), a->offset + b->offset};
  }
  if (u.alu == AluOp::Mul) {
    if (b->coef == 0 && b->base < 0 && a->base < 0) return Affine{a->coef * b->offset, -1, a->offset * b->offset};
    if (a->coef == 0 && a->base < 0 && b->base < 0) return Affine{b->coef * a->offset, -1, b->offset * a->offset};
  }
  return std::nullopt;
}

}  // namespace stitch
