// Result dtypes of the elementwise ops (add, div, eq, exp, where, clamp, ...)
// with PyTorch's promotion rules and its messages for unsupported dtypes. The
// static type rules and the interpreter's kernels both call these, so a
// program fails the same way before and while it runs. Functions throw
// UserError without a location.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/shape_util.h"

namespace stitch {

// PyTorch's ScalarType spelling: Float, Double, Int, Long, Bool.
const char* torchTypeName(DType t);
// "\"abs_cpu\" not implemented for 'Bool'"
[[noreturn]] void throwNotImplemented(const std::string& kernel, DType t);
// torch.can_cast: no floating -> integral, no non-bool -> bool.
bool canCast(DType from, DType to);
// "result type Float can't be cast to the desired output type Long"
void requireCastable(DType result, DType out);

// The dtype an op computes in and the dtype it returns (differ for
// comparisons and logical ops, which return bool).
struct ElementwiseTypes {
  DType compute;
  DType out;
};

// Binary ops by name, in-place names accepted (add_ -> add): add sub rsub mul
// div floor_divide remainder pow atan2 rdiv rpow rfloor_divide rremainder
// maximum minimum eq ne lt le gt ge logical_and logical_or logical_xor
// bitwise_and bitwise_or bitwise_xor.
ElementwiseTypes binaryOpTypes(const std::string& op, const PromoteArg& a, const PromoteArg& b);
bool isBinaryElementwiseOp(const std::string& op);
// add/sub/rsub's alpha against the compute dtype.
void checkAlpha(DType compute, ScalarKind alpha);

// Unary ops by name (in-place names accepted): the float ops (exp, log, ...),
// neg abs relu floor ceil sign round trunc square logical_not bitwise_not
// isnan gelu.
ElementwiseTypes unaryOpTypes(const std::string& op, DType in);
bool isUnaryElementwiseOp(const std::string& op);
// Ops that always compute in floating point (exp, sigmoid, ...).
bool isUnaryFloatOp(const std::string& op);

// where(cond, a, b): cond must be bool; the result promotes a and b.
DType whereResultType(DType cond, const PromoteArg& a, const PromoteArg& b);
// clamp(self, min, max) with optional bounds (at least one present).
DType clampResultType(const PromoteArg& self, const std::optional<PromoteArg>& min,
                      const std::optional<PromoteArg>& max);
// masked_fill: a bool (or 0/1 integer) mask; the result keeps self's dtype.
void checkMaskDType(DType mask);
// lerp: floating, self and end of one dtype.
void checkLerpTypes(DType self, DType end);

}  // namespace stitch
