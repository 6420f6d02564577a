#include "ir/elementwise_dtypes.h"

#include <set>

#include "common/error.h"

namespace stitch {

const char* torchTypeName(DType t) {
  switch (t) {
    case DType::b8: return "Bool";
    case DType::i32: return "Int";
    case DType::i64: return "Long";
    case DType::f32: return "Float";
    case DType::f64: return "Double";
  }
  return "?";
}

void throwNotImplemented(const std::string& kernel, DType t) {
  throw UserError(errorMessage("\"", kernel, "\" not implemented for '", torchTypeName(t), "'"));
}

bool canCast(DType from, DType to) {
  if (isFloating(from) && !isFloating(to)) return false;
  if (from != DType::b8 && to == DType::b8) return false;
  return true;
}

void requireCastable(DType result, DType out) {
  if (canCast(result, out)) return;
  throw UserError(errorMessage("result type ", torchTypeName(result),
                               " can't be cast to the desired output type ", torchTypeName(out)));
}

namespace {

// add_ -> add; names without a trailing underscore pass unchanged.
std::string baseName(const std::string& op) {
  if (!op.empty() && op.back() == '_') return op.substr(0, op.size() - 1);
  return op;
}

const std::set<std::string> kPromotingBinary = {"add", "mul", "maximum", "minimum"};
const std::set<std::string> kSubtractions = {"sub", "rsub"};
const std::set<std::string> kFloatBinary = {"div", "rdiv", "atan2"};
const std::set<std::string> kCompare = {"eq", "ne", "lt", "le", "gt", "ge"};
const std::set<std::string> kLogical = {"logical_and", "logical_or", "logical_xor"};
const std::set<std::string> kBitwise = {"bitwise_and", "bitwise_or", "bitwise_xor"};

const std::set<std::string> kUnaryFloat = {
    "exp",   "log",  "sqrt", "rsqrt", "sin",   "cos",  "tanh", "sigmoid", "silu", "erf", "reciprocal",
    "log1p", "expm1", "log2", "exp2", "tan",   "asin", "acos", "atan",    "sinh", "cosh"};
const std::set<std::string> kRounding = {"floor", "ceil", "round", "trunc"};
const std::set<std::string> kUnaryOther = {"neg",  "abs",         "relu",        "sign", "square",
                                           "logical_not", "bitwise_not", "isnan", "gelu"};

bool isBool(const PromoteArg& a) { return a.dtype == DType::b8; }

void checkSubtraction(const PromoteArg& a, const PromoteArg& b) {
  if (isBool(a) && isBool(b)) {
    throw UserError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                    "Use the `^` or `logical_xor()` operator instead.");
  }
  if (isBool(a) || isBool(b)) {
    throw UserError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                    "If you are trying to invert a mask, use the `~` or `logical_not()` "
                    "operator instead.");
  }
}

}  // namespace

bool isBinaryElementwiseOp(const std::string& op) {
  std::string n = baseName(op);
  return kPromotingBinary.count(n) || kSubtractions.count(n) || kFloatBinary.count(n) ||
         kCompare.count(n) || kLogical.count(n) || kBitwise.count(n) || n == "floor_divide" ||
         n == "rfloor_divide" || n == "remainder" || n == "rremainder" || n == "pow" ||
         n == "rpow";
}

ElementwiseTypes binaryOpTypes(const std::string& op, const PromoteArg& a, const PromoteArg& b) {
  std::string n = baseName(op);
  if (kLogical.count(n)) return {DType::b8, DType::b8};
  if (kSubtractions.count(n)) checkSubtraction(a, b);
  DType promoted = resultType({a, b});
  if (kPromotingBinary.count(n) || kSubtractions.count(n)) return {promoted, promoted};
  if (kFloatBinary.count(n)) {
    DType f = floatResultType(promoted);
    return {f, f};
  }
  if (kCompare.count(n)) return {promoted, DType::b8};
  if (kBitwise.count(n)) {
    if (isFloating(promoted)) throwNotImplemented(n + "_cpu", promoted);
    return {promoted, promoted};
  }
  if (promoted == DType::b8) {
    if (n == "floor_divide" || n == "rfloor_divide") throwNotImplemented("div_floor_cpu", promoted);
    if (n == "remainder" || n == "rremainder") throwNotImplemented("remainder_cpu", promoted);
    if (n == "pow" || n == "rpow") throwNotImplemented("pow", promoted);
  }
  STITCH_ASSERT(isBinaryElementwiseOp(n), "not a binary elementwise op: ", op);
  return {promoted, promoted};
}

void checkAlpha(DType compute, ScalarKind alpha) {
  if (alpha == ScalarKind::Bool && compute != DType::b8)
    throw UserError("Boolean alpha only supported for Boolean results.");
  if (alpha == ScalarKind::Float && !isFloating(compute)) {
    throw UserError(
        "For integral input tensors, argument alpha must not be a floating point number.");
  }
}

bool isUnaryFloatOp(const std::string& op) { return kUnaryFloat.count(baseName(op)) != 0; }

bool isUnaryElementwiseOp(const std::string& op) {
  std::string n = baseName(op);
  return kUnaryFloat.count(n) || kRounding.count(n) || kUnaryOther.count(n);
}

ElementwiseTypes unaryOpTypes(const std::string& op, DType in) {
  std::string n = baseName(op);
  if (kUnaryFloat.count(n)) {
    DType f = floatResultType(in);
    return {f, f};
  }
  if (n == "logical_not") return {DType::b8, DType::b8};
  if (n == "isnan") return {in, DType::b8};
  if (n == "square" && in == DType::b8) return {DType::i64, DType::i64};
  bool isBoolIn = in == DType::b8;
  if (n == "neg" && isBoolIn) {
    throw UserError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                    "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  if (n == "abs" && isBoolIn) throwNotImplemented("abs_cpu", in);
  if (n == "relu" && isBoolIn) throw UserError("Boolean inputs not supported for relu");
  if (kRounding.count(n) && isBoolIn) throwNotImplemented(n + "_vml_cpu", in);
  if (n == "bitwise_not" && isFloating(in)) throwNotImplemented("bitwise_not_cpu", in);
  if (n == "gelu" && !isFloating(in)) throwNotImplemented("GeluKernelImpl", in);
  STITCH_ASSERT(isUnaryElementwiseOp(n), "not a unary elementwise op: ", op);
  return {in, in};
}

DType whereResultType(DType cond, const PromoteArg& a, const PromoteArg& b) {
  if (cond != DType::b8) {
    throw UserError(errorMessage("where expected condition to be a boolean tensor, but got a "
                                 "tensor with dtype ", torchTypeName(cond)));
  }
  return resultType({a, b});
}

DType clampResultType(const PromoteArg& self, const std::optional<PromoteArg>& min,
                      const std::optional<PromoteArg>& max) {
  if (!min && !max) throw UserError("torch.clamp: At least one of 'min' or 'max' must not be None");
  std::vector<PromoteArg> args = {self};
  if (min) args.push_back(*min);
  if (max) args.push_back(*max);
  DType t = resultType(args);
  if (t == DType::b8) throwNotImplemented("clamp_scalar_cpu", t);
  return t;
}

void checkMaskDType(DType mask) {
  if (isFloating(mask)) {
    throw UserError(errorMessage("masked_fill_ only supports boolean masks, but got mask with dtype ",
                                 torchTypeName(mask)));
  }
}

void checkLerpTypes(DType self, DType end) {
  if (!isFloating(self)) throwNotImplemented("lerp_kernel_scalar", self);
  if (self != end) {
    throw UserError(errorMessage("expected dtype ", self == DType::f32 ? "float" : "double",
                                 " for `end` but got dtype ",
                                 end == DType::f64 ? "double" : end == DType::f32 ? "float"
                                                                                   : dtypeName(end)));
  }
}

}  // namespace stitch
