// inferOutputTypes: a node's output types from its registered type rule, or
// from the built-in rules for prim./list./scalar. ops, or from its schema.
#include "common/error.h"
#include "ir/graph.h"
#include "ir/op_registry.h"

namespace stitch {

namespace {

using Types = std::vector<TypePtr>;

Types declaredOutputs(const Node& n) {
  Types out;
  for (size_t i = 0; i < n.outputs().size(); ++i)
    out.push_back(i < n.schema().rets.size() ? declaredType(n.schema().rets[i])
                                             : n.output(i)->type());
  return out;
}

TypePtr listElem(const Value* list) {
  const TypePtr& t = list->type();
  return t && t->kind() == TypeKind::List ? t->elem() : Type::tensor();
}

// An element at a static index of a list whose elements' types are known
// (a constructed list, the pieces of an odd chunk) has its own exact type.
TypePtr listGet(const Node& n, const StaticValues& known) {
  auto elems = known.listElementTypes(n.input(0));
  auto index = known.intValue(n.input(1));
  if (!elems || !index) return listElem(n.input(0));
  int64_t size = (int64_t)elems->size();
  int64_t i = *index < 0 ? *index + size : *index;
  return i >= 0 && i < size ? (*elems)[i] : listElem(n.input(0));
}

Types listUnpack(const Node& n, const StaticValues& known) {
  auto elems = known.listElementTypes(n.input(0));
  if (elems && elems->size() == n.outputs().size()) return *elems;
  return Types(n.outputs().size(), listElem(n.input(0)));
}

Types listConstruct(const Node& n) {
  if (n.inputs().empty()) {
    const TypePtr& cur = n.output()->type();
    return {cur && cur->kind() == TypeKind::List ? cur : Type::list(Type::tensor())};
  }
  TypePtr elem = n.input(0)->type();
  for (const Value* in : n.inputs()) {
    TypePtr joined = joinTypes(elem, in->type());
    if (!joined)
      throw UserError(errorMessage("Lists must contain only a single type, got ", elem->str(),
                                   " and ", in->type()->str()));
    elem = joined;
  }
  return {Type::list(elem)};
}

Types tupleIndex(const Node& n, const StaticValues& known) {
  const TypePtr& t = n.input(0)->type();
  if (!t || t->kind() != TypeKind::Tuple || t->elems().empty()) return {n.output()->type()};
  if (auto i = known.intValue(n.input(1))) {
    int64_t size = (int64_t)t->elems().size();
    int64_t idx = *i < 0 ? *i + size : *i;
    if (idx < 0 || idx >= size)
      throw UserError(errorMessage("tuple index out of range (index ", *i, ", size ", size, ")"));
    return {t->elems()[idx]};
  }
  TypePtr joined = t->elems()[0];
  for (const TypePtr& e : t->elems()) joined = joined ? joinTypes(joined, e) : nullptr;
  return {joined ? joined : n.output()->type()};
}

Types tupleUnpack(const Node& n) {
  const TypePtr& t = n.input(0)->type();
  if (!t || t->kind() != TypeKind::Tuple) return declaredOutputs(n);
  if (t->elems().size() != n.outputs().size())
    throw UserError(errorMessage("cannot unpack a tuple of ", t->elems().size(), " values into ",
                                 n.outputs().size()));
  return t->elems();
}

bool isEmptyList(const Value* v, const StaticValues& known) {
  auto elems = known.listElementTypes(v);
  return elems && elems->empty();
}

// A list with a grown element type: appending an int to List[int] keeps it;
// appending to a list known to be empty gives the element's exact type (an
// empty list's annotated type says nothing about shapes).
Types listResult(const Node& n, const Value* added, const StaticValues& known) {
  const TypePtr& list = n.input(0)->type();
  if (!added || !list || list->kind() != TypeKind::List) return {list ? list : Type::list(Type::tensor())};
  if (isEmptyList(n.input(0), known)) return {Type::list(added->type())};
  TypePtr joined = joinTypes(list->elem(), added->type());
  return {joined ? Type::list(joined) : list};
}

bool isFloatScalar(const Value* v) { return v->type() && v->type()->kind() == TypeKind::Float; }

// Python's arithmetic on int/float/bool: any float makes a float, bools act
// as ints; `/` is always a float; int ** negative int is a float.
Types scalarArith(const Node& n, const StaticValues& known) {
  const std::string& k = n.kind();
  bool anyFloat = false;
  for (const Value* in : n.inputs()) anyFloat = anyFloat || isFloatScalar(in);
  if (k == "scalar.truediv") return {Type::floatT()};
  if (k == "scalar.pow" && !anyFloat) {
    auto e = known.intValue(n.input(1));
    return {e && *e >= 0 ? Type::intT() : Type::floatT()};
  }
  return {anyFloat ? Type::floatT() : Type::intT()};
}

Types controlOutputs(const Node& n) {
  Types out;
  if (n.is("prim.loop")) {
    for (size_t i = 2; i < n.inputs().size() && out.size() < n.outputs().size(); ++i)
      out.push_back(n.input(i)->type());
  } else if (n.is("prim.if") && n.blocks().size() == 2) {
    for (size_t i = 0; i < n.outputs().size(); ++i) {
      const Block* a = n.block(0);
      const Block* b = n.block(1);
      TypePtr t = i < a->returns().size() && i < b->returns().size()
                      ? joinTypes(a->ret(i)->type(), b->ret(i)->type())
                      : nullptr;
      out.push_back(t ? t : n.output(i)->type());
    }
  }
  for (size_t i = out.size(); i < n.outputs().size(); ++i) out.push_back(n.output(i)->type());
  return out;
}

Types builtinOutputs(const Node& n, const StaticValues& known) {
  const std::string& k = n.kind();
  if (k == "prim.constant")
    return {n.hasAttr("value") ? n.attr("value").type() : n.output()->type()};
  if (k == "prim.uninitialized") return {n.output()->type()};  // typed by its creator
  if (k == "prim.list_construct") return listConstruct(n);
  if (k == "prim.list_unpack") return listUnpack(n, known);
  if (k == "prim.tuple_construct") {
    Types elems;
    for (const Value* in : n.inputs()) elems.push_back(in->type());
    return {Type::tuple(elems)};
  }
  if (k == "prim.tuple_unpack") return tupleUnpack(n);
  if (k == "prim.tuple_index") return tupleIndex(n, known);
  if (k == "prim.loop" || k == "prim.if") return controlOutputs(n);
  if (k == "list.get") return {listGet(n, known)};
  if (k == "list.set") return listResult(n, n.input(2), known);
  if (k == "list.append") return listResult(n, n.input(1), known);
  if (k == "list.slice") return listResult(n, nullptr, known);
  if (k == "list.add") {
    const TypePtr& a = n.input(0)->type();
    const TypePtr& b = n.input(1)->type();
    if (isEmptyList(n.input(0), known)) return {b};
    if (isEmptyList(n.input(1), known)) return {a};
    TypePtr joined = joinTypes(a, b);
    return {joined ? joined : a};
  }
  const OpSchema& s = n.schema();
  bool returnsScalar = s.rets.size() == 1 && s.rets[0].type == ArgType::Scalar && !s.rets[0].isList;
  if (k.rfind("scalar.", 0) == 0 && returnsScalar) return scalarArith(n, known);
  return declaredOutputs(n);
}

}  // namespace

std::vector<TypePtr> inferOutputTypes(const Node& node, const StaticValues& known) {
  if (const TypeRule* rule = OpRegistry::get().typeRule(node.kind())) return (*rule)(node, known);
  return builtinOutputs(node, known);
}

std::vector<TypePtr> inferOutputTypes(const Node& node) {
  StaticValues plain;
  return inferOutputTypes(node, plain);
}

}  // namespace stitch
