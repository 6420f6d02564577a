#include "ir/reduction_dtypes.h"

#include "common/error.h"

namespace stitch {

const char* torchScalarTypeName(DType t) {
  switch (t) {
    case DType::b8:
      return "Bool";
    case DType::i32:
      return "Int";
    case DType::i64:
      return "Long";
    case DType::f32:
      return "Float";
    case DType::f64:
      return "Double";
  }
  return "?";
}

DType sumLikeDType(DType in, std::optional<DType> requested) {
  if (requested) return *requested;
  return isFloating(in) ? in : DType::i64;
}

DType meanDType(DType in, std::optional<DType> requested) {
  if (requested) {
    if (!isFloating(*requested)) {
      throw UserError(errorMessage(
          "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
          "complex dtype. Got: ",
          torchScalarTypeName(*requested)));
    }
    return *requested;
  }
  if (!isFloating(in)) {
    throw UserError(errorMessage(
        "mean(): could not infer output dtype. Input dtype must be either a floating point or "
        "complex dtype. Got: ",
        torchScalarTypeName(in)));
  }
  return in;
}

DType varianceDType(DType in) {
  if (!isFloating(in))
    throw UserError("std and var only support floating point and complex dtypes");
  return in;
}

DType softmaxDType(DType in, std::optional<DType> requested, bool logSoftmax, bool lastDim) {
  DType t = requested.value_or(in);
  if (isFloating(t)) return t;
  std::string kernel =
      lastDim ? (logSoftmax ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl")
              : "softmax_kernel_impl";
  throw UserError(
      errorMessage("\"", kernel, "\" not implemented for '", torchScalarTypeName(t), "'"));
}

DType normDType(DType in) {
  if (!isFloating(in)) {
    throw UserError(
        errorMessage("norm(): input dtype should be either floating point or complex. Got ",
                     torchScalarTypeName(in), " instead."));
  }
  return in;
}

void checkArgReduceDType(DType in, const char* op) {
  if (in == DType::b8) throw UserError(errorMessage("\"", op, "_cpu\" not implemented for 'Bool'"));
}

void checkReductionHasIdentityOrElements(const char* op, const Dims& shape,
                                         const std::vector<int64_t>& dims, bool allDims) {
  if (allDims) {
    for (int64_t s : shape) {
      if (s != 0) continue;
      throw UserError(errorMessage(op,
                                   "(): Expected reduction dim to be specified for input.numel() "
                                   "== 0. Specify the reduction dim with the 'dim' argument."));
    }
    return;
  }
  for (int64_t d : dims) {
    if (d >= (int64_t)shape.size() || shape[d] != 0) continue;
    throw UserError(errorMessage(op, "(): Expected reduction dim ", d, " to have non-zero size."));
  }
}

}  // namespace stitch
