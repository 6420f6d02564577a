// StaticValues' base answers: what prim.constant and prim.list_construct
// producers say about a value.
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/type_rules/type_rules.h"

namespace stitch {

const Constant* StaticValues::constant(const Value* v) const { return constantOf(v); }

std::optional<int64_t> StaticValues::intValue(const Value* v) const {
  const Constant* c = constant(v);
  if (!c) return std::nullopt;
  if (c->isInt()) return c->toInt();
  if (c->isBool()) return c->toBool() ? 1 : 0;
  return std::nullopt;
}

std::optional<bool> StaticValues::boolValue(const Value* v) const {
  const Constant* c = constant(v);
  if (c && c->isBool()) return c->toBool();
  return std::nullopt;
}

std::optional<double> StaticValues::doubleValue(const Value* v) const {
  const Constant* c = constant(v);
  if (c && (c->isFloat() || c->isInt() || c->isBool())) return c->toDouble();
  return std::nullopt;
}

bool StaticValues::isNone(const Value* v) const {
  if (v->type() && v->type()->kind() == TypeKind::None) return true;
  const Constant* c = constant(v);
  return c && c->isNone();
}

std::optional<std::vector<std::optional<int64_t>>> StaticValues::intList(const Value* v) const {
  using Result = std::vector<std::optional<int64_t>>;
  if (const Constant* c = constant(v)) {
    if (c->isIntList()) return Result(c->toIntList().begin(), c->toIntList().end());
    if (c->isInt()) return Result{c->toInt()};
    return std::nullopt;
  }
  if (v->type() && v->type()->kind() == TypeKind::Int) return Result{intValue(v)};
  if (!v->node() || !v->node()->is("prim.list_construct")) return std::nullopt;
  Result items;
  for (const Value* in : v->node()->inputs()) items.push_back(intValue(in));
  return items;
}

std::optional<std::vector<TypePtr>> StaticValues::listElementTypes(const Value* v) const {
  if (const Constant* c = constant(v)) {
    if (!c->isIntList()) return std::nullopt;
    return std::vector<TypePtr>(c->toIntList().size(), Type::intT());
  }
  const Node* producer = v->node();
  if (!producer) return std::nullopt;
  if (producer->is("prim.list_construct")) {
    std::vector<TypePtr> types;
    for (const Value* in : producer->inputs()) types.push_back(in->type());
    return types;
  }
  if (producer->is("chunk") || producer->is("split") || producer->is("unbind")) return viewPieceTypes(*producer, *this);
  if (producer->is("list.append")) {
    auto types = listElementTypes(producer->input(0));
    if (types) types->push_back(producer->input(1)->type());
    return types;
  }
  return std::nullopt;
}

}  // namespace stitch
