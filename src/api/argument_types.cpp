#include "api/argument_types.h"

#include "api/value_bridge.h"
#include "common/error.h"

namespace stitch {

namespace {

void requireAtMostOnePerParameter(const FunctionSignature& fn, size_t given) {
  if (given > fn.argNames.size())
    throw UserError(errorMessage(fn.name, "() takes ", fn.argNames.size(), " arguments but ", given,
                                 " were given"));
}

}  // namespace

std::vector<TypePtr> argumentTypes(const FunctionSignature& fn, const std::vector<std::optional<api::Value>>& args) {
  requireAtMostOnePerParameter(fn, args.size());
  std::vector<TypePtr> types;
  types.reserve(fn.argNames.size());
  for (size_t i = 0; i < fn.argNames.size(); ++i) {
    bool given = i < args.size() && args[i];
    bool emptyList = given && args[i]->kind() == api::Value::Kind::List && args[i]->items().empty() &&
                     fn.argTypes[i]->kind() == TypeKind::List;
    types.push_back(given && !emptyList ? typeOf(*args[i]) : fn.argTypes[i]);
  }
  return types;
}

ListInputTypes listElementTypes(const FunctionSignature& fn, const std::vector<std::optional<api::Value>>& args) {
  requireAtMostOnePerParameter(fn, args.size());
  ListInputTypes out(fn.argNames.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i] || args[i]->kind() != api::Value::Kind::List) continue;
    std::vector<TypePtr> elements;
    for (const api::Value& e : args[i]->items()) elements.push_back(typeOf(e));
    out[i] = std::move(elements);
  }
  return out;
}

}  // namespace stitch
