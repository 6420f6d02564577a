// Result dtypes and sizes of the creation ops (zeros, full, arange, ...) with
// PyTorch's defaults and messages, shared by the static type rules and the
// interpreter's kernels. Functions throw UserError without a location.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/dtype.h"

namespace stitch {

// zeros / ones / empty / scalar_tensor: the requested dtype, else f32.
DType creationDType(std::optional<DType> requested);
// full: the requested dtype, else from the fill value (bool -> bool,
// int -> i64, float -> f32).
DType fullDType(ScalarKind fill, std::optional<DType> requested);
// arange: the requested dtype, else f32 if any bound is a float, else i64.
DType arangeDType(const std::vector<ScalarKind>& args, std::optional<DType> requested);
// Number of elements of arange(start, end, step), computed as PyTorch does
// (for integer dtypes the bounds are truncated to integers first).
int64_t arangeLength(double start, double end, double step, DType dtype);
// rand_like: floating dtypes only.
void checkRandDType(DType dtype);

}  // namespace stitch
