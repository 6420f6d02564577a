// Reductions with PyTorch's semantics on interpreter tensors: dtype rules,
// negative dims, keepdim, empty inputs, NaN propagation, first index on ties.
// `dims` are as the user wrote them (negative allowed; empty: all dims);
// keepdim keeps every reduced dim as size 1, also when all dims are reduced.
// Float inputs accumulate in double. Functions throw UserError without a
// location for ill-shaped or ill-typed input.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "interp/tensor.h"

namespace stitch {

enum class Extremum { Max, Min };

Tensor reduceSum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
                 std::optional<DType> dtype);
Tensor reduceMean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
                  std::optional<DType> dtype);
// dim nullopt: all dims.
Tensor reduceProd(const Tensor& x, std::optional<int64_t> dim, bool keepdim,
                  std::optional<DType> dtype);
// amax / amin.
Tensor reduceExtremum(const Tensor& x, Extremum which, const std::vector<int64_t>& dims,
                      bool keepdim);
// max(x) / min(x): a 0-dim tensor.
Tensor reduceExtremumAll(const Tensor& x, Extremum which);
// max(x, dim) / min(x, dim): (values, int64 indices).
std::pair<Tensor, Tensor> reduceExtremumDim(const Tensor& x, Extremum which, int64_t dim,
                                            bool keepdim);
// argmax / argmin; dim nullopt: index into the flattened tensor.
Tensor argExtremum(const Tensor& x, Extremum which, std::optional<int64_t> dim, bool keepdim);
// var / std (std when takeSqrt); dims nullopt: all dims.
Tensor reduceVariance(const Tensor& x, const std::optional<std::vector<int64_t>>& dims,
                      bool unbiased, bool keepdim, bool takeSqrt);
Tensor reduceLogSumExp(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
// all / any (-> bool); dim nullopt: all dims.
Tensor reduceAll(const Tensor& x, std::optional<int64_t> dim, bool keepdim);
Tensor reduceAny(const Tensor& x, std::optional<int64_t> dim, bool keepdim);
// The vector p-norm over all elements (p = 2, 1, inf, -inf, 0 or any other).
Tensor reduceNorm(const Tensor& x, double p);
// torch.maximum / torch.minimum (max(a, b) / min(a, b)): broadcasting and
// type promotion; NaN propagates.
Tensor binaryExtremum(const Tensor& a, const Tensor& b, Extremum which);

// The input converted to dtype (the same tensor when it already has it).
Tensor asDType(const Tensor& x, DType dtype);

}  // namespace stitch
