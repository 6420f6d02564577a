// Static types of the elementwise ops and the in-place ops: the broadcast
// shape of the operands and the promoted dtype, using the same functions as
// the interpreter's kernels (ir/elementwise_dtypes.h), so a program fails
// statically with the message it would fail with at run time. Unknown
// dtypes, ranks or dims give partially known results, never errors.
#include "ir/elementwise_dtypes.h"
#include "ir/type_rules/rule_args.h"
#include "ir/type_rules/type_rules.h"

namespace stitch {

namespace {

using namespace rules;
using Types = std::vector<TypePtr>;

// A tensor or Python scalar operand as far as it is known statically.
struct StaticOperand {
  bool isTensor = false;
  TensorInfo tensor;
  std::optional<ScalarKind> scalar;

  // The promotion participant, when dtype and rank (or scalar kind) are known.
  std::optional<PromoteArg> promoteArg() const {
    if (isTensor) {
      if (!tensor.dtype || tensor.rank() < 0) return std::nullopt;
      return tensorArg(*tensor.dtype, tensor.rank());
    }
    if (!scalar) return std::nullopt;
    switch (*scalar) {
      case ScalarKind::Bool: return boolScalarArg();
      case ScalarKind::Int: return intScalarArg();
      case ScalarKind::Float: return floatScalarArg();
    }
    return std::nullopt;
  }
  std::optional<Dims> shape() const { return isTensor ? tensor.shape : Dims{}; }
};

std::optional<ScalarKind> scalarKindOf(const TypePtr& t) {
  if (!t) return std::nullopt;
  switch (t->kind()) {
    case TypeKind::Bool: return ScalarKind::Bool;
    case TypeKind::Int: return ScalarKind::Int;
    case TypeKind::Float: return ScalarKind::Float;
    case TypeKind::Tensor:
    case TypeKind::None:
    case TypeKind::Str:
    case TypeKind::DTypeT:
    case TypeKind::List:
    case TypeKind::Tuple: return std::nullopt;
  }
  return std::nullopt;
}

StaticOperand operandOf(const Value* v) {
  StaticOperand op;
  op.isTensor = v->type() && v->type()->isTensor();
  if (op.isTensor) op.tensor = tensorInfo(v);
  else op.scalar = scalarKindOf(v->type());
  return op;
}

bool isNoneValue(const Value* v, const StaticValues& k) {
  return k.isNone(v) || (v->type() && v->type()->kind() == TypeKind::None);
}

// Broadcast of every operand's shape; nullopt when a rank is unknown.
std::optional<Dims> broadcastAll(const std::vector<StaticOperand>& ops) {
  Dims out;
  for (const StaticOperand& o : ops) {
    std::optional<Dims> s = o.shape();
    if (!s) return std::nullopt;
    out = broadcastShapes(out, *s);
  }
  return out;
}

// Checks that `other` broadcasts into self's shape without growing it.
void checkInPlaceShape(const std::optional<Dims>& self, const std::optional<Dims>& other) {
  if (!self || !other) return;
  Dims b = broadcastShapes(*self, *other);
  bool grows = b.size() != self->size();
  for (size_t i = 0; !grows && i < b.size(); ++i) {
    int64_t s = (*self)[i];
    grows = s >= 0 && b[i] >= 0 && b[i] != s;
  }
  if (!grows) return;
  throw UserError(errorMessage("output with shape ", dimsToString(*self),
                               " doesn't match the broadcast shape ", dimsToString(b)));
}

std::string baseName(const std::string& op) {
  if (!op.empty() && op.back() == '_') return op.substr(0, op.size() - 1);
  return op;
}

bool hasAlpha(const std::string& op) {
  std::string n = baseName(op);
  return n == "add" || n == "sub" || n == "rsub";
}

// Dtype checks shared by the out-of-place and in-place binary rules;
// nullopt when not enough is known.
std::optional<ElementwiseTypes> binaryTypes(const Node& n, const StaticValues& k) {
  StaticOperand self = operandOf(n.input(0)), other = operandOf(n.input(1));
  auto pa = self.promoteArg(), pb = other.promoteArg();
  if (!pa || !pb) return std::nullopt;
  ElementwiseTypes types = binaryOpTypes(n.kind(), *pa, *pb);
  if (hasAlpha(n.kind()) && n.inputs().size() > 2) {
    if (auto alpha = scalarKindOf(n.input(2)->type())) checkAlpha(types.compute, *alpha);
  }
  bool intPow = baseName(n.kind()) == "pow" && !isFloating(types.compute) && !other.isTensor;
  if (intPow) {
    auto e = k.intValue(n.input(1));
    if (e && *e < 0 && other.scalar == ScalarKind::Int)
      throw UserError("Integers to negative integer powers are not allowed.");
  }
  return types;
}

Types binaryRule(const Node& n, const StaticValues& k) {
  std::optional<Dims> shape = broadcastAll({operandOf(n.input(0)), operandOf(n.input(1))});
  std::optional<ElementwiseTypes> types = binaryTypes(n, k);
  std::optional<DType> dtype;
  if (types) dtype = types->out;
  std::string base = baseName(n.kind());
  bool alwaysBool = base == "eq" || base == "ne" || base == "lt" || base == "le" || base == "gt" ||
                    base == "ge" || base.rfind("logical_", 0) == 0;
  if (alwaysBool) dtype = DType::b8;
  return {tensorType(dtype, shape)};
}

Types unaryRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  std::optional<DType> dtype;
  if (self.dtype) dtype = unaryOpTypes(n.kind(), *self.dtype).out;
  else if (n.kind() == "logical_not" || n.kind() == "isnan") dtype = DType::b8;
  if (n.kind() == "gelu" && n.inputs().size() > 1) {
    const Constant* c = k.constant(n.input(1));
    if (c && c->isStr() && c->toStr() != "none" && c->toStr() != "tanh")
      throw UserError("approximate argument must be either none or tanh.");
  }
  return {tensorType(dtype, self.shape)};
}

std::optional<PromoteArg> optionalBound(const Node& n, size_t i, const StaticValues& k,
                                        bool& unknown) {
  if (isNoneValue(n.input(i), k)) return std::nullopt;
  auto p = operandOf(n.input(i)).promoteArg();
  if (!p) unknown = true;
  return p;
}

// clamp / clamp_: the dtype promotes self with the bounds.
std::optional<DType> clampDType(const Node& n, const StaticValues& k) {
  bool unknown = false;
  auto self = operandOf(n.input(0)).promoteArg();
  auto min = optionalBound(n, 1, k, unknown);
  auto max = optionalBound(n, 2, k, unknown);
  if (!unknown && !min && !max) return clampResultType(tensorArg(DType::f32, 1), min, max);
  if (!self || unknown) return std::nullopt;
  return clampResultType(*self, min, max);
}

Types clampRule(const Node& n, const StaticValues& k) {
  std::vector<StaticOperand> ops = {operandOf(n.input(0))};
  for (size_t i : {1, 2})
    if (!isNoneValue(n.input(i), k)) ops.push_back(operandOf(n.input(i)));
  return {tensorType(clampDType(n, k), broadcastAll(ops))};
}

Types whereRule(const Node& n, const StaticValues& k) {
  StaticOperand cond = operandOf(n.input(0)), a = operandOf(n.input(1)), b = operandOf(n.input(2));
  std::optional<DType> dtype;
  auto pa = a.promoteArg(), pb = b.promoteArg();
  if (cond.tensor.dtype && pa && pb) dtype = whereResultType(*cond.tensor.dtype, *pa, *pb);
  return {tensorType(dtype, broadcastAll({cond, a, b}))};
}

void checkFillValue(const Value* v, const char* op) {
  TensorInfo value = tensorInfo(v);
  if (!v->type() || !v->type()->isTensor() || value.rank() <= 0) return;
  if (std::string(op) == "fill_") {
    throw UserError(errorMessage("fill_ only supports 0-dimension value tensor but got tensor with ",
                                 value.rank(), " dimensions."));
  }
  throw UserError(errorMessage(op, " only supports a 0-dimensional value tensor, but got tensor with ",
                               value.rank(), " dimension(s)."));
}

Types maskedFillRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0)), mask = tensorInfo(n.input(1));
  if (mask.dtype) checkMaskDType(*mask.dtype);
  checkFillValue(n.input(2), "masked_fill_");
  return {tensorType(self.dtype, broadcastAll({operandOf(n.input(0)), operandOf(n.input(1))}))};
}

Types lerpRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0)), end = tensorInfo(n.input(1));
  if (self.dtype && end.dtype) checkLerpTypes(*self.dtype, *end.dtype);
  return {tensorType(self.dtype, broadcastAll({operandOf(n.input(0)), operandOf(n.input(1))}))};
}

// In-place ops return self; they check that the result fits self.
Types inPlaceBinaryRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  checkInPlaceShape(self.shape, operandOf(n.input(1)).shape());
  std::optional<ElementwiseTypes> types = binaryTypes(n, k);
  if (types && self.dtype) requireCastable(types->out, *self.dtype);
  return {n.input(0)->type()};
}

Types inPlaceUnaryRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  if (self.dtype) requireCastable(unaryOpTypes(n.kind(), *self.dtype).out, *self.dtype);
  return {n.input(0)->type()};
}

Types inPlaceClampRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  std::optional<DType> dtype = clampDType(n, k);
  if (dtype && self.dtype) requireCastable(*dtype, *self.dtype);
  return {n.input(0)->type()};
}

Types copyInPlaceRule(const Node& n, const StaticValues& k) {
  checkInPlaceShape(tensorInfo(n.input(0)).shape, operandOf(n.input(1)).shape());
  return {n.input(0)->type()};
}

Types fillInPlaceRule(const Node& n, const StaticValues& k) {
  checkFillValue(n.input(1), "fill_");
  return {n.input(0)->type()};
}

Types maskedFillInPlaceRule(const Node& n, const StaticValues& k) {
  TensorInfo mask = tensorInfo(n.input(1));
  if (mask.dtype) checkMaskDType(*mask.dtype);
  checkInPlaceShape(tensorInfo(n.input(0)).shape, mask.shape);
  checkFillValue(n.input(2), "masked_fill_");
  return {n.input(0)->type()};
}

Types selfTypeRule(const Node& n, const StaticValues& k) { return {n.input(0)->type()}; }

const char* kBinaryOps[] = {"add",   "sub",         "rsub",          "mul",          "div",
                            "floor_divide", "remainder", "pow",      "atan2",        "rdiv",
                            "rpow",  "rfloor_divide", "rremainder",  "maximum",      "minimum",
                            "eq",    "ne",          "lt",            "le",           "gt",
                            "ge",    "logical_and", "logical_or",    "logical_xor",  "bitwise_and",
                            "bitwise_or", "bitwise_xor"};
const char* kUnaryOps[] = {"exp",   "log",  "sqrt",   "rsqrt",   "sin",   "cos",   "tanh",
                           "sigmoid", "silu", "erf",  "reciprocal", "log1p", "expm1", "log2",
                           "exp2",  "tan",  "asin",   "acos",    "atan",  "sinh",  "cosh",
                           "neg",   "abs",  "relu",   "floor",   "ceil",  "sign",  "round",
                           "trunc", "square", "logical_not", "bitwise_not", "isnan", "gelu"};

}  // namespace

void registerElementwiseTypeRules(OpRegistry& r) {
  for (const char* op : kBinaryOps) r.setTypeRule(op, binaryRule);
  for (const char* op : kUnaryOps) r.setTypeRule(op, unaryRule);
  r.setTypeRule("clamp", clampRule);
  r.setTypeRule("where", whereRule);
  r.setTypeRule("masked_fill", maskedFillRule);
  r.setTypeRule("lerp", lerpRule);
  for (const char* op : {"add_", "sub_", "mul_", "div_", "pow_", "floor_divide_", "remainder_",
                         "bitwise_and_", "bitwise_or_", "bitwise_xor_"})
    r.setTypeRule(op, inPlaceBinaryRule);
  for (const char* op : {"relu_", "sigmoid_", "tanh_", "exp_", "neg_", "abs_", "sqrt_"})
    r.setTypeRule(op, inPlaceUnaryRule);
  r.setTypeRule("clamp_", inPlaceClampRule);
  r.setTypeRule("copy_", copyInPlaceRule);
  r.setTypeRule("fill_", fillInPlaceRule);
  r.setTypeRule("masked_fill_", maskedFillInPlaceRule);
  r.setTypeRule("zero_", selfTypeRule);
}

}  // namespace stitch
