#include "runtime/host_products.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/cpu_clones.h"
#include "interp/reduce_loops.h"
#include "runtime/lane_folds.h"

namespace stitch {

namespace {

constexpr int64_t kLanes = lane_folds::kWidth;
using lane_folds::fold16;

// In both routines every term is one fused multiply-add (one rounding, as
// the kernels' MULADD): the same result from every clone, fast where the
// CPU has FMA.
//

// c[j] = sum_k a[k * as] * b[k * ldb + j] for j < n, each over k in order.
STITCH_CPU_CLONES("avx512f", "arch=x86-64-v3", "default")
void axpyRows(const float* a, int64_t as, const float* b, int64_t ldb, float* c, int64_t n, int64_t k) {
  for (int64_t j = 0; j < n; ++j) c[j] = 0.0f;
  for (int64_t kk = 0; kk < k; ++kk) {
    const float s = a[kk * as];
    const float* row = b + kk * ldb;
    for (int64_t j = 0; j < n; ++j) c[j] = std::fma(s, row[j], c[j]);
  }
}

}  // namespace

STITCH_CPU_CLONES("avx512f", "arch=x86-64-v3", "default")
void dotProducts(const float* a, int64_t lda, int64_t m, const float* bt, int64_t ldb, float* c, int64_t ldc,
                 int64_t n, int64_t k) {
  const int64_t full = k / kLanes * kLanes;
  for (int64_t j = 0; j < n; ++j) {
    const float* b = bt + j * ldb;
    for (int64_t i = 0; i < m; ++i) {
      const float* x = a + i * lda;
      float lanes[kLanes] = {};
      for (int64_t o = 0; o < full; o += kLanes)
        for (int64_t l = 0; l < kLanes; ++l) lanes[l] = std::fma(x[o + l], b[o + l], lanes[l]);
      for (int64_t t = 0; full + t < k; ++t) lanes[t] = std::fma(x[full + t], b[full + t], lanes[t]);
      c[i * ldc + j] = fold16(lanes);
    }
  }
}

bool isHostProductOp(const Node& node) { return node.is("matmul") || node.is("bmm") || node.is("mm"); }

std::optional<Tensor> fewRowProduct(const Tensor& a, const Tensor& b) {
  const int64_t r = a.dim();
  if (a.dtype() != DType::f32 || b.dtype() != DType::f32 || r < 2 || b.dim() != r) return std::nullopt;
  const Shape batch(a.sizes().begin(), a.sizes().end() - 2);
  if (!std::equal(batch.begin(), batch.end(), b.sizes().begin())) return std::nullopt;
  const int64_t m = a.size(r - 2), k = a.size(r - 1), n = b.size(r - 1);
  if (b.size(r - 2) != k || m > kFewRows) return std::nullopt;
  const int64_t bk = b.stride(r - 2), bn = b.stride(r - 1);
  // B's rows along k contiguous (dot products), else along n (row updates).
  const bool dots = bk == 1 || k == 1, rowUpdates = bn == 1 || n == 1;
  if (!dots && !rowUpdates) return std::nullopt;

  Shape outSizes = batch;
  outSizes.push_back(m);
  outSizes.push_back(n);
  Tensor out = Tensor::uninitialized(outSizes, DType::f32);
  if (out.numel() == 0) return out;
  const Shape aBatchStrides(a.strides().begin(), a.strides().end() - 2);
  const Shape bBatchStrides(b.strides().begin(), b.strides().end() - 2);
  StridedCounter aAt(batch, aBatchStrides), bAt(batch, bBatchStrides);
  const float* aBase = a.data<float>();
  const float* bBase = b.data<float>();
  float* c = out.data<float>();
  const int64_t am = a.stride(r - 2), ak = a.stride(r - 1);
  std::vector<float> row;  // a row of A made contiguous for the dot products
  for (int64_t i = 0, batches = numelOf(batch); i < batches; ++i, aAt.next(), bAt.next()) {
    const float* A = aBase + aAt.offset();
    const float* B = bBase + bAt.offset();
    for (int64_t mi = 0; mi < m; ++mi, c += n) {
      const float* arow = A + mi * am;
      if (dots) {
        if (ak != 1) {
          row.resize((size_t)k);
          for (int64_t kk = 0; kk < k; ++kk) row[kk] = arow[kk * ak];
          arow = row.data();
        }
        dotProducts(arow, 0, 1, B, bn, c, 0, n, k);
      } else {
        axpyRows(arow, ak, B, bk, c, n, k);
      }
    }
  }
  return out;
}

}  // namespace stitch
