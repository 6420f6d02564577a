// Few-row float32 products run on the host. A product whose shape depends
// on a loop variable (an attention decode step's q @ k^T over the keys
// written so far) cannot be a kernel; the interpreter's routine runs it in
// double, one scalar term at a time against a transposed operand. Here a
// few-row product of f32 tensors runs in f32 with vector lanes, as a
// compiled kernel would (ugraph/numerics.h: float32 work in float32,
// compared with the interpreter under the tolerance rule):
//
//   B read along k (a transposed operand, k^T): each output is a dot product
//     of contiguous rows in 16 lanes (lane l sums the terms k = l mod 16 in
//     order, fused multiply-adds), the lanes folded pairwise, halving;
//   B read along n (p @ v): each output row accumulates a[i, k] * B[k, :]
//     for k in order, vectorized along n.
//
// Either way every output's terms are summed in a fixed order: results do
// not depend on the thread count or the machine's vector width.
#pragma once
#include <optional>

#include "interp/tensor.h"
#include "ir/graph.h"

namespace stitch {

// matmul, bmm, mm: the ops whose f32 operands may take the path below.
bool isHostProductOp(const Node& node);

// a @ b when both are f32 of the same rank with the same batch sizes, a has
// at most kFewRows rows, and b is contiguous along k or along n; nullopt
// otherwise (the interpreter's routine runs it).
constexpr int64_t kFewRows = 8;
std::optional<Tensor> fewRowProduct(const Tensor& a, const Tensor& b);

// c[i * ldc + j] = sum_k a[i * lda + k] * bt[j * ldb + k] for i < m, j < n:
// dot products of contiguous rows in 16 lanes, folded pairwise (the path
// above for B read along k). Each row of bt is read once from memory, then
// from L1 for every row of a.
void dotProducts(const float* a, int64_t lda, int64_t m, const float* bt, int64_t ldb, float* c, int64_t ldc,
                 int64_t n, int64_t k);

}  // namespace stitch
