// The interpreter's element walker: visits several strided operands of one
// shape together, row by row. Dims that are contiguous for every operand are
// merged first, so `x[..., 0]` on a [H, W, 3] tensor is one row of H*W
// elements with stride 3, and a contiguous tensor is a single row. The row
// callback is a template parameter (no per-element indirection), so its inner
// loop is a plain counted loop the compiler can vectorize.
#pragma once
#include <omp.h>

#include <array>
#include <cstdint>
#include <vector>

#include "interp/tensor.h"

namespace stitch {

template <size_t N>
struct RowLayout {
  std::vector<int64_t> outerSizes;               // outer dims, outermost first
  std::array<std::vector<int64_t>, N> outerStrides;
  int64_t innerSize = 1;
  std::array<int64_t, N> innerStrides{};
  int64_t rows = 1;                              // product of outerSizes
  bool empty = false;                            // some size is 0
};

// Merges dims (size-1 dims dropped; neighbours merged where every operand's
// strides line up).
template <size_t N>
RowLayout<N> makeRowLayout(const Shape& sizes, const std::array<const Shape*, N>& strides) {
  RowLayout<N> L;
  std::vector<int64_t> sz;
  std::array<std::vector<int64_t>, N> st;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) L.empty = true;
    if (sizes[d] == 1) continue;
    bool merge = !sz.empty();
    for (size_t k = 0; k < N && merge; ++k)
      merge = st[k].back() == (*strides[k])[d] * sizes[d];
    if (merge) {
      sz.back() *= sizes[d];
      for (size_t k = 0; k < N; ++k) st[k].back() = (*strides[k])[d];
      continue;
    }
    sz.push_back(sizes[d]);
    for (size_t k = 0; k < N; ++k) st[k].push_back((*strides[k])[d]);
  }
  if (L.empty || sz.empty()) {
    L.rows = L.empty ? 0 : 1;
    return L;
  }
  L.innerSize = sz.back();
  for (size_t k = 0; k < N; ++k) L.innerStrides[k] = st[k].back();
  sz.pop_back();
  for (size_t k = 0; k < N; ++k) st[k].pop_back();
  for (int64_t s : sz) L.rows *= s;
  L.outerSizes = std::move(sz);
  L.outerStrides = std::move(st);
  return L;
}

// Runs rows [begin, end) of a layout: row(offsets, n, innerStrides).
template <size_t N, typename Row>
void runRows(const RowLayout<N>& L, const std::array<int64_t, N>& base, int64_t begin,
             int64_t end, Row& row) {
  size_t nd = L.outerSizes.size();
  std::vector<int64_t> idx(nd, 0);
  std::array<int64_t, N> off = base;
  // Position the odometer on row `begin`.
  int64_t r = begin;
  for (size_t d = nd; d-- > 0;) {
    idx[d] = r % L.outerSizes[d];
    r /= L.outerSizes[d];
    for (size_t k = 0; k < N; ++k) off[k] += idx[d] * L.outerStrides[k][d];
  }
  for (int64_t i = begin; i < end; ++i) {
    row(off, L.innerSize, L.innerStrides);
    for (size_t d = nd; d-- > 0;) {
      for (size_t k = 0; k < N; ++k) off[k] += L.outerStrides[k][d];
      if (++idx[d] < L.outerSizes[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= L.outerStrides[k][d] * L.outerSizes[d];
      idx[d] = 0;
    }
  }
}

// Below this many elements a loop stays on one thread.
constexpr int64_t kParallelGrain = 1 << 15;

// Calls row(offsets, n, innerStrides) for every innermost row of `sizes`,
// where offsets are element offsets of each operand (starting from base).
// Rows are split across OpenMP threads when the work is large; row must only
// write through operand 0 (distinct rows never share output elements).
template <size_t N, typename Row>
void forEachRow(const Shape& sizes, const std::array<const Shape*, N>& strides,
                const std::array<int64_t, N>& base, Row row) {
  RowLayout<N> L = makeRowLayout<N>(sizes, strides);
  if (L.rows == 0) return;
  int64_t total = L.rows * L.innerSize;
  int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (total < kParallelGrain || threads <= 1) {
    runRows<N>(L, base, 0, L.rows, row);
    return;
  }
  if (L.rows == 1) {
    // One long row: split it into chunks.
    int64_t n = L.innerSize;
#pragma omp parallel num_threads(threads)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
      int64_t b = n * t / nt, e = n * (t + 1) / nt;
      std::array<int64_t, N> off = base;
      for (size_t k = 0; k < N; ++k) off[k] += b * L.innerStrides[k];
      if (e > b) row(off, e - b, L.innerStrides);
    }
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t b = L.rows * t / nt, e = L.rows * (t + 1) / nt;
    Row local = row;
    if (e > b) runRows<N>(L, base, b, e, local);
  }
}

// Typed element pointers for an operand and a row: p[i * stride].
template <typename T>
inline T* elemPtr(const Tensor& t, int64_t offsetFromBase) {
  return reinterpret_cast<T*>(t.storage()->data()) + offsetFromBase;
}

}  // namespace stitch
