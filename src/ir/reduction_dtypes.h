// Result dtypes of the reduction and scan ops (sum, mean, var, softmax, ...)
// with PyTorch's rules and messages. The static type rules and the
// interpreter's kernels both call these, so a program fails the same way
// before and while it runs. Functions throw UserError without a location.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/shape_util.h"

namespace stitch {

// PyTorch's ScalarType spelling for messages: Float, Double, Int, Long, Bool.
const char* torchScalarTypeName(DType t);

// sum, prod, cumsum, cumprod: the requested dtype, else integers and bool
// accumulate in i64 and floats keep theirs.
DType sumLikeDType(DType in, std::optional<DType> requested);
// mean: floating only (the requested dtype, else the input's).
DType meanDType(DType in, std::optional<DType> requested);
// var / std: floating inputs only.
DType varianceDType(DType in);
// softmax / log_softmax along `dim` of a tensor of `rank`: floating only
// unless a dtype is requested (the input is converted to it first).
DType softmaxDType(DType in, std::optional<DType> requested, bool logSoftmax, bool lastDim);
// norm: floating inputs only.
DType normDType(DType in);
// argmax / argmin: every dtype but bool.
void checkArgReduceDType(DType in, const char* op);

// max / min / amax / amin / argmax / argmin have no identity: reducing an
// empty tensor fails. `dims` are the normalized reduced dims (empty: all),
// `allDims` says the op reduces everything without a dim argument. Unknown
// (-1) sizes pass.
void checkReductionHasIdentityOrElements(const char* op, const Dims& shape,
                                         const std::vector<int64_t>& dims, bool allDims);

}  // namespace stitch
