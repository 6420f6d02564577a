// Shape and dtype arithmetic with PyTorch's semantics, shared by the static
// type rules (src/passes/shape_rules_*.cpp) and the interpreter's kernels so
// both give the same shapes and the same messages. Functions throw UserError
// without a location; callers attach the node's.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace stitch {

// A dim may be -1 (unknown) in static shapes; run-time shapes are all known.
using Dims = std::vector<int64_t>;

std::string dimsToString(const Dims& d);  // "[2, 3]", unknown as "?"

// dim in [-rank, rank) -> [0, rank); "dimension out of range" otherwise.
// For ops that insert a dim (unsqueeze, stack) pass rank + 1.
int64_t normalizeDim(int64_t dim, int64_t rank, const char* what = "dimension");

// Broadcasts two shapes; unknown dims broadcast to unknown unless the other
// is a known dim > 1.
Dims broadcastShapes(const Dims& a, const Dims& b);
Dims broadcastShapes(const std::vector<Dims>& shapes);

// One participant of type promotion: a tensor (with its rank, -1 unknown) or
// a Python scalar.
struct PromoteArg {
  enum Kind { DimTensor, ZeroDimTensor, Scalar } kind;
  DType dtype;  // for scalars: b8, i64 or f32-as-float-category (use f64 for floats)
};
// torch.result_type over tensors and scalars: dimensioned tensors win over
// 0-dim tensors, which win over scalars, unless a lower group has a higher
// category (bool < integer < floating), which then gives the default dtype of
// that category (f32 for floating, i64 for integer) or the 0-dim tensor's dtype.
DType resultType(const std::vector<PromoteArg>& args);
PromoteArg tensorArg(DType dtype, int64_t rank);  // rank 0 -> ZeroDimTensor
PromoteArg intScalarArg();
PromoteArg floatScalarArg();
PromoteArg boolScalarArg();

// Result dtype of ops that always compute in floating point (exp, div,
// mean, ...): integer and bool inputs give f32.
DType floatResultType(DType t);

// Shape of view/reshape with one -1 entry inferred; checks numel agreement.
Dims inferViewShape(const Dims& requested, int64_t numel);

// Reduced shape: dims normalized and deduplicated (empty dims = all).
Dims reduceShape(const Dims& in, const std::vector<int64_t>& dims, bool keepdim);
// Which dims are reduced (normalized, sorted, unique; empty input = all).
std::vector<int64_t> normalizeReduceDims(const std::vector<int64_t>& dims, int64_t rank);

// torch.matmul's result shape (1-d and batched cases, broadcasting batch dims).
Dims matmulShape(const Dims& a, const Dims& b);

// Python-style slice clamp: returns (start, length) for a dim of `size`.
struct SliceRange {
  int64_t start;
  int64_t length;
};
SliceRange sliceRange(std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                      int64_t size);

}  // namespace stitch
