#include "interp/along_dim_ops.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "interp/dtype_dispatch.h"
#include "interp/reduce_ops.h"
#include "interp/unary_math.h"  // exp as the elementwise op (and kernels) compute it
#include "ir/reduction_dtypes.h"
#include "ir/shape_util.h"

namespace stitch {

namespace {

// A contiguous tensor seen as [outer, n, inner] around the chosen dim; lines
// with inner > 1 are processed inner-row by inner-row so memory is read in
// order.
constexpr int64_t kAlongDimParallelGrain = 1 << 16;

struct LineLayout {
  int64_t outer = 1, n = 1, inner = 1;
};

LineLayout lineLayout(const Shape& sizes, int64_t dim) {
  LineLayout L;
  for (int64_t d = 0; d < (int64_t)sizes.size(); ++d) {
    if (d < dim) L.outer *= sizes[d];
    if (d == dim) L.n = sizes[d];
    if (d > dim) L.inner *= sizes[d];
  }
  return L;
}

// One line (inner == 1): the common softmax over the last dim.
template <typename T>
void softmaxLine(const T* x, T* out, int64_t n, bool logSoftmax) {
  T mx = -std::numeric_limits<T>::infinity();
  for (int64_t k = 0; k < n; ++k) mx = std::max(mx, x[k]);
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) {
    T e = expOf(x[k] - mx);
    out[k] = e;
    sum += (double)e;
  }
  if (logSoftmax) {
    double logSum = std::log(sum);
    for (int64_t k = 0; k < n; ++k) out[k] = static_cast<T>((double)(x[k] - mx) - logSum);
    return;
  }
  double scale = 1.0 / sum;
  for (int64_t k = 0; k < n; ++k) out[k] = static_cast<T>((double)out[k] * scale);
}

// One [n, inner] block: max per column, then exp(x - max) (kept in out) and
// its sum in double, then the normalization.
template <typename T>
void softmaxBlock(const T* x, T* out, const LineLayout& L, bool logSoftmax, std::vector<T>& mx,
                  std::vector<double>& sum) {
  int64_t inner = L.inner;
  mx.assign(inner, -std::numeric_limits<T>::infinity());
  sum.assign(inner, 0.0);
  for (int64_t k = 0; k < L.n; ++k) {
    const T* row = x + k * inner;
    for (int64_t j = 0; j < inner; ++j) mx[j] = std::max(mx[j], row[j]);
  }
  for (int64_t k = 0; k < L.n; ++k) {
    const T* row = x + k * inner;
    T* orow = out + k * inner;
    for (int64_t j = 0; j < inner; ++j) {
      T e = expOf(row[j] - mx[j]);
      orow[j] = e;
      sum[j] += (double)e;
    }
  }
  for (int64_t j = 0; j < inner; ++j) sum[j] = logSoftmax ? std::log(sum[j]) : 1.0 / sum[j];
  for (int64_t k = 0; k < L.n; ++k) {
    const T* row = x + k * inner;
    T* orow = out + k * inner;
    if (logSoftmax) {
      for (int64_t j = 0; j < inner; ++j)
        orow[j] = static_cast<T>((double)(row[j] - mx[j]) - sum[j]);
    } else {
      for (int64_t j = 0; j < inner; ++j) orow[j] = static_cast<T>((double)orow[j] * sum[j]);
    }
  }
}

template <typename T>
void scanBlock(const T* x, T* out, const LineLayout& L, bool product) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  std::vector<Acc> acc(L.inner, product ? Acc(1) : Acc(0));
  for (int64_t k = 0; k < L.n; ++k) {
    const T* row = x + k * L.inner;
    T* orow = out + k * L.inner;
    for (int64_t j = 0; j < L.inner; ++j) {
      acc[j] = product ? acc[j] * (Acc)row[j] : acc[j] + (Acc)row[j];
      orow[j] = static_cast<T>(acc[j]);
    }
  }
}

}  // namespace

Tensor softmaxAlongDim(const Tensor& x, int64_t dim, std::optional<DType> dtype, bool logSoftmax) {
  int64_t d = normalizeDim(dim, x.dim());
  bool lastDim = x.dim() == 0 || d == x.dim() - 1;
  DType t = softmaxDType(x.dtype(), dtype, logSoftmax, lastDim);
  Tensor in = asDType(x, t).contiguous();
  Tensor out = Tensor::empty(x.sizes(), t);
  LineLayout L = lineLayout(x.sizes(), x.dim() == 0 ? 0 : d);
  int64_t block = L.n * L.inner;
  dispatchDType(t, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      bool parallel = L.outer > 1 && L.outer * block >= kAlongDimParallelGrain;
#pragma omp parallel if (parallel)
      {
        std::vector<T> mx;
        std::vector<double> sum;
#pragma omp for schedule(static)
        for (int64_t o = 0; o < L.outer; ++o) {
          if (L.inner == 1) {
            softmaxLine<T>(in.data<T>() + o * block, out.data<T>() + o * block, L.n, logSoftmax);
            continue;
          }
          softmaxBlock<T>(in.data<T>() + o * block, out.data<T>() + o * block, L, logSoftmax, mx,
                          sum);
        }
      }
    }
  });
  return out;
}

Tensor cumulativeAlongDim(const Tensor& x, int64_t dim, std::optional<DType> dtype, bool product) {
  int64_t d = normalizeDim(dim, x.dim());
  DType t = sumLikeDType(x.dtype(), dtype);
  Tensor in = asDType(x, t).contiguous();
  Tensor out = Tensor::empty(x.sizes(), t);
  LineLayout L = lineLayout(x.sizes(), x.dim() == 0 ? 0 : d);
  int64_t block = L.n * L.inner;
  dispatchDType(t, [&]<typename T>() {
    bool parallel = L.outer > 1 && L.outer * block >= kAlongDimParallelGrain;
#pragma omp parallel for schedule(static) if (parallel)
    for (int64_t o = 0; o < L.outer; ++o)
      scanBlock<T>(in.data<T>() + o * block, out.data<T>() + o * block, L, product);
  });
  return out;
}

}  // namespace stitch
