#include "ir/static_value.h"

#include "ir/constant.h"

namespace stitch {

std::optional<int64_t> staticInt(const Value* v) {
  const Constant* k = constantOf(v);
  if (k && k->isInt()) return k->toInt();
  return std::nullopt;
}

std::optional<std::vector<int64_t>> staticIntList(const Value* v) {
  const Constant* k = constantOf(v);
  if (k && k->isIntList()) return k->toIntList();
  if (k && k->isInt()) return std::vector<int64_t>{k->toInt()};
  if (!v->node() || !v->node()->is("prim.list_construct")) return std::nullopt;
  std::vector<int64_t> out;
  for (const Value* e : v->node()->inputs()) {
    std::optional<int64_t> i = staticInt(e);
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

bool isNoneConstant(const Value* v) {
  if (v->type()->kind() == TypeKind::None) return true;
  const Constant* k = constantOf(v);
  return k && k->isNone();
}

int64_t numelOfShape(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace stitch
