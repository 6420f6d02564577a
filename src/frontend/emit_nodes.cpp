// Node creation for the emitter: constants, registry-resolved op calls,
// containers (lists, tuples) and conversions.
#include "frontend/emitter.h"

namespace stitch {

namespace {

bool isIntLike(const TypePtr& t) {
  return t->kind() == TypeKind::Int || t->kind() == TypeKind::Bool;
}

// Python scalar arithmetic result types (TorchScript's: int ** int is float).
TypePtr scalarResultType(const std::string& name, const std::vector<Value*>& in) {
  static const std::set<std::string> keepsInt = {"scalar.add",      "scalar.sub", "scalar.mul",
                                                 "scalar.floordiv", "scalar.mod", "scalar.min",
                                                 "scalar.max"};
  if (keepsInt.count(name)) {
    return isIntLike(in[0]->type()) && isIntLike(in[1]->type()) ? Type::intT() : Type::floatT();
  }
  if (name == "scalar.neg" || name == "scalar.abs")
    return isIntLike(in[0]->type()) ? Type::intT() : Type::floatT();
  return nullptr;  // the schema's declared return is exact
}

std::string constantKey(const Constant& c) {
  return std::to_string(c.variant().index()) + ":" + c.str();
}

}  // namespace

std::string Emitter::typeName(const TypePtr& t) {
  if (!t) return "?";
  switch (t->kind()) {
    case TypeKind::Tensor:
      return "Tensor";
    case TypeKind::List:
      return "List[" + typeName(t->elem()) + "]";
    case TypeKind::Tuple: {
      std::string s = "Tuple[";
      for (size_t i = 0; i < t->elems().size(); ++i) s += (i ? ", " : "") + typeName(t->elems()[i]);
      return s + "]";
    }
    case TypeKind::Int:
    case TypeKind::Float:
    case TypeKind::Bool:
    case TypeKind::None:
    case TypeKind::Str:
    case TypeKind::DTypeT:
      return t->str();
  }
  return t->str();
}

TypePtr Emitter::loopType(const TypePtr& t) {
  return mapTensorTypes(t, [](const TypePtr&) { return Type::tensor(); });
}

Value* Emitter::constant(const Constant& c, const SourceLoc& loc) {
  std::string key = constantKey(c);
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  Value* v = graph_->constant(c, loc);
  constants_[key] = v;
  return v;
}

Node* Emitter::append(Node* n, const SourceLoc& loc) {
  n->setLoc(loc);
  frame_->block->append(n);
  return n;
}

Node* Emitter::emitOp(const std::string& name, const std::vector<Value*>& positional,
                      const std::vector<std::pair<std::string, Value*>>& keywords,
                      const SourceLoc& loc) {
  OpRegistry& registry = OpRegistry::get();
  std::vector<CallArg> pos;
  for (Value* v : positional) pos.push_back(CallArg{v->type(), constantOf(v)});
  std::vector<std::pair<std::string, CallArg>> kw;
  for (const auto& [k, v] : keywords) kw.emplace_back(k, CallArg{v->type(), constantOf(v)});
  Binding binding;
  try {
    binding = registry.resolve(name, pos, kw);
  } catch (const UserError& e) {
    throw e.withLoc(loc);
  }
  std::vector<Value*> inputs;
  for (const Binding::Slot& slot : binding.slots) {
    Value* v = nullptr;
    switch (slot.source) {
      case Binding::Slot::Positional:
        v = positional.at(slot.index);
        break;
      case Binding::Slot::Keyword:
        v = keywords.at(slot.index).second;
        break;
      case Binding::Slot::Default:
        v = constant(slot.defaultValue, loc);
        break;
    }
    if (slot.wrapInList) v = makeIntList({v}, loc);
    inputs.push_back(v);
  }
  Node* n = append(graph_->create(*binding.schema, inputs), loc);
  if (TypePtr t = name.rfind("scalar.", 0) == 0 ? scalarResultType(name, inputs) : nullptr) {
    n->output()->setType(t);
    return n;
  }
  if (name.rfind("scalar.", 0) == 0) return n;
  try {
    std::vector<TypePtr> types = inferOutputTypes(*n);
    for (size_t i = 0; i < types.size() && i < n->outputs().size(); ++i)
      if (types[i]) n->output(i)->setType(types[i]);
  } catch (const UserError& e) {
    throw e.withLoc(loc);
  }
  return n;
}

Value* Emitter::op(const std::string& name, const std::vector<Value*>& positional,
                   const SourceLoc& loc,
                   const std::vector<std::pair<std::string, Value*>>& keywords) {
  Node* n = emitOp(name, positional, keywords, loc);
  STITCH_ASSERT(n->outputs().size() == 1, name, " has ", n->outputs().size(), " outputs");
  return n->output();
}

Node* Emitter::emitPrim(const std::string& name, const std::vector<Value*>& inputs,
                        const std::vector<TypePtr>& outTypes, const SourceLoc& loc) {
  Node* n = graph_->create(name, inputs, outTypes.size());
  for (size_t i = 0; i < outTypes.size(); ++i) n->output(i)->setType(outTypes[i]);
  return append(n, loc);
}

Value* Emitter::makeList(const std::vector<Value*>& elems, TypePtr elemType, const SourceLoc& loc) {
  if (!elemType) elemType = elems.empty() ? Type::tensor() : elems[0]->type();
  for (Value* e : elems) {
    TypePtr joined = joinTypes(elemType, e->type());
    if (joined) {
      elemType = joined;
      continue;
    }
    if (isIntLike(elemType) && e->type()->kind() == TypeKind::Float) {
      throw UserError("lists mixing int and float elements are not supported", loc);
    }
    throw UserError(errorMessage("list elements must have one type, got ", typeName(elemType),
                                 " and ", typeName(e->type())),
                    loc);
  }
  return emitPrim("prim.list_construct", elems, {Type::list(elemType)}, loc)->output();
}

Value* Emitter::makeIntList(const std::vector<Value*>& elems, const SourceLoc& loc) {
  std::vector<int64_t> values;
  for (Value* e : elems) {
    if (e->type()->kind() != TypeKind::Int)
      throw UserError("expected an int, got " + typeName(e->type()), loc);
    const Constant* c = constantOf(e);
    if (c && c->isInt()) values.push_back(c->toInt());
  }
  if (values.size() == elems.size()) return constant(Constant(values), loc);
  return makeList(elems, Type::intT(), loc);
}

Value* Emitter::makeTuple(const std::vector<Value*>& elems, const SourceLoc& loc) {
  std::vector<TypePtr> types;
  for (Value* e : elems) types.push_back(e->type());
  return emitPrim("prim.tuple_construct", elems, {Type::tuple(types)}, loc)->output();
}

std::vector<Value*> Emitter::unpackTuple(Value* tuple, const SourceLoc& loc) {
  Node* producer = tuple->node();
  if (producer->is("prim.tuple_construct")) return producer->inputs();
  Node* n = emitPrim("prim.tuple_unpack", {tuple}, tuple->type()->elems(), loc);
  return n->outputs();
}

std::vector<Value*> Emitter::unpackList(Value* list, size_t n, const SourceLoc& loc) {
  Node* producer = list->node();
  if (producer->is("prim.list_construct") && producer->inputs().size() == n)
    return producer->inputs();
  if (producer->is("prim.list_construct"))
    throw UserError(errorMessage("cannot unpack a list of ", producer->inputs().size(),
                                 " values into ", n, " targets"),
                    loc);
  std::vector<TypePtr> types(n, list->type()->elem());
  return emitPrim("prim.list_unpack", {list}, types, loc)->outputs();
}

Value* Emitter::tupleToList(Value* tuple, const SourceLoc& loc) {
  std::vector<Value*> elems = unpackTuple(tuple, loc);
  bool allInts = !elems.empty();
  for (Value* e : elems) allInts &= e->type()->kind() == TypeKind::Int;
  if (allInts) return makeIntList(elems, loc);
  return makeList(elems, nullptr, loc);
}

Value* Emitter::toBool(Value* v, const SourceLoc& loc) {
  switch (v->type()->kind()) {
    case TypeKind::Bool:
      return v;
    case TypeKind::Int:
    case TypeKind::Float: {
      const Constant* c = constantOf(v);
      if (c) return constant(Constant(c->toDouble() != 0.0), loc);
      return op("scalar.to_bool", {v}, loc);
    }
    case TypeKind::Tensor:
      return op("item.bool", {v}, loc);
    case TypeKind::None:
      return constant(Constant(false), loc);
    case TypeKind::List:
    case TypeKind::Tuple:
    case TypeKind::Str:
    case TypeKind::DTypeT:
      break;
  }
  throw UserError("a value of type " + typeName(v->type()) + " cannot be used as a condition", loc);
}

Value* Emitter::listGet(Value* list, Value* index, const SourceLoc& loc) {
  if (index->type()->kind() != TypeKind::Int)
    throw UserError("list indices must be integers, not " + typeName(index->type()), loc);
  return emitPrim("list.get", {list, index}, {list->type()->elem()}, loc)->output();
}

}  // namespace stitch
