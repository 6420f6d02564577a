// Expressions: names, literals, attributes, operators, conditionals.
#include <cmath>

#include "frontend/emitter.h"

namespace stitch {

namespace {

const std::map<std::string, std::string> kTensorBinary = {
    {"+", "add"},           {"-", "sub"},        {"*", "mul"},        {"/", "div"},
    {"//", "floor_divide"}, {"%", "remainder"},  {"**", "pow"},       {"@", "matmul"},
    {"&", "bitwise_and"},   {"|", "bitwise_or"}, {"^", "bitwise_xor"}};
// `scalar OP tensor`: commutative ops swap, the others have reversed forms.
const std::map<std::string, std::string> kScalarFirst = {
    {"+", "add"},        {"*", "mul"},         {"&", "bitwise_and"},
    {"|", "bitwise_or"}, {"^", "bitwise_xor"}, {"-", "rsub"},
    {"/", "rdiv"},       {"**", "rpow"},       {"//", "rfloor_divide"},
    {"%", "rremainder"}};
const std::map<std::string, std::string> kScalarBinary = {
    {"+", "scalar.add"},       {"-", "scalar.sub"}, {"*", "scalar.mul"}, {"/", "scalar.truediv"},
    {"//", "scalar.floordiv"}, {"%", "scalar.mod"}, {"**", "scalar.pow"}};
const std::map<std::string, std::string> kCompare = {{"==", "eq"}, {"!=", "ne"}, {"<", "lt"},
                                                     {"<=", "le"}, {">", "gt"},  {">=", "ge"}};
const std::map<std::string, std::string> kMirrored = {{"==", "=="}, {"!=", "!="}, {"<", ">"},
                                                      {"<=", ">="}, {">", "<"},   {">=", "<="}};

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Folds int/float arithmetic on two constants (Python semantics).
std::optional<Constant> foldBinary(const std::string& op, const Constant* a, const Constant* b) {
  if (!a || !b) return std::nullopt;
  if (a->isInt() && b->isInt()) {
    int64_t x = a->toInt(), y = b->toInt();
    if (op == "+") return Constant(x + y);
    if (op == "-") return Constant(x - y);
    if (op == "*") return Constant(x * y);
    if (op == "//" && y != 0) return Constant(floorDiv(x, y));
    if (op == "%" && y != 0) return Constant(x - floorDiv(x, y) * y);
    return std::nullopt;
  }
  bool numeric = (a->isInt() || a->isFloat()) && (b->isInt() || b->isFloat());
  if (!numeric) return std::nullopt;
  double x = a->toDouble(), y = b->toDouble();
  if (op == "+") return Constant(x + y);
  if (op == "-") return Constant(x - y);
  if (op == "*") return Constant(x * y);
  if (op == "/" && y != 0.0) return Constant(x / y);
  return std::nullopt;
}

std::string describeType(const TypePtr& t) {
  switch (t->kind()) {
    case TypeKind::Tensor:
      return "Tensor";
    case TypeKind::List:
      return "list";
    case TypeKind::Tuple:
      return "tuple";
    case TypeKind::None:
      return "NoneType";
    case TypeKind::Int:
    case TypeKind::Float:
    case TypeKind::Bool:
    case TypeKind::Str:
    case TypeKind::DTypeT:
      return t->str();
  }
  return t->str();
}

}  // namespace

Value* Emitter::emitExpr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
      return emitName(e);
    case ExprKind::Int:
      return constant(Constant(e.intValue), e.loc);
    case ExprKind::Float:
      return constant(Constant(e.floatValue), e.loc);
    case ExprKind::Bool:
      return constant(Constant(e.intValue != 0), e.loc);
    case ExprKind::None:
      return constant(Constant(), e.loc);
    case ExprKind::Str:
      return constant(Constant(e.name), e.loc);
    case ExprKind::Ellipsis:
      throw UserError("'...' is only supported inside subscripts", e.loc);
    case ExprKind::Slice:
      throw UserError("slices are only supported inside subscripts", e.loc);
    case ExprKind::Attribute:
      return emitAttribute(e);
    case ExprKind::Subscript:
      return emitSubscript(e);
    case ExprKind::Tuple: {
      std::vector<Value*> elems;
      for (const ExprPtr& x : e.operands) elems.push_back(emitExpr(*x));
      return makeTuple(elems, e.loc);
    }
    case ExprKind::List:
      return emitListLiteral(e);
    case ExprKind::Call:
      return emitCall(e);
    case ExprKind::BinOp:
      return emitBinOp(e);
    case ExprKind::UnaryOp:
      return emitUnaryOp(e);
    case ExprKind::BoolOp:
      return emitBoolOp(e);
    case ExprKind::Compare:
      return emitCompare(e);
    case ExprKind::IfExp:
      return emitIfExp(e);
  }
  throw UserError("unsupported expression", e.loc);
}

Value* Emitter::emitName(const Expr& e) {
  if (Value* v = lookupVar(e.name)) return v;
  if (findFunction(e.name))
    throw UserError("function '" + e.name + "' can only be called, not used as a value", e.loc);
  if (e.name == "torch" || e.name == "math" || module_.moduleAliases.count(e.name))
    throw UserError("module '" + e.name + "' cannot be used as a value", e.loc);
  return readVar(e.name, e.loc);
}

std::string Emitter::qualifiedModuleName(const Expr& e) const {
  if (e.kind == ExprKind::Name) {
    auto alias = module_.moduleAliases.find(e.name);
    bool isModule = e.name == "torch" || e.name == "math" || alias != module_.moduleAliases.end();
    if (!isModule) return "";
    if (const_cast<Emitter*>(this)->lookupVar(e.name)) return "";  // shadowed by a variable
    return alias != module_.moduleAliases.end() ? alias->second : e.name;
  }
  if (e.kind != ExprKind::Attribute) return "";
  std::string base = qualifiedModuleName(*e.operand(0));
  if (base.empty()) return "";
  static const std::set<std::string> submodules = {"torch.nn", "torch.nn.functional", "torch.jit",
                                                   "torch.linalg", "torch.special"};
  std::string full = base + "." + e.name;
  return submodules.count(full) ? full : "";
}

Value* Emitter::emitAttribute(const Expr& e) {
  std::string module = qualifiedModuleName(*e.operand(0));
  if (module == "torch") {
    if (auto dt = dtypeFromTorchName(e.name)) return constant(Constant(*dt), e.loc);
    if (e.name == "pi") return constant(Constant(M_PI), e.loc);
    if (e.name == "inf") return constant(Constant(INFINITY), e.loc);
    if (e.name == "nan") return constant(Constant(NAN), e.loc);
    throw UserError("torch." + e.name + " is not supported", e.loc);
  }
  if (module == "math") {
    if (e.name == "pi") return constant(Constant(M_PI), e.loc);
    if (e.name == "e") return constant(Constant(M_E), e.loc);
    if (e.name == "tau") return constant(Constant(2 * M_PI), e.loc);
    if (e.name == "inf") return constant(Constant(INFINITY), e.loc);
    if (e.name == "nan") return constant(Constant(NAN), e.loc);
    throw UserError("math." + e.name + " is not supported", e.loc);
  }
  if (!module.empty()) throw UserError(module + "." + e.name + " is not supported", e.loc);
  Value* base = emitExpr(*e.operand(0));
  if (base->type()->isTensor()) {
    if (e.name == "shape") return op("size", {base}, e.loc);
    if (e.name == "T") return op("t", {base}, e.loc);
    if (e.name == "ndim") return op("dim", {base}, e.loc);
    if (e.name == "data") return base;
    if (e.name == "dtype") {
      if (base->type()->dtype()) return constant(Constant(*base->type()->dtype()), e.loc);
      return op("prim.dtype", {base}, e.loc);
    }
  }
  // torch.max(x, dim) and friends return (values, indices) as PyTorch's named tuple.
  bool pair = base->type()->kind() == TypeKind::Tuple && base->type()->elems().size() == 2;
  if (pair && (e.name == "values" || e.name == "indices"))
    return unpackTuple(base, e.loc)[e.name == "values" ? 0 : 1];
  throw UserError("'" + describeType(base->type()) + "' object has no attribute '" + e.name + "'",
                  e.loc);
}

Value* Emitter::emitBinOp(const Expr& e) {
  Value* a = emitExpr(*e.operand(0));
  Value* b = emitExpr(*e.operand(1));
  return binaryOp(e.op, a, b, e.loc);
}

Value* Emitter::binaryOp(const std::string& opName, Value* a, Value* b, const SourceLoc& loc) {
  const TypePtr& ta = a->type();
  const TypePtr& tb = b->type();
  auto unsupported = [&]() -> Value* {
    throw UserError("unsupported operand type(s) for " + opName + ": '" + describeType(ta) +
                        "' and '" + describeType(tb) + "'",
                    loc);
  };
  if (opName == "<<" || opName == ">>")
    throw UserError("the '" + opName + "' operator is not supported", loc);
  if (ta->isTensor()) {
    if (!tb->isTensor() && !tb->isScalar()) return unsupported();
    return op(kTensorBinary.at(opName), {a, b}, loc);
  }
  if (tb->isTensor()) {
    auto it = kScalarFirst.find(opName);
    if (it == kScalarFirst.end() || !ta->isScalar()) return unsupported();
    return op(it->second, {b, a}, loc);
  }
  if (ta->kind() == TypeKind::List && tb->kind() == TypeKind::List && opName == "+") {
    if (!joinTypes(ta, tb)) return unsupported();
    return emitPrim("list.add", {a, b}, {ta}, loc)->output();
  }
  if (!ta->isScalar() || !tb->isScalar()) return unsupported();
  if (auto folded = foldBinary(opName, constantOf(a), constantOf(b))) return constant(*folded, loc);
  if (opName == "&" || opName == "|" || opName == "^") {
    if (ta->kind() != TypeKind::Bool || tb->kind() != TypeKind::Bool)
      throw UserError("bitwise operators on Python ints are not supported", loc);
    return op(opName == "&"   ? "scalar.and"
              : opName == "|" ? "scalar.or"
                              : "scalar.ne",
              {a, b}, loc);
  }
  if (opName == "@") return unsupported();
  return op(kScalarBinary.at(opName), {a, b}, loc);
}

Value* Emitter::emitUnaryOp(const Expr& e) {
  const Expr& operand = *e.operand(0);
  if (e.op == "-" && operand.kind == ExprKind::Int)
    return constant(Constant(-operand.intValue), e.loc);
  if (e.op == "-" && operand.kind == ExprKind::Float)
    return constant(Constant(-operand.floatValue), e.loc);
  Value* v = emitExpr(operand);
  if (e.op == "not") {
    Value* b = toBool(v, e.loc);
    if (const Constant* c = constantOf(b)) return constant(Constant(!c->toBool()), e.loc);
    return op("scalar.not", {b}, e.loc);
  }
  const TypePtr& t = v->type();
  if (e.op == "+") {
    if (!t->isTensor() && !t->isScalar())
      throw UserError("bad operand type for unary +: '" + describeType(t) + "'", e.loc);
    return v;
  }
  if (e.op == "-") {
    if (t->isTensor()) return op("neg", {v}, e.loc);
    if (!t->isScalar())
      throw UserError("bad operand type for unary -: '" + describeType(t) + "'", e.loc);
    if (const Constant* c = constantOf(v); c && c->isInt())
      return constant(Constant(-c->toInt()), e.loc);
    if (const Constant* c = constantOf(v); c && c->isFloat())
      return constant(Constant(-c->toDouble()), e.loc);
    return op("scalar.neg", {v}, e.loc);
  }
  // "~"
  if (t->isTensor()) return op("bitwise_not", {v}, e.loc);
  throw UserError("the '~' operator is only supported on tensors", e.loc);
}

Value* Emitter::emitInBranch(Node* ifNode, const Expr& e, bool asBool) {
  Block* block = ifNode->addBlock();
  Frame* parent = frame_;
  frame_ = pushFrame(FrameKind::Branch, block, parent);
  Value* v = emitExpr(e);
  if (asBool) v = toBool(v, e.loc);
  frame_ = parent;
  block->addReturn(v);
  return v;
}

Value* Emitter::emitBoolOp(const Expr& e) {
  bool isAnd = e.op == "and";
  Value* left = toBool(emitExpr(*e.operand(0)), e.operand(0)->loc);
  if (const Constant* c = constantOf(left)) {
    if (c->toBool() == isAnd) return toBool(emitExpr(*e.operand(1)), e.operand(1)->loc);
    return left;
  }
  // Short-circuit: the right operand is evaluated only when needed.
  Node* ifNode = emitPrim("prim.if", {left}, {Type::boolT()}, e.loc);
  if (isAnd) {
    emitInBranch(ifNode, *e.operand(1));
    ifNode->addBlock()->addReturn(constant(Constant(false), e.loc));
  } else {
    ifNode->addBlock()->addReturn(constant(Constant(true), e.loc));
    emitInBranch(ifNode, *e.operand(1));
  }
  return ifNode->output();
}

Value* Emitter::compareOp(const std::string& opName, Value* a, Value* b, const SourceLoc& loc) {
  const TypePtr& ta = a->type();
  const TypePtr& tb = b->type();
  if (opName == "is" || opName == "is not") {
    bool aNone = ta->kind() == TypeKind::None, bNone = tb->kind() == TypeKind::None;
    if (!aNone && !bNone)
      throw UserError("'" + opName + "' is only supported for comparisons with None", loc);
    bool same = aNone && bNone;
    return constant(Constant(opName == "is" ? same : !same), loc);
  }
  if (ta->isTensor()) return op(kCompare.at(opName), {a, b}, loc);
  if (tb->isTensor()) return op(kCompare.at(kMirrored.at(opName)), {b, a}, loc);
  const Constant* ca = constantOf(a);
  const Constant* cb = constantOf(b);
  if (ta->isScalar() && tb->isScalar()) {
    if (ca && cb) {
      double x = ca->toDouble(), y = cb->toDouble();
      bool r = opName == "=="   ? x == y
               : opName == "!=" ? x != y
               : opName == "<"  ? x < y
               : opName == "<=" ? x <= y
               : opName == ">"  ? x > y
                                : x >= y;
      return constant(Constant(r), loc);
    }
    return op("scalar." + kCompare.at(opName), {a, b}, loc);
  }
  bool equality = opName == "==" || opName == "!=";
  if (equality && ca && cb) return constant(Constant((*ca == *cb) == (opName == "==")), loc);
  throw UserError("comparison '" + opName + "' between '" + describeType(ta) + "' and '" +
                      describeType(tb) + "' is not supported",
                  loc);
}

Value* Emitter::emitCompare(const Expr& e) {
  std::vector<Value*> operands;
  for (const ExprPtr& x : e.operands) operands.push_back(emitExpr(*x));
  Value* result = nullptr;
  for (size_t i = 0; i < e.ops.size(); ++i) {
    Value* r = compareOp(e.ops[i], operands[i], operands[i + 1], e.loc);
    if (!result) {
      result = r;
      continue;
    }
    Value* lhs = toBool(result, e.loc);
    Value* rhs = toBool(r, e.loc);
    const Constant* cl = constantOf(lhs);
    const Constant* cr = constantOf(rhs);
    if (cl && cr)
      result = constant(Constant(cl->toBool() && cr->toBool()), e.loc);
    else
      result = op("scalar.and", {lhs, rhs}, e.loc);
  }
  return result;
}

Value* Emitter::emitIfExp(const Expr& e) {
  Value* cond = toBool(emitExpr(*e.operand(0)), e.operand(0)->loc);
  if (const Constant* c = constantOf(cond)) return emitExpr(*e.operand(c->toBool() ? 1 : 2));
  Node* ifNode = emitPrim("prim.if", {cond}, {Type::tensor()}, e.loc);
  Value* a = emitInBranch(ifNode, *e.operand(1), false);
  Value* b = emitInBranch(ifNode, *e.operand(2), false);
  TypePtr joined = joinTypes(a->type(), b->type());
  if (!joined)
    throw UserError("the two sides of a conditional expression have types " + typeName(a->type()) +
                        " and " + typeName(b->type()),
                    e.loc);
  ifNode->output()->setType(joined);
  return ifNode->output();
}

Value* Emitter::emitListLiteral(const Expr& e, TypePtr elemType) {
  std::vector<Value*> elems;
  for (const ExprPtr& x : e.operands) elems.push_back(emitExpr(*x));
  bool allInts = !elems.empty() && (!elemType || elemType->kind() == TypeKind::Int);
  for (Value* v : elems) allInts &= v->type()->kind() == TypeKind::Int;
  if (allInts) return makeIntList(elems, e.loc);
  return makeList(elems, elemType, e.loc);
}

}  // namespace stitch
