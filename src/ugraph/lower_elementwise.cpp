// Lowering of the elementwise family: unary and binary arithmetic with
// broadcasting and PyTorch's promotion (compute in `compute`, return `out`,
// ir/elementwise_dtypes.h), where, clamp, masked_fill, conversions, clone and
// immut.assign. Mirrors interp/elementwise_*.cpp and kernels_elementwise.cpp.
#include <set>

#include "common/scalar_powers.h"
#include "ir/elementwise_dtypes.h"
#include "ugraph/lowering.h"

namespace stitch {

namespace {

using namespace lowering;

// An operand's element at the output index, converted to `dtype`.
int operandAs(LowerContext& ctx, const Value* v, const std::vector<int>& idx, DType dtype) {
  if (!isTensor(v)) return ctx.scalarAs(v, dtype);
  int e = ctx.element(v, broadcastIndex(ctx, idx, shapeOf(v)));
  return ctx.tg().cast(e, dtype);
}

bool scalarOrTensor(const Value* v) { return isTensor(v) || isScalarValue(v); }

DType outDType(const Node& n) { return dtypeOf(n.output()); }

// ---- binary ---------------------------------------------------------------

const std::set<std::string> kAlphaOps = {"add", "sub", "rsub"};
const std::set<std::string> kReversed = {"rsub", "rdiv", "rpow", "rfloor_divide", "rremainder"};
const std::set<std::string> kBoolComputeOk = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and",
                                              "logical_or", "logical_xor", "bitwise_and",
                                              "bitwise_or", "bitwise_xor"};

std::string forwardName(const std::string& op) {
  return kReversed.count(op) ? op.substr(1) : op;
}

bool acceptBinary(const Node& n) {
  const std::string& op = n.kind();
  const Value *self = n.input(0), *other = n.input(1);
  if (!isTensor(self) || !scalarOrTensor(other)) return false;
  ElementwiseTypes types = binaryOpTypes(op, promoteArgOf(self), promoteArgOf(other));
  if (types.out != outDType(n)) return false;
  if (types.compute == DType::b8 && !kBoolComputeOk.count(op)) return false;
  if (kAlphaOps.count(op)) {
    const Value* alpha = n.input(2);
    if (!isScalarValue(alpha)) return false;
    TypeKind k = alpha->type()->kind();
    checkAlpha(types.compute, k == TypeKind::Bool  ? ScalarKind::Bool
                              : k == TypeKind::Int ? ScalarKind::Int
                                                   : ScalarKind::Float);
  }
  std::string fwd = forwardName(op);
  bool reversed = fwd != op;
  const Value* divisorOrExp = reversed ? self : other;
  if (!isFloating(types.compute)) {
    // Integer division by zero raises in the interpreter; a negative scalar
    // integer power raises too. Only non-zero (non-negative) constants pass.
    if (fwd == "floor_divide" || fwd == "remainder") {
      auto d = isTensor(divisorOrExp) ? std::nullopt : constDouble(divisorOrExp);
      if (!d || *d == 0) return false;
    }
    if (fwd == "pow" && !isTensor(divisorOrExp)) {
      auto e = constDouble(divisorOrExp);
      if (!e || *e < 0) return false;
    }
  }
  return true;
}

AluOp binaryAlu(const std::string& fwd) {
  static const std::map<std::string, AluOp> ops = {
      {"add", AluOp::Add},          {"sub", AluOp::Sub},          {"mul", AluOp::Mul},
      {"div", AluOp::Div},          {"floor_divide", AluOp::FloorDiv},
      {"remainder", AluOp::Remainder}, {"pow", AluOp::Pow},      {"atan2", AluOp::Atan2},
      {"maximum", AluOp::Max},      {"minimum", AluOp::Min},      {"eq", AluOp::CmpEQ},
      {"ne", AluOp::CmpNE},         {"lt", AluOp::CmpLT},         {"le", AluOp::CmpLE},
      {"gt", AluOp::CmpLT},         {"ge", AluOp::CmpLE},         {"logical_and", AluOp::LogicalAnd},
      {"logical_or", AluOp::LogicalOr}, {"logical_xor", AluOp::LogicalXor},
      {"bitwise_and", AluOp::BitAnd}, {"bitwise_or", AluOp::BitOr}, {"bitwise_xor", AluOp::BitXor}};
  return ops.at(fwd);
}

// A floating tensor to a constant scalar power: PyTorch's exact form for
// the exponents common/scalar_powers.h lists (General otherwise).
ScalarPower scalarPowerForm(const Node& n, bool reversed, DType compute) {
  if (reversed || forwardName(n.kind()) != "pow" || !isFloating(compute) || isTensor(n.input(1)))
    return ScalarPower::General;
  auto e = constDouble(n.input(1));
  return e ? scalarPowerOf(*e) : ScalarPower::General;
}

int lowerScalarPower(ThreadGraph& tg, ScalarPower form, int x, DType t) {
  switch (form) {
    case ScalarPower::Square: return tg.alu(AluOp::Mul, t, {x, x});
    case ScalarPower::Cube: return tg.alu(AluOp::Mul, t, {tg.alu(AluOp::Mul, t, {x, x}), x});
    case ScalarPower::Sqrt: return tg.alu(AluOp::Sqrt, t, {x});
    case ScalarPower::Rsqrt: return tg.alu(AluOp::Rsqrt, t, {x});
    case ScalarPower::Reciprocal: return tg.alu(AluOp::Reciprocal, t, {x});
    case ScalarPower::InverseSquare: return tg.alu(AluOp::Reciprocal, t, {tg.alu(AluOp::Mul, t, {x, x})});
    case ScalarPower::General: break;
  }
  STITCH_ASSERT(false, "no lowering of the general power here");
  return -1;
}

int lowerBinary(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  const std::string& op = n.kind();
  ElementwiseTypes types = binaryOpTypes(op, promoteArgOf(n.input(0)), promoteArgOf(n.input(1)));
  std::string fwd = forwardName(op);
  bool reversed = fwd != op;
  const Value* lhs = reversed ? n.input(1) : n.input(0);
  const Value* rhs = reversed ? n.input(0) : n.input(1);
  DType t = types.compute;
  int a = operandAs(ctx, lhs, idx, t), b = operandAs(ctx, rhs, idx, t);
  ThreadGraph& tg = ctx.tg();
  int r;
  if (kAlphaOps.count(op)) {
    auto unit = constDouble(n.input(2));
    if (!unit || *unit != 1.0) b = tg.alu(AluOp::Mul, t, {ctx.scalarAs(n.input(2), t), b});
    r = tg.alu(fwd == "add" ? AluOp::Add : AluOp::Sub, t, {a, b});
  } else if (fwd == "logical_and" || fwd == "logical_or" || fwd == "logical_xor") {
    r = tg.alu(binaryAlu(fwd), DType::b8, {tg.cast(a, DType::b8), tg.cast(b, DType::b8)});
  } else if (fwd == "gt" || fwd == "ge") {
    r = tg.alu(binaryAlu(fwd), DType::b8, {b, a});
  } else if (auto form = scalarPowerForm(n, reversed, t); form != ScalarPower::General) {
    r = lowerScalarPower(tg, form, a, t);
  } else {
    AluOp alu = binaryAlu(fwd);
    r = tg.alu(alu, aluOpReturnsBool(alu) ? DType::b8 : t, {a, b});
  }
  return tg.cast(r, types.out);
}

// ---- unary ----------------------------------------------------------------

const std::map<std::string, AluOp>& unaryAlus() {
  static const std::map<std::string, AluOp> ops = {
      {"exp", AluOp::Exp},       {"log", AluOp::Log},         {"sqrt", AluOp::Sqrt},
      {"rsqrt", AluOp::Rsqrt},   {"sin", AluOp::Sin},         {"cos", AluOp::Cos},
      {"tan", AluOp::Tan},       {"tanh", AluOp::Tanh},       {"sigmoid", AluOp::Sigmoid},
      {"silu", AluOp::Silu},     {"erf", AluOp::Erf},         {"reciprocal", AluOp::Reciprocal},
      {"log1p", AluOp::Log1p},   {"expm1", AluOp::Expm1},     {"log2", AluOp::Log2},
      {"exp2", AluOp::Exp2},     {"asin", AluOp::Asin},       {"acos", AluOp::Acos},
      {"atan", AluOp::Atan},     {"sinh", AluOp::Sinh},       {"cosh", AluOp::Cosh},
      {"neg", AluOp::Neg},       {"abs", AluOp::Abs},         {"relu", AluOp::Relu},
      {"floor", AluOp::Floor},   {"ceil", AluOp::Ceil},       {"sign", AluOp::Sign},
      {"round", AluOp::Round},   {"trunc", AluOp::Trunc},     {"logical_not", AluOp::LogicalNot},
      {"bitwise_not", AluOp::BitNot}, {"isnan", AluOp::IsNan}};
  return ops;
}

bool acceptUnary(const Node& n) {
  if (!isTensor(n.input(0))) return false;
  ElementwiseTypes types = unaryOpTypes(n.kind(), dtypeOf(n.input(0)));
  if (types.out != outDType(n)) return false;
  if (n.is("gelu")) {
    const Constant* k = constantOf(n.input(1));
    return k && k->isStr() && (k->toStr() == "none" || k->toStr() == "tanh");
  }
  return true;
}

int lowerUnary(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  const std::string& op = n.kind();
  ElementwiseTypes types = unaryOpTypes(op, dtypeOf(n.input(0)));
  DType t = types.compute;
  ThreadGraph& tg = ctx.tg();
  int x = operandAs(ctx, n.input(0), idx, t);
  int r;
  if (op == "gelu") {
    bool tanhForm = constantOf(n.input(1))->toStr() == "tanh";
    r = tg.alu(tanhForm ? AluOp::GeluTanh : AluOp::GeluErf, t, {x});
  } else if (op == "square") {
    r = tg.alu(AluOp::Mul, t, {x, x});
  } else if (op == "logical_not") {
    r = tg.alu(AluOp::LogicalNot, DType::b8, {tg.cast(x, DType::b8)});
  } else if (op == "isnan") {
    r = isFloating(t) ? tg.alu(AluOp::IsNan, DType::b8, {x}) : tg.constInt(0, DType::b8);
  } else if (!isFloating(t) && (op == "floor" || op == "ceil" || op == "round" || op == "trunc")) {
    r = x;  // integers are already whole
  } else if (t == DType::b8 && op == "sign") {
    r = x;
  } else {
    AluOp alu = unaryAlus().at(op);
    r = tg.alu(alu, aluOpReturnsBool(alu) ? DType::b8 : t, {x});
  }
  return tg.cast(r, types.out);
}

// ---- where / clamp / masked_fill / conversions ----------------------------

bool acceptWhere(const Node& n) {
  const Value *cond = n.input(0), *a = n.input(1), *b = n.input(2);
  if (!isTensor(cond) || !scalarOrTensor(a) || !scalarOrTensor(b)) return false;
  return whereResultType(dtypeOf(cond), promoteArgOf(a), promoteArgOf(b)) == outDType(n);
}

int lowerWhere(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  DType t = outDType(n);
  int cond = operandAs(ctx, n.input(0), idx, DType::b8);
  int a = operandAs(ctx, n.input(1), idx, t), b = operandAs(ctx, n.input(2), idx, t);
  return ctx.tg().alu(AluOp::Where, t, {cond, a, b});
}

std::optional<PromoteArg> boundArg(const Value* v) {
  if (isNoneValue(v)) return std::nullopt;
  return promoteArgOf(v);
}

bool acceptClamp(const Node& n) {
  const Value *self = n.input(0), *lo = n.input(1), *hi = n.input(2);
  if (!isTensor(self)) return false;
  for (const Value* b : {lo, hi})
    if (!isNoneValue(b) && !scalarOrTensor(b)) return false;
  return clampResultType(promoteArgOf(self), boundArg(lo), boundArg(hi)) == outDType(n);
}

int lowerClamp(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  const Value *lo = n.input(1), *hi = n.input(2);
  DType t = outDType(n);
  ThreadGraph& tg = ctx.tg();
  int x = operandAs(ctx, n.input(0), idx, t);
  bool tensorBounds = (!isNoneValue(lo) && isTensor(lo)) || (!isNoneValue(hi) && isTensor(hi));
  if (tensorBounds) {
    // max(self, min) then min(., max), NaN from any side wins.
    if (!isNoneValue(lo)) x = tg.alu(AluOp::Max, t, {x, operandAs(ctx, lo, idx, t)});
    if (!isNoneValue(hi)) x = tg.alu(AluOp::Min, t, {x, operandAs(ctx, hi, idx, t)});
    return x;
  }
  // Scalar bounds: a NaN element stays NaN (comparisons with it are false).
  if (!isNoneValue(lo)) {
    int l = ctx.scalarAs(lo, t);
    x = tg.alu(AluOp::Where, t, {tg.alu(AluOp::CmpLT, DType::b8, {x, l}), l, x});
  }
  if (!isNoneValue(hi)) {
    int h = ctx.scalarAs(hi, t);
    x = tg.alu(AluOp::Where, t, {tg.alu(AluOp::CmpLT, DType::b8, {h, x}), h, x});
  }
  return x;
}

bool acceptMaskedFill(const Node& n) {
  const Value *self = n.input(0), *mask = n.input(1), *value = n.input(2);
  // Integer masks are checked for 0/1 values at run time: host op.
  if (!isTensor(self) || !isTensor(mask) || dtypeOf(mask) != DType::b8) return false;
  if (isTensor(value) ? !shapeOf(value).empty() : !isScalarValue(value)) return false;
  return broadcastShapes(shapeOf(self), shapeOf(mask)) == shapeOf(self) && outDType(n) == dtypeOf(self);
}

int lowerMaskedFill(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  DType t = outDType(n);
  int self = operandAs(ctx, n.input(0), idx, t);
  int mask = operandAs(ctx, n.input(1), idx, DType::b8);
  int value = operandAs(ctx, n.input(2), idx, t);
  return ctx.tg().alu(AluOp::Where, t, {mask, value, self});
}

// `to` the dtype a tensor already has returns that tensor itself (an alias
// an in-place op of an imperative graph may write through): host op.
bool acceptTo(const Node& n) {
  auto dt = constDType(n.input(1));
  return isTensor(n.input(0)) && dt && *dt == outDType(n) && *dt != dtypeOf(n.input(0));
}

// The element converted to the output dtype, broadcast to the output shape
// (to, clone, immut.assign(self, src) whose src broadcasts to self).
int lowerConvert(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  const Value* src = n.is("immut.assign") ? n.input(1) : n.input(0);
  return operandAs(ctx, src, idx, outDType(n));
}

bool acceptClone(const Node& n) { return isTensor(n.input(0)); }

bool acceptAssign(const Node& n) {
  const Value *self = n.input(0), *src = n.input(1);
  if (!isTensor(self) || !isTensor(src)) return false;
  return broadcastShapes(shapeOf(self), shapeOf(src)) == shapeOf(self) && outDType(n) == dtypeOf(self);
}

// lerp(self, end, weight) with a scalar weight, in the tensors' dtype:
// weight < 0.5 ? self + weight * (end - self) : end - (end - self) * (1 - weight).
bool acceptLerp(const Node& n) {
  const Value *self = n.input(0), *end = n.input(1), *w = n.input(2);
  if (!isTensor(self) || !isTensor(end) || !isScalarValue(w)) return false;
  checkLerpTypes(dtypeOf(self), dtypeOf(end));
  return outDType(n) == dtypeOf(self);
}

int lowerLerp(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  DType t = outDType(n);
  int x = operandAs(ctx, n.input(0), idx, t), y = operandAs(ctx, n.input(1), idx, t);
  int w = ctx.scalarAs(n.input(2), t);
  int diff = tg.alu(AluOp::Sub, t, {y, x});
  int low = tg.alu(AluOp::Add, t, {x, tg.alu(AluOp::Mul, t, {w, diff})});
  int oneMinus = tg.alu(AluOp::Sub, t, {tg.constFloat(1.0, t), w});
  int high = tg.alu(AluOp::Sub, t, {y, tg.alu(AluOp::Mul, t, {diff, oneMinus})});
  int small = tg.alu(AluOp::CmpLT, DType::b8, {w, tg.constFloat(0.5, t)});
  return tg.alu(AluOp::Where, t, {small, low, high});
}

}  // namespace

void registerElementwiseLowerings(LoweringTable& table) {
  for (const char* op : {"add", "sub", "rsub", "mul", "div", "floor_divide", "remainder", "pow",
                         "atan2", "rdiv", "rpow", "rfloor_divide", "rremainder", "maximum",
                         "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                         "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"})
    table[op] = LoweringRule{true, acceptBinary, lowerBinary};
  for (const auto& [op, alu] : unaryAlus()) table[op] = LoweringRule{true, acceptUnary, lowerUnary};
  table["square"] = LoweringRule{true, acceptUnary, lowerUnary};
  table["gelu"] = LoweringRule{true, acceptUnary, lowerUnary};
  table["where"] = LoweringRule{true, acceptWhere, lowerWhere};
  table["clamp"] = LoweringRule{true, acceptClamp, lowerClamp};
  table["masked_fill"] = LoweringRule{true, acceptMaskedFill, lowerMaskedFill};
  table["to"] = LoweringRule{true, acceptTo, lowerConvert};
  table["lerp"] = LoweringRule{true, acceptLerp, lowerLerp};
  table["clone"] = LoweringRule{true, acceptClone, lowerConvert};
  table["immut.assign"] = LoweringRule{true, acceptAssign, lowerConvert};
}

}  // namespace stitch
