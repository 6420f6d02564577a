#include "interp/matmul_ops.h"

#include <omp.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "interp/dtype_dispatch.h"
#include "interp/reduce_loops.h"
#include "ir/contraction_shapes.h"
#include "ir/shape_util.h"

namespace stitch {

namespace {

// Tile sizes: a kTileK x kTileN block of B (128 KiB of f32) stays in L2
// while kRowBlock rows of C are updated from it.
constexpr int64_t kTileK = 128;
constexpr int64_t kTileN = 256;
constexpr int64_t kRowBlock = 16;
// Products with at most this many rows read a strided B in place.
constexpr int64_t kDotRows = 4;

// One matrix operand: element pointer and strides.
template <typename T>
struct MatrixRef {
  const T* data;
  int64_t rowStride, colStride;
};

// Accumulator of a product: f32 sums run in double, as the reference should
// be at least as accurate as PyTorch's blocked f32 GEMM (a long dot product
// summed in f32 in order is off by ~eps * K * |partial sums|).
template <typename T>
using AccumulatorOf = std::conditional_t<std::is_same_v<T, float>, double, T>;

// C[M, N] (contiguous) = A[M, K] * B[K, N] for rows [rowBegin, rowEnd) (at
// most kRowBlock of them), where B's rows are contiguous (colStride 1).
template <typename T>
void gemmRowsContiguousB(MatrixRef<T> A, MatrixRef<T> B, T* C, int64_t M, int64_t N, int64_t K,
                         int64_t rowBegin, int64_t rowEnd) {
  using Acc = AccumulatorOf<T>;
  // Sized to the rows and columns there are: a decode step's [1, 40]
  // product must not clear a 16 x 256 block per call.
  const int64_t width = std::min(kTileN, N);
  std::vector<Acc> acc((size_t)((rowEnd - rowBegin) * width));
  for (int64_t j0 = 0; j0 < N; j0 += kTileN) {
    int64_t jn = std::min(kTileN, N - j0);
    std::fill(acc.begin(), acc.end(), Acc(0));
    for (int64_t k0 = 0; k0 < K; k0 += kTileK) {
      int64_t k1 = std::min(K, k0 + kTileK);
      for (int64_t i = rowBegin; i < rowEnd; ++i) {
        Acc* __restrict c = acc.data() + (i - rowBegin) * width;
        for (int64_t k = k0; k < k1; ++k) {
          Acc aik = (Acc)A.data[i * A.rowStride + k * A.colStride];
          const T* __restrict b = B.data + k * B.rowStride + j0;
          for (int64_t j = 0; j < jn; ++j) c[j] += aik * (Acc)b[j];
        }
      }
    }
    for (int64_t i = rowBegin; i < rowEnd; ++i) {
      const Acc* c = acc.data() + (i - rowBegin) * width;
      for (int64_t j = 0; j < jn; ++j) C[i * N + j0 + j] = (T)c[j];
    }
  }
}

// One product C = A * B; packs B when its rows are not contiguous.
template <typename T>
void gemm(MatrixRef<T> A, MatrixRef<T> B, T* C, int64_t M, int64_t N, int64_t K,
          std::vector<T>& packed) {
  if (M == 0 || N == 0 || K == 0) return;
  if (B.colStride != 1 && M <= kDotRows) {
    // A few rows of A against a B whose rows are strided (a transposed
    // operand: q @ k^T): packing B would cost as much as the product. The
    // same loop order as the packed path (each c[j] sums over k in order,
    // in the accumulator type), so the same result, reading B in place.
    using Acc = AccumulatorOf<T>;
    std::vector<Acc> acc((size_t)N);
    for (int64_t i = 0; i < M; ++i) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t k = 0; k < K; ++k) {
        const Acc aik = (Acc)A.data[i * A.rowStride + k * A.colStride];
        const T* b = B.data + k * B.rowStride;
        for (int64_t j = 0; j < N; ++j) acc[j] += aik * (Acc)b[j * B.colStride];
      }
      for (int64_t j = 0; j < N; ++j) C[i * N + j] = (T)acc[j];
    }
    return;
  }
  if (B.colStride != 1 && N > 1) {
    packed.resize((size_t)(K * N));
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) packed[k * N + j] = B.data[k * B.rowStride + j * B.colStride];
    B = MatrixRef<T>{packed.data(), N, 1};
  }
  int64_t blocks = (M + kRowBlock - 1) / kRowBlock;
  bool parallel = M * N * K >= (1 << 20) && blocks > 1 && !omp_in_parallel();
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    int64_t r0 = blk * kRowBlock;
    gemmRowsContiguousB(A, B, C, M, N, K, r0, std::min(M, r0 + kRowBlock));
  }
}

// A view with an extra unit dim at `dim`.
Tensor withUnitDim(const Tensor& t, int64_t dim) {
  Shape sizes = t.sizes(), strides = t.strides();
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, 0);
  return t.asStrided(sizes, strides, t.offset());
}

// A view of t (rank >= 2) broadcast to batch + its last two dims.
Tensor expandBatch(const Tensor& t, const Shape& batch) {
  int64_t r = t.dim();
  Shape sizes = batch, strides(batch.size(), 0);
  size_t lead = batch.size() - (size_t)(r - 2);
  for (int64_t d = 0; d < r - 2; ++d) strides[lead + d] = t.size(d) == 1 ? 0 : t.stride(d);
  for (int64_t d = r - 2; d < r; ++d) {
    sizes.push_back(t.size(d));
    strides.push_back(t.stride(d));
  }
  return t.asStrided(sizes, strides, t.offset());
}

Tensor reshapeContiguous(const Tensor& t, const Shape& sizes) {
  return t.asStrided(sizes, contiguousStrides(sizes), t.offset());
}

template <typename T>
void gemmBatches(const Tensor& a, const Tensor& b, const Tensor& out, const Shape& batch,
                 const Shape& aBatchStrides, const Shape& bBatchStrides) {
  int64_t r = a.dim();
  int64_t M = a.size(r - 2), K = a.size(r - 1), N = b.size(r - 1);
  int64_t batches = numelOf(batch);
  const T* aBase = reinterpret_cast<const T*>(a.storage()->data()) + a.offset();
  const T* bBase = reinterpret_cast<const T*>(b.storage()->data()) + b.offset();
  T* c = out.data<T>();
  std::vector<T> packed;
  StridedCounter aAt(batch, aBatchStrides), bAt(batch, bBatchStrides);
  for (int64_t i = 0; i < batches; ++i, aAt.next(), bAt.next()) {
    MatrixRef<T> A{aBase + aAt.offset(), a.stride(r - 2), a.stride(r - 1)};
    MatrixRef<T> B{bBase + bAt.offset(), b.stride(r - 2), b.stride(r - 1)};
    gemm<T>(A, B, c + i * M * N, M, N, K, packed);
  }
}

}  // namespace

void batchedGemm(const Tensor& a, const Tensor& b, const Tensor& out) {
  int64_t r = a.dim();
  STITCH_ASSERT(r >= 2 && b.dim() == r && out.dim() == r, "batchedGemm ranks");
  Shape batch(a.sizes().begin(), a.sizes().end() - 2);
  Shape aBatchStrides(a.strides().begin(), a.strides().end() - 2);
  Shape bBatchStrides(b.strides().begin(), b.strides().end() - 2);
  dispatchDType(a.dtype(), [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) {
      STITCH_ASSERT(false, "bool products are rejected by matmulDType");
    } else {
      gemmBatches<T>(a, b, out, batch, aBatchStrides, bBatchStrides);
    }
  });
}

Tensor matmulTensors(const Tensor& a, const Tensor& b) {
  Shape outShape = matmulShape(a.sizes(), b.sizes());
  DType t = matmulDType(a.dtype(), b.dtype(), a.dim(), b.dim());
  // A 1-d left operand is a row, a 1-d right operand a column; the unit dims
  // are absent from outShape, which has the same elements in the same order.
  Tensor am = a.dim() == 1 ? withUnitDim(a, 0) : a;
  Tensor bm = b.dim() == 1 ? withUnitDim(b, 1) : b;
  Shape batch = broadcastShapes(Shape(am.sizes().begin(), am.sizes().end() - 2),
                                Shape(bm.sizes().begin(), bm.sizes().end() - 2));
  Tensor av = expandBatch(am, batch), bv = expandBatch(bm, batch);
  Shape full = batch;
  full.push_back(am.size(am.dim() - 2));
  full.push_back(bm.size(bm.dim() - 1));
  Tensor out = Tensor::empty(full, t);
  batchedGemm(av, bv, out);
  return reshapeContiguous(out, outShape);
}

Tensor mmTensors(const Tensor& a, const Tensor& b) {
  mmShape(a.sizes(), b.sizes());
  DType t = matmulDType(a.dtype(), b.dtype(), 2, 2);
  Tensor out = Tensor::empty({a.size(0), b.size(1)}, t);
  batchedGemm(a, b, out);
  return out;
}

Tensor bmmTensors(const Tensor& a, const Tensor& b) {
  Shape shape = bmmShape(a.sizes(), b.sizes());
  DType t = matmulDType(a.dtype(), b.dtype(), 3, 3);
  Tensor out = Tensor::empty(shape, t);
  batchedGemm(a, b, out);
  return out;
}

Tensor linearTensors(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias) {
  std::optional<Shape> biasShape;
  if (bias) biasShape = bias->sizes();
  Shape shape = linearShape(x.sizes(), w.sizes(), biasShape);
  Tensor wt = w.dim() == 2
                  ? w.asStrided({w.size(1), w.size(0)}, {w.stride(1), w.stride(0)}, w.offset())
                  : w;
  Tensor out = matmulTensors(x, wt);
  if (!bias) return out;
  checkLinearBiasDType(out.dtype(), bias->dtype());
  Tensor sum = Tensor::empty(shape, out.dtype());
  sum.copyFrom(*bias);
  dispatchDType(out.dtype(), [&]<typename T>() {
    T* s = sum.data<T>();
    const T* o = out.data<T>();
    for (int64_t i = 0, n = sum.numel(); i < n; ++i) s[i] += o[i];
  });
  return sum;
}

}  // namespace stitch
