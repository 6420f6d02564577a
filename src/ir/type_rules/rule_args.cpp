#include "ir/type_rules/rule_args.h"

#include "ir/view_shape.h"

namespace stitch::rules {

bool TensorInfo::shapeKnown() const {
  if (!shape) return false;
  for (int64_t d : *shape)
    if (d < 0) return false;
  return true;
}

int64_t TensorInfo::numel() const {
  if (!shapeKnown()) return -1;
  int64_t n = 1;
  for (int64_t d : *shape) n *= d;
  return n;
}

TensorInfo tensorInfo(const Value* v) {
  TensorInfo info;
  const TypePtr& t = v->type();
  if (!t || !t->isTensor()) return info;
  info.dtype = t->dtype();
  info.shape = t->shape();
  return info;
}

TypePtr tensorType(const std::optional<DType>& dtype, const std::optional<Dims>& shape) {
  return Type::tensor(dtype, shape);
}

TypePtr tensorType(const TensorInfo& info) { return Type::tensor(info.dtype, info.shape); }

std::optional<Dims> unknownShape(int64_t rank) {
  if (rank < 0) return std::nullopt;
  return Dims(rank, -1);
}

std::optional<std::vector<int64_t>> knownIntList(const StaticValues& known, const Value* v) {
  auto items = known.intList(v);
  if (!items) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& i : *items) {
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

std::optional<std::vector<int64_t>> sizeList(const StaticValues& known, const Value* v) {
  auto items = known.intList(v);
  if (!items) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& i : *items) out.push_back(i ? *i : kUnknownSize);
  return out;
}

OptionalInt optionalInt(const StaticValues& known, const Value* v) {
  OptionalInt r;
  if (known.isNone(v)) return r;
  r.value = known.intValue(v);
  r.unknown = !r.value;
  return r;
}

}  // namespace stitch::rules
