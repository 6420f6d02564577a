// Calls: torch.* functions, tensor and list methods, Python builtins, math.*,
// and calls of the file's own functions (inlined, see emit_function.cpp).
#include <algorithm>
#include <cmath>

#include "frontend/emitter.h"

namespace stitch {

namespace {

// Methods and functions taking sizes as varargs: x.view(2, 3), torch.zeros(2, 3).
const std::set<std::string> kSizeVarargMethods = {"view",   "reshape", "permute",
                                                  "expand", "repeat",  "flip"};
const std::set<std::string> kSizeVarargFunctions = {"zeros", "ones", "empty"};
const std::map<std::string, DType> kCastMethods = {{"float", DType::f32},
                                                   {"double", DType::f64},
                                                   {"long", DType::i64},
                                                   {"int", DType::i32},
                                                   {"bool", DType::b8}};
const std::set<std::string> kUnsupportedBuiltins = {
    "print",    "isinstance", "list",   "tuple", "dict", "set",   "sum",  "round",  "sorted",
    "reversed", "map",        "filter", "any",   "all",  "str",   "type", "super",  "getattr",
    "hasattr",  "id",         "iter",   "next",  "open", "input", "pow",  "divmod", "lambda"};
const std::set<std::string> kMathUnary = {"sqrt", "exp", "log", "sin", "cos", "tanh"};

double applyMath(const std::string& fn, double x) {
  if (fn == "sqrt") return std::sqrt(x);
  if (fn == "exp") return std::exp(x);
  if (fn == "log") return std::log(x);
  if (fn == "sin") return std::sin(x);
  if (fn == "cos") return std::cos(x);
  return std::tanh(x);
}

}  // namespace

Value* Emitter::opResult(Node* n, const SourceLoc& loc) {
  if (n->outputs().empty()) return constant(Constant(), loc);
  if (n->outputs().size() == 1) return n->output();
  return makeTuple(n->outputs(), loc);
}

Emitter::CallArgs Emitter::emitArgs(const Expr& call, bool tuplesAsLists) {
  auto emitArg = [&](const Expr& e) -> Value* {
    // An empty literal in argument position is a size or dim list (`zeros([])`,
    // `sum(x, [])`); no op takes an empty tensor list.
    bool emptyLiteral = (e.kind == ExprKind::List || (tuplesAsLists && e.kind == ExprKind::Tuple)) &&
                        e.operands.empty();
    if (emptyLiteral) return constant(Constant(std::vector<int64_t>{}), e.loc);
    if (tuplesAsLists && e.kind == ExprKind::Tuple) return emitListLiteral(e);
    Value* v = emitExpr(e);
    if (tuplesAsLists && v->type()->kind() == TypeKind::Tuple) return tupleToList(v, e.loc);
    return v;
  };
  CallArgs args;
  for (size_t i = 1; i < call.operands.size(); ++i)
    args.positional.push_back(emitArg(*call.operand(i)));
  for (const Keyword& k : call.keywords) args.keywords.emplace_back(k.name, emitArg(*k.value));
  return args;
}

Value* Emitter::packSizes(const std::vector<Value*>& args, size_t from, const SourceLoc& loc) {
  std::vector<Value*> sizes(args.begin() + (long)from, args.end());
  return makeIntList(sizes, loc);
}

Value* Emitter::emitCall(const Expr& e) {
  const Expr& fn = *e.operand(0);
  if (fn.kind == ExprKind::Name) {
    if (Value* v = lookupVar(fn.name))
      throw UserError("'" + typeName(v->type()) + "' object is not callable", fn.loc);
    if (const FunctionDef* def = findFunction(fn.name)) return inlineCall(*def, e);
    return emitBuiltin(fn.name, e);
  }
  if (fn.kind != ExprKind::Attribute)
    throw UserError("calling this expression is not supported", e.loc);
  std::string module = qualifiedModuleName(*fn.operand(0));
  if (module == "torch" || module == "torch.nn.functional" || module == "torch.special")
    return emitTorchCall(fn.name, e);
  if (module == "math") return emitMathCall(fn.name, e);
  if (module == "torch.jit" && fn.name == "annotate") {
    if (e.operands.size() != 3) throw UserError("torch.jit.annotate takes 2 arguments", e.loc);
    TypePtr t = annotationType(*e.operand(1));
    const Expr& value = *e.operand(2);
    Value* v = value.kind == ExprKind::List && t->kind() == TypeKind::List
                   ? emitListLiteral(value, t->elem())
                   : emitExpr(value);
    if (!joinTypes(t, v->type()))
      throw UserError(
          "value of type " + typeName(v->type()) + " does not match the annotation " + typeName(t),
          e.loc);
    return v;
  }
  if (!module.empty()) throw UserError(module + "." + fn.name + " is not supported", fn.loc);
  return emitMethodCall(e);
}

Value* Emitter::emitTorchCall(const std::string& fn, const Expr& call) {
  const SourceLoc& loc = call.loc;
  if (fn == "tensor") {
    CallArgs args = emitArgs(call, false);
    if (args.positional.size() != 1 || !args.positional[0]->type()->isScalar())
      throw UserError("torch.tensor is only supported with one Python scalar", loc);
    // torch.tensor takes its dtype from the scalar (int64, bool, the default
    // float); scalar_tensor's default is float whatever the scalar.
    const TypeKind kind = args.positional[0]->type()->kind();
    const bool typed = std::any_of(args.keywords.begin(), args.keywords.end(),
                                   [](const auto& kw) { return kw.first == "dtype"; });
    if (!typed && kind != TypeKind::Float)
      args.keywords.emplace_back("dtype", constant(Constant(kind == TypeKind::Int ? DType::i64 : DType::b8), loc));
    return opResult(emitOp("scalar_tensor", args.positional, args.keywords, loc), loc);
  }
  if (fn == "index_put_" || fn == "index_put") return emitIndexPut(fn, emitArgs(call, true), loc);
  if (!OpRegistry::get().has(fn)) throw UserError("torch." + fn + " is not supported", loc);
  CallArgs args = emitArgs(call, true);
  std::vector<Value*>& pos = args.positional;
  if (kSizeVarargFunctions.count(fn) && pos.size() > 1) pos = {packSizes(pos, 0, loc)};
  if (fn == "einsum" && pos.size() >= 2 && pos[1]->type()->isTensor()) {
    std::vector<Value*> tensors(pos.begin() + 1, pos.end());
    pos = {pos[0], makeList(tensors, Type::tensor(), loc)};
  }
  return opResult(emitOp(fn, pos, args.keywords, loc), loc);
}

// index_put(self, indices, values, accumulate=False) with one index tensor:
// index.put at dim 0. Several index tensors (pointwise indexing) are not
// supported.
Value* Emitter::emitIndexPut(const std::string& fn, const CallArgs& args, const SourceLoc& loc) {
  static const char* kNames[] = {"self", "indices", "values", "accumulate"};
  std::vector<Value*> bound(4, nullptr);
  if (args.positional.size() > 4) throw UserError(fn + "() takes at most 4 arguments", loc);
  for (size_t i = 0; i < args.positional.size(); ++i) bound[i] = args.positional[i];
  for (const auto& [name, value] : args.keywords) {
    auto at = std::find(std::begin(kNames), std::end(kNames), name);
    if (at == std::end(kNames)) throw UserError(fn + "() got an unexpected keyword argument '" + name + "'", loc);
    bound[(size_t)(at - std::begin(kNames))] = value;
  }
  for (size_t i = 0; i < 3; ++i)
    if (!bound[i]) throw UserError(fn + "() missing argument '" + kNames[i] + "'", loc);
  if (!bound[3]) bound[3] = constant(Constant(false), loc);
  Value* indices = bound[1];
  Node* list = indices->node();
  if (indices->type()->kind() != TypeKind::List || !list->is("prim.list_construct"))
    throw UserError(fn + "() needs its indices as a tuple or list of tensors", loc);
  if (list->inputs().size() != 1)
    throw UserError(fn + "() with other than one index tensor is not supported", loc);
  Value* index = list->input(0);
  if (!index->type()->isTensor()) throw UserError(fn + "() indices must be tensors", loc);
  std::string name = fn.back() == '_' ? "index.put_" : "index.put";
  return op(name, {bound[0], constant(Constant(int64_t(0)), loc), index, bound[2], bound[3]}, loc);
}

Value* Emitter::emitMathCall(const std::string& fn, const Expr& call) {
  const SourceLoc& loc = call.loc;
  CallArgs args = emitArgs(call, false);
  bool unary = kMathUnary.count(fn) || fn == "floor" || fn == "ceil";
  if (!unary) throw UserError("math." + fn + " is not supported", loc);
  if (args.positional.size() != 1 || !args.keywords.empty())
    throw UserError("math." + fn + "() takes exactly one argument", loc);
  Value* x = args.positional[0];
  if (!x->type()->isScalar())
    throw UserError("math." + fn + "() needs a number, got " + typeName(x->type()), loc);
  if (const Constant* c = constantOf(x)) {
    double d = c->toDouble();
    if (fn == "floor") return constant(Constant((int64_t)std::floor(d)), loc);
    if (fn == "ceil") return constant(Constant((int64_t)std::ceil(d)), loc);
    return constant(Constant(applyMath(fn, d)), loc);
  }
  return op("scalar." + fn, {x}, loc);
}

Value* Emitter::emitMethodCall(const Expr& call) {
  const Expr& fn = *call.operand(0);
  const Expr& baseExpr = *fn.operand(0);
  Value* self = emitExpr(baseExpr);
  switch (self->type()->kind()) {
    case TypeKind::Tensor:
      return emitTensorMethod(self, fn.name, call);
    case TypeKind::List:
      return emitListMethod(self, fn.name, call);
    default:
      break;
  }
  std::string typeStr = self->type()->kind() == TypeKind::Tuple ? "tuple" : typeName(self->type());
  throw UserError("'" + typeStr + "' object has no attribute '" + fn.name + "'", fn.loc);
}

Value* Emitter::emitTensorMethod(Value* self, const std::string& method, const Expr& call) {
  const SourceLoc& loc = call.loc;
  auto noAttr = [&]() -> Value* {
    throw UserError("'Tensor' object has no attribute '" + method + "'", call.operand(0)->loc);
  };
  CallArgs args = emitArgs(call, true);
  auto cast = kCastMethods.find(method);
  if (cast != kCastMethods.end()) {
    if (!args.positional.empty() || !args.keywords.empty())
      throw UserError("Tensor." + method + "() takes no arguments", loc);
    return op("to", {self, constant(Constant(cast->second), loc)}, loc);
  }
  if (method == "type_as") {
    if (args.positional.size() != 1 || !args.positional[0]->type()->isTensor())
      throw UserError("type_as() takes one tensor", loc);
    Value* other = args.positional[0];
    const auto& dt = other->type()->dtype();
    Value* dtype = dt ? constant(Constant(*dt), loc) : op("prim.dtype", {other}, loc);
    return op("to", {self, dtype}, loc);
  }
  if (method == "item") {
    if (!args.positional.empty()) throw UserError("item() takes no arguments", loc);
    const auto& dt = self->type()->dtype();
    std::string name = !dt || isFloating(*dt) ? "item.float"
                       : *dt == DType::b8     ? "item.bool"
                                              : "item.int";
    return op(name, {self}, loc);
  }
  if (method == "copy_" && args.positional.size() == 1 && args.keywords.empty() &&
      args.positional[0]->type()->isScalar()) {
    // PyTorch wraps a number given as copy_'s source in a 0-dim tensor,
    // which fills self: the same as fill_ (cast to self's dtype).
    return op("fill_", {self, args.positional[0]}, loc);
  }
  if (method == "index_put_" || method == "index_put") {
    args.positional.insert(args.positional.begin(), self);
    return emitIndexPut(method, args, loc);
  }
  if (!OpRegistry::get().has(method)) return noAttr();
  const OpSchema& first = *OpRegistry::get().overloads(method).front();
  if (first.args.empty() || first.args[0].type != ArgType::Tensor || first.args[0].isList)
    return noAttr();
  std::vector<Value*> pos{self};
  if (method == "where" && args.positional.size() == 2) {
    // x.where(cond, y) is torch.where(cond, x, y).
    pos = {args.positional[0], self, args.positional[1]};
  } else if (kSizeVarargMethods.count(method) && args.positional.size() > 1) {
    pos.push_back(packSizes(args.positional, 0, loc));
  } else {
    pos.insert(pos.end(), args.positional.begin(), args.positional.end());
  }
  return opResult(emitOp(method, pos, args.keywords, loc), loc);
}

Value* Emitter::emitListMethod(Value* self, const std::string& method, const Expr& call) {
  const SourceLoc& loc = call.loc;
  const Expr& baseExpr = *call.operand(0)->operand(0);
  bool mutating = method == "append" || method == "extend";
  if (!mutating)
    throw UserError("'list' object has no attribute '" + method + "'", call.operand(0)->loc);
  if (baseExpr.kind != ExprKind::Name)
    throw UserError(method + "() on a list that is not a variable is not supported", loc);
  CallArgs args = emitArgs(call, false);
  if (args.positional.size() != 1 || !args.keywords.empty())
    throw UserError(method + "() takes exactly one argument", loc);
  Value* arg = args.positional[0];
  Value* result = nullptr;
  if (method == "append") {
    if (!joinTypes(self->type()->elem(), arg->type()))
      throw UserError("cannot append a value of type " + typeName(arg->type()) + " to a " +
                          typeName(self->type()) +
                          " (annotate an empty list, e.g. `l: List[int] = []`)",
                      loc);
    result = emitPrim("list.append", {self, arg}, {self->type()}, loc)->output();
  } else {
    if (!joinTypes(self->type(), arg->type()))
      throw UserError(
          "cannot extend a " + typeName(self->type()) + " with a " + typeName(arg->type()), loc);
    result = emitPrim("list.add", {self, arg}, {self->type()}, loc)->output();
  }
  rebindMutatedList(baseExpr.name, result, loc);
  return constant(Constant(), loc);
}

Value* Emitter::emitBuiltin(const std::string& fn, const Expr& call) {
  const SourceLoc& loc = call.loc;
  if (fn == "range" || fn == "zip" || fn == "enumerate")
    throw UserError(fn + "() is only supported as the iterable of a for loop", loc);
  bool known = fn == "len" || fn == "int" || fn == "float" || fn == "bool" || fn == "abs" ||
               fn == "max" || fn == "min";
  if (!known) {
    if (kUnsupportedBuiltins.count(fn))
      throw UserError("builtin '" + fn + "' is not supported", loc);
    throw UserError("name '" + fn + "' is not defined", loc);
  }
  CallArgs args = emitArgs(call, false);
  if (!args.keywords.empty()) throw UserError(fn + "() takes no keyword arguments", loc);
  std::vector<Value*>& a = args.positional;
  if (fn == "max" || fn == "min") {
    if (a.size() < 2) throw UserError(fn + "() of a single value is not supported", loc);
    Value* acc = a[0];
    for (size_t i = 1; i < a.size(); ++i) {
      if (!acc->type()->isScalar() || !a[i]->type()->isScalar())
        throw UserError(fn + "() is only supported on Python numbers; use torch.maximum / "
                             "torch.minimum on tensors",
                        loc);
      acc = op("scalar." + fn, {acc, a[i]}, loc);
    }
    return acc;
  }
  if (a.size() != 1) throw UserError(fn + "() takes exactly one argument", loc);
  Value* x = a[0];
  TypeKind k = x->type()->kind();
  const Constant* c = constantOf(x);
  if (fn == "len") {
    if (k == TypeKind::List) {
      if (x->node()->is("prim.list_construct"))
        return constant(Constant((int64_t)x->node()->inputs().size()), loc);
      if (c && c->isIntList()) return constant(Constant((int64_t)c->toIntList().size()), loc);
      return emitPrim("list.len", {x}, {Type::intT()}, loc)->output();
    }
    if (k == TypeKind::Tuple) return constant(Constant((int64_t)x->type()->elems().size()), loc);
    if (k == TypeKind::Tensor) return op("size", {x, constant(Constant(int64_t(0)), loc)}, loc);
    throw UserError("object of type '" + typeName(x->type()) + "' has no len()", loc);
  }
  if (fn == "abs") {
    if (k == TypeKind::Tensor) return op("abs", {x}, loc);
    if (!x->type()->isScalar())
      throw UserError("bad operand type for abs(): " + typeName(x->type()), loc);
    if (c && c->isInt()) return constant(Constant(std::abs(c->toInt())), loc);
    if (c && c->isFloat()) return constant(Constant(std::fabs(c->toDouble())), loc);
    return op("scalar.abs", {x}, loc);
  }
  // int / float / bool conversions.
  if (k == TypeKind::Tensor) return op("item." + fn, {x}, loc);
  if (fn == "float" && c && c->isStr()) {
    const std::string& text = c->toStr();
    if (text == "inf" || text == "+inf") return constant(Constant(INFINITY), loc);
    if (text == "-inf") return constant(Constant(-INFINITY), loc);
    if (text == "nan") return constant(Constant(NAN), loc);
  }
  if (!x->type()->isScalar())
    throw UserError(fn + "() of a value of type " + typeName(x->type()) + " is not supported", loc);
  if (fn == "bool") return toBool(x, loc);
  if (fn == "int") {
    if (k == TypeKind::Int) return x;
    if (c) return constant(Constant((int64_t)c->toDouble()), loc);
    return op("scalar.to_int", {x}, loc);
  }
  if (k == TypeKind::Float) return x;
  if (c) return constant(Constant(c->toDouble()), loc);
  return op("scalar.to_float", {x}, loc);
}

}  // namespace stitch
