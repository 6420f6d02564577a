// The elementwise computations behind the out-of-place and in-place kernels.
// Op names are PyTorch's; in-place names (add_) are accepted and mean the
// same computation. Dtype checks happen in ir/elementwise_dtypes.h.
#pragma once
#include <string>

#include "interp/elementwise_util.h"

namespace stitch {

// op(a, b) over the broadcast of a and b, computing in `compute` (from
// binaryOpTypes). alpha is add/sub/rsub's multiplier (ignored otherwise).
// Writes into `out` when it is defined (it must have the broadcast shape and
// the op's output dtype), else into a new tensor, and returns it.
Tensor binaryElementwise(const std::string& op, const Operand& a, const Operand& b,
                         const IValue& alpha, DType compute, const Tensor& out = Tensor());

// op(a) elementwise, computing in `compute` (from unaryOpTypes); `approximate`
// is gelu's mode. Writes into `out` when defined.
Tensor unaryElementwise(const std::string& op, const Tensor& a, DType compute,
                        const Tensor& out = Tensor(), const std::string& approximate = "none");

// clamp with optional scalar bounds, computing in `compute`.
Tensor clampScalar(const Tensor& self, const IValue& min, const IValue& max, DType compute,
                   const Tensor& out = Tensor());

// add/sub/mul/...(self, other[, alpha]) out of place, with every dtype check.
IValueList binaryKernel(const std::string& op, const IValueList& args, bool hasAlpha);

// masked_fill_ on `self` (mask broadcast to self's shape; value a scalar or a
// 0-dim tensor).
void maskedFillInto(const Tensor& self, const Tensor& mask, const IValue& value);
// The Python scalar held by a fill value: a scalar, or a 0-dim tensor.
IValue fillValue(const IValue& value, const char* op);
// "output with shape [1, 3] doesn't match the broadcast shape [2, 3]"
void requireBroadcastsTo(const Shape& self, const Shape& other);

}  // namespace stitch
