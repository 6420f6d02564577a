// Subscripts, as PyTorch evaluates them: each index element of a tensor
// subscript becomes one view op (int -> select, slice -> slice, None ->
// unsqueeze); after `...` dims count from the end so the rank need not be
// known. Subscript assignment writes through the view with copy_ / fill_.
// One index tensor (`x[idx]`, `x[:, mask]`) is advanced indexing: a copy
// (index.get) of the view the elements before it select, and assignment
// is index.put_ into that view. What follows it may only be `:` or `...`:
// the emitter does not know the index tensor's rank, so it could not tell
// which dim a later element means.
#include "frontend/emitter.h"

namespace stitch {

namespace {

std::vector<const Expr*> indexElements(const Expr& index) {
  std::vector<const Expr*> elems;
  if (index.kind == ExprKind::Tuple) {
    for (const ExprPtr& e : index.operands) elems.push_back(e.get());
  } else {
    elems.push_back(&index);
  }
  return elems;
}

bool consumesDim(const Expr& e) { return e.kind != ExprKind::None && e.kind != ExprKind::Ellipsis; }

bool isFullSlice(const Expr& e) {
  return e.kind == ExprKind::Slice && !e.operands[0] && !e.operands[1] && !e.operands[2];
}

}  // namespace

Value* Emitter::emitSubscript(const Expr& e) {
  const Expr& baseExpr = *e.operand(0);
  const Expr& index = *e.operand(1);
  // x.shape[d] -> size(x, d)
  if (baseExpr.kind == ExprKind::Attribute && baseExpr.name == "shape" &&
      index.kind != ExprKind::Slice && index.kind != ExprKind::Tuple &&
      qualifiedModuleName(*baseExpr.operand(0)).empty()) {
    Value* t = emitExpr(*baseExpr.operand(0));
    if (t->type()->isTensor()) return op("size", {t, emitExpr(index)}, e.loc);
  }
  Value* base = emitExpr(baseExpr);
  switch (base->type()->kind()) {
    case TypeKind::Tensor:
      return indexTensor(base, index, e.loc);
    case TypeKind::List:
      return indexList(base, index, e.loc);
    case TypeKind::Tuple:
      return indexTuple(base, index, e.loc);
    default:
      break;
  }
  throw UserError("'" + typeName(base->type()) + "' object is not subscriptable", e.loc);
}

Value* Emitter::indexTensor(Value* base, const Expr& index, const SourceLoc& loc) {
  TensorIndex parts = indexTensorParts(base, index, loc);
  return parts.tensor ? indexGet(parts, loc) : parts.view;
}

Value* Emitter::indexGet(const TensorIndex& parts, const SourceLoc& loc) {
  return op("index.get", {parts.view, constant(Constant(parts.dim), loc), parts.tensor}, loc);
}

Emitter::TensorIndex Emitter::indexTensorParts(Value* base, const Expr& index, const SourceLoc& loc) {
  std::vector<const Expr*> elems = indexElements(index);
  size_t ellipses = 0;
  for (const Expr* e : elems) ellipses += e->kind == ExprKind::Ellipsis;
  if (ellipses > 1) throw UserError("an index can only have a single ellipsis ('...')", loc);
  auto intConst = [&](int64_t v) { return constant(Constant(v), loc); };
  Value* v = base;
  int64_t dim = 0;
  bool afterEllipsis = false;
  TensorIndex advanced;
  for (size_t j = 0; j < elems.size(); ++j) {
    const Expr& el = *elems[j];
    if (el.kind == ExprKind::Ellipsis) {
      afterEllipsis = true;
      continue;
    }
    if (advanced.tensor) {
      if (isFullSlice(el)) continue;
      throw UserError("only ':' and '...' may follow a tensor index", el.loc);
    }
    int64_t consumedAfter = 0;
    for (size_t k = j + 1; k < elems.size(); ++k) consumedAfter += consumesDim(*elems[k]);
    int64_t d = afterEllipsis ? -(1 + consumedAfter) : dim;
    if (el.kind == ExprKind::None) {
      v = op("unsqueeze", {v, intConst(d)}, loc);
      if (!afterEllipsis) ++dim;
      continue;
    }
    if (el.kind == ExprKind::Slice) {
      if (!isFullSlice(el)) {
        auto part = [&](size_t i) -> Value* {
          if (!el.operands[i]) return constant(Constant(), loc);
          Value* p = emitExpr(*el.operands[i]);
          if (p->type()->kind() != TypeKind::Int && p->type()->kind() != TypeKind::None)
            throw UserError("slice indices must be integers or None, not " + typeName(p->type()),
                            el.operands[i]->loc);
          return p;
        };
        Value* start = part(0);
        Value* end = part(1);
        Value* step = el.operands[2] ? part(2) : intConst(1);
        if (step->type()->kind() == TypeKind::None) step = intConst(1);
        v = op("slice", {v, intConst(d), start, end, step}, loc);
      }
      if (!afterEllipsis) ++dim;
      continue;
    }
    Value* i = emitExpr(el);
    switch (i->type()->kind()) {
      case TypeKind::Int:
        v = op("select", {v, intConst(d), i}, loc);
        continue;
      case TypeKind::Tensor:
        if (afterEllipsis) throw UserError("a tensor index after '...' is not supported", el.loc);
        advanced.tensor = i;
        advanced.dim = dim;
        continue;
      default:
        throw UserError(
            "tensor indices must be integers, slices, None or '...', not " + typeName(i->type()),
            el.loc);
    }
  }
  advanced.view = v;
  return advanced;
}

void Emitter::indexPut(const TensorIndex& parts, Value* values, const SourceLoc& loc) {
  op("index.put_", {parts.view, constant(Constant(parts.dim), loc), parts.tensor, values,
                    constant(Constant(false), loc)},
     loc);
}

Value* Emitter::indexList(Value* list, const Expr& index, const SourceLoc& loc) {
  if (index.kind != ExprKind::Slice) return listGet(list, emitExpr(index), loc);
  std::vector<Value*> parts;
  for (size_t i = 0; i < 3; ++i) {
    Value* p = index.operands[i]
                   ? emitExpr(*index.operands[i])
                   : (i == 2 ? constant(Constant(int64_t(1)), loc) : constant(Constant(), loc));
    if (p->type()->kind() != TypeKind::Int && p->type()->kind() != TypeKind::None)
      throw UserError("slice indices must be integers or None", loc);
    parts.push_back(p);
  }
  return emitPrim("list.slice", {list, parts[0], parts[1], parts[2]}, {list->type()}, loc)
      ->output();
}

Value* Emitter::indexTuple(Value* tuple, const Expr& index, const SourceLoc& loc) {
  const auto& types = tuple->type()->elems();
  auto constIndex = [&](const Expr* e, int64_t dflt) -> int64_t {
    if (!e) return dflt;
    Value* v = emitExpr(*e);
    const Constant* c = constantOf(v);
    if (!c || !c->isInt()) throw UserError("tuple indices must be integer constants", e->loc);
    int64_t i = c->toInt();
    return i < 0 ? i + (int64_t)types.size() : i;
  };
  if (index.kind == ExprKind::Slice) {
    if (index.operands[2]) throw UserError("tuple slices with a step are not supported", loc);
    int64_t n = (int64_t)types.size();
    int64_t a = std::clamp<int64_t>(constIndex(index.operands[0].get(), 0), 0, n);
    int64_t b = std::clamp<int64_t>(constIndex(index.operands[1].get(), n), 0, n);
    std::vector<Value*> elems = unpackTuple(tuple, loc);
    std::vector<Value*> picked;
    for (int64_t i = a; i < b; ++i) picked.push_back(elems[(size_t)i]);
    return makeTuple(picked, loc);
  }
  int64_t i = constIndex(&index, 0);
  if (i < 0 || i >= (int64_t)types.size()) throw UserError("tuple index out of range", loc);
  if (tuple->node()->is("prim.tuple_construct")) return tuple->node()->input((size_t)i);
  return emitPrim("prim.tuple_index", {tuple, constant(Constant(i), loc)}, {types[(size_t)i]}, loc)
      ->output();
}

void Emitter::emitSubscriptAssign(const Expr& target, Value* v, const SourceLoc& loc) {
  const Expr& baseExpr = *target.operand(0);
  const Expr& index = *target.operand(1);
  Value* base = emitExpr(baseExpr);
  if (base->type()->kind() == TypeKind::List) {
    if (baseExpr.kind != ExprKind::Name)
      throw UserError("assigning into a list that is not a variable is not supported", loc);
    if (index.kind == ExprKind::Slice)
      throw UserError("slice assignment on lists is not supported", loc);
    Value* i = emitExpr(index);
    if (i->type()->kind() != TypeKind::Int)
      throw UserError("list indices must be integers, not " + typeName(i->type()), index.loc);
    if (!joinTypes(base->type()->elem(), v->type()))
      throw UserError(
          "cannot store a value of type " + typeName(v->type()) + " in a " + typeName(base->type()),
          loc);
    Value* out = emitPrim("list.set", {base, i, v}, {base->type()}, loc)->output();
    rebindMutatedList(baseExpr.name, out, loc);
    return;
  }
  if (!base->type()->isTensor())
    throw UserError("'" + typeName(base->type()) + "' object does not support item assignment",
                    loc);
  TensorIndex parts = indexTensorParts(base, index, loc);
  Value* view = parts.view;
  TypeKind k = v->type()->kind();
  if (!v->type()->isTensor() && k != TypeKind::Int && k != TypeKind::Float && k != TypeKind::Bool)
    throw UserError("cannot assign a value of type " + typeName(v->type()) + " into a tensor", loc);
  if (parts.tensor) {
    // A number becomes a tensor of the target's dtype; a tensor value must
    // have that dtype already (index_put_'s rule, which setitem keeps).
    Value* values = v->type()->isTensor()
                        ? op("prim.setitem_value", {v}, loc)
                        : op("scalar_tensor", {v}, loc, {{"dtype", op("prim.dtype", {view}, loc)}});
    indexPut(parts, values, loc);
    return;
  }
  if (v->type()->isTensor()) {
    op("copy_", {view, op("prim.setitem_value", {v}, loc)}, loc);
    return;
  }
  op("fill_", {view, v}, loc);
}

void Emitter::emitSubscriptAugAssign(const Expr& target, const std::string& opName, Value* v,
                                     const SourceLoc& loc) {
  const Expr& baseExpr = *target.operand(0);
  const Expr& index = *target.operand(1);
  const SourceLoc& at = target.loc;
  Value* base = emitExpr(baseExpr);
  if (base->type()->kind() == TypeKind::List) {
    Value* elem = indexList(base, index, at);
    if (elem->type()->isTensor()) {
      auto it = inPlaceOps().find(opName);
      if (it == inPlaceOps().end())
        throw UserError("in-place '" + opName + "=' on a tensor is not supported", loc);
      op(it->second, {elem, v}, at);
      return;
    }
    Value* updated = binaryOp(opName, elem, v, loc);
    if (baseExpr.kind != ExprKind::Name)
      throw UserError("assigning into a list that is not a variable is not supported", at);
    Value* i = emitExpr(index);
    Value* out = emitPrim("list.set", {base, i, updated}, {base->type()}, at)->output();
    rebindMutatedList(baseExpr.name, out, at);
    return;
  }
  if (!base->type()->isTensor())
    throw UserError("'" + typeName(base->type()) + "' object does not support item assignment", at);
  auto it = inPlaceOps().find(opName);
  if (it == inPlaceOps().end())
    throw UserError("in-place '" + opName + "=' on a tensor is not supported", loc);
  TensorIndex parts = indexTensorParts(base, index, at);
  if (!parts.tensor) {
    op(it->second, {parts.view, v}, at);
    return;
  }
  // x[idx] += v is x[idx] = x[idx].__iadd__(v): on the copy, then stored.
  indexPut(parts, op(it->second, {indexGet(parts, at), v}, at), at);
}

}  // namespace stitch
