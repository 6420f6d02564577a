#include "runtime/attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "common/cpu_clones.h"
#include "common/kernel_math.h"
#include "interp/reduce_loops.h"
#include "runtime/lane_folds.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace stitch {

namespace {

constexpr int64_t kLanes = lane_folds::kWidth;
// Multiply-adds below which the kernel runs on the calling thread (a
// decode step's 50 keys: waking the team costs more than the work).
constexpr int64_t kMinParallelMacs = int64_t(1) << 16;

// How far ahead the k and v rows are prefetched: a core reading one stream
// from L3 or memory keeps too few lines in flight on its own (GQA decode
// is 19% slower without).
constexpr int64_t kPrefetchKeys = 16;

// max that keeps a NaN from either side (PyTorch's softmax propagates it).
inline float maxKeepingNaN(float m, float x) { return x != x || x > m ? x : m; }

// Scales a row of scores in place and returns their max, a NaN winning.
// GCC keeps the NaN-aware select of the portable loop scalar, so CPUs with
// AVX-512 or AVX2 take vector compares; max is exact, so both give the same value
// (up to the sign of a zero max, which exp(s - max) does not see).
float scaleAndMaxPortable(float* sr, int64_t n, float scale) {
  float m = -INFINITY;
  for (int64_t j = 0; j < n; ++j) {
    sr[j] *= scale;
    m = maxKeepingNaN(m, sr[j]);
  }
  return m;
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) float scaleAndMaxAvx512(float* sr, int64_t n, float scale) {
  const __m512 factor = _mm512_set1_ps(scale);
  __m512 maxes = _mm512_set1_ps(-INFINITY);
  __mmask16 nan = 0;
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const __m512 x = _mm512_mul_ps(_mm512_loadu_ps(sr + j), factor);
    _mm512_storeu_ps(sr + j, x);
    nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    maxes = _mm512_max_ps(maxes, x);
  }
  const float m = _mm512_reduce_max_ps(maxes);
  const float rest = scaleAndMaxPortable(sr + j, n - j, scale);
  return nan ? NAN : maxKeepingNaN(m, rest);
}

__attribute__((target("avx2"))) float scaleAndMaxAvx2(float* sr, int64_t n, float scale) {
  const __m256 factor = _mm256_set1_ps(scale);
  __m256 maxes = _mm256_set1_ps(-INFINITY), nan = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 x = _mm256_mul_ps(_mm256_loadu_ps(sr + j), factor);
    _mm256_storeu_ps(sr + j, x);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    maxes = _mm256_max_ps(maxes, x);
  }
  alignas(32) float m[8];
  _mm256_store_ps(m, maxes);
  const float rest = scaleAndMaxPortable(sr + j, n - j, scale);
  if (_mm256_movemask_ps(nan)) return NAN;
  return maxKeepingNaN(*std::max_element(m, m + 8), rest);
}

float scaleAndMax(float* sr, int64_t n, float scale) {
  static const bool avx512 = __builtin_cpu_supports("avx512f"), avx2 = __builtin_cpu_supports("avx2");
  return avx512 ? scaleAndMaxAvx512(sr, n, scale) : avx2 ? scaleAndMaxAvx2(sr, n, scale) : scaleAndMaxPortable(sr, n, scale);
}
#else
float scaleAndMax(float* sr, int64_t n, float scale) { return scaleAndMaxPortable(sr, n, scale); }
#endif

// Where a block of rows starts in each operand.
struct Block {
  const float* q;  // rows rows, stride qs
  const float* k;  // keys keys, stride ks
  const float* v;  // keys rows of v, stride vs
  int64_t rows, keys;
};

struct Strides {
  int64_t qs, ks, vs, dim, dimV;
  float scale;
};

// The partial of a block of rows against a chunk of keys: per row the
// scores' max, the sum of p = exp(s - max) and p @ v (acc, rows x dimV).
// Every sum runs in 16 lanes (lane l takes the terms l mod 16 in order) and
// folds in one order; every term is one fused multiply-add, so each CPU
// clone gives the same result. kRows, kDim and kDimV fix the block's rows
// and the head dims where they are known (0: read from b and s), so the
// loops unroll and the p @ v accumulators stay in registers.
template <int64_t kRows, int64_t kDim, int64_t kDimV>
__attribute__((always_inline)) inline void attendChunkOf(const Block& b, const Strides& s, float* maxOut,
                                                         float* sumOut, float* acc) {
  const int64_t rows = kRows ? kRows : b.rows, dim = kDim ? kDim : s.dim, dimV = kDimV ? kDimV : s.dimV;
  alignas(64) float scores[kAttentionRows][kAttentionChunk];
  alignas(64) float part[kAttentionRows][kLanes][kLanes];
  const int64_t fullDim = dim / kLanes * kLanes;
  // Known dims: the block's q rows in a local copy, which the unrolled
  // loops below keep in registers across the keys.
  alignas(64) float qLocal[kAttentionRows][kDim ? kDim : 1];
  if constexpr (kDim != 0)
    for (int64_t r = 0; r < rows; ++r) std::memcpy(qLocal[r], b.q + r * s.qs, sizeof qLocal[r]);
  for (int64_t j0 = 0; j0 < b.keys; j0 += kLanes) {
    const int64_t n = std::min(kLanes, b.keys - j0);
    for (int64_t jj = 0; jj < kLanes; ++jj) {
#pragma GCC unroll 4
      for (int64_t r = 0; r < rows; ++r) {
        float lanes[kLanes] = {};
        if (jj < n) {
          const float* kr = b.k + (j0 + jj) * s.ks;
          const float* qr = kDim ? qLocal[r] : b.q + r * s.qs;
          if (r == 0)
            for (int64_t d = 0; d < dim; d += kLanes) __builtin_prefetch(kr + kPrefetchKeys * s.ks + d);
#pragma GCC unroll 8
          for (int64_t d = 0; d < fullDim; d += kLanes)
            for (int64_t l = 0; l < kLanes; ++l) lanes[l] = std::fma(qr[d + l], kr[d + l], lanes[l]);
          for (int64_t t = 0; fullDim + t < dim; ++t) lanes[t] = std::fma(qr[fullDim + t], kr[fullDim + t], lanes[t]);
        }
        std::memcpy(part[r][jj], lanes, sizeof lanes);
      }
    }
    for (int64_t r = 0; r < rows; ++r) lane_folds::fold16Rows(part[r], &scores[r][j0]);
  }
  const int64_t fullKeys = b.keys / kLanes * kLanes;
  for (int64_t r = 0; r < rows; ++r) {
    float* sr = scores[r];
    const float m = scaleAndMax(sr, b.keys, s.scale);
    float sumLanes[kLanes] = {};
    for (int64_t j = 0; j < fullKeys; j += kLanes)
      for (int64_t l = 0; l < kLanes; ++l) {
        sr[j + l] = stitch_kexp_nonpos_f32(sr[j + l] - m);
        sumLanes[l] += sr[j + l];
      }
    for (int64_t t = 0; fullKeys + t < b.keys; ++t) {
      sr[fullKeys + t] = stitch_kexp_nonpos_f32(sr[fullKeys + t] - m);
      sumLanes[t] += sr[fullKeys + t];
    }
    maxOut[r] = m;
    sumOut[r] = lane_folds::fold16(sumLanes);
  }
  // p @ v over column blocks of 64, accumulated in a local block (no
  // aliasing with v: it stays in registers across the keys).
  constexpr int64_t kCols = 64;
  for (int64_t c0 = 0; c0 < dimV; c0 += kCols) {
    const int64_t w = std::min(kCols, dimV - c0);
    alignas(64) float a[kAttentionRows][kCols] = {};
    if (w == kCols) {
      for (int64_t j = 0; j < b.keys; ++j) {
        const float* vr = b.v + j * s.vs + c0;
        for (int64_t c = 0; c < kCols; c += kLanes) __builtin_prefetch(vr + kPrefetchKeys * s.vs + c);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < kCols; ++c) a[r][c] = std::fma(scores[r][j], vr[c], a[r][c]);
      }
    } else {
      for (int64_t j = 0; j < b.keys; ++j) {
        const float* vr = b.v + j * s.vs + c0;
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < w; ++c) a[r][c] = std::fma(scores[r][j], vr[c], a[r][c]);
      }
    }
    for (int64_t r = 0; r < rows; ++r) std::memcpy(acc + r * dimV + c0, a[r], (size_t)w * sizeof(float));
  }
}

// The clones of the shapes worth their own code: a block of kAttentionRows
// rows or one row, head dims of 64 or any.
STITCH_CPU_CLONES("avx512f", "arch=x86-64-v3", "default")
void attendBlock64(const Block& b, const Strides& s, float* maxOut, float* sumOut, float* acc) {
  attendChunkOf<kAttentionRows, 64, 64>(b, s, maxOut, sumOut, acc);
}
STITCH_CPU_CLONES("avx512f", "arch=x86-64-v3", "default")
void attendRow64(const Block& b, const Strides& s, float* maxOut, float* sumOut, float* acc) {
  attendChunkOf<1, 64, 64>(b, s, maxOut, sumOut, acc);
}
STITCH_CPU_CLONES("avx512f", "arch=x86-64-v3", "default")
void attendBlockAny(const Block& b, const Strides& s, float* maxOut, float* sumOut, float* acc) {
  attendChunkOf<0, 0, 0>(b, s, maxOut, sumOut, acc);
}

void attendChunk(const Block& b, const Strides& s, float* maxOut, float* sumOut, float* acc) {
  if (s.dim != 64 || s.dimV != 64) return attendBlockAny(b, s, maxOut, sumOut, acc);
  if (b.rows == kAttentionRows) return attendBlock64(b, s, maxOut, sumOut, acc);
  for (int64_t r = 0; r < b.rows; ++r) {
    Block row = b;
    row.q = b.q + r * s.qs;
    row.rows = 1;
    attendRow64(row, s, maxOut + r, sumOut + r, acc + r * s.dimV);
  }
}

// The chunks' partials of one row, in chunk order, into out (dimV). Chunk
// c's partial of the row is at first + c * itemStride: max, then (at
// kAttentionRows) sum, then (at 2 kAttentionRows + inBlock dimV, with
// inBlock folded into `first`'s max and sum) its dimV of p @ v.
STITCH_CPU_CLONES("avx512f", "arch=x86-64-v3", "default")
void combineChunks(const float* first, int64_t itemStride, int64_t inBlock, int64_t chunks, int64_t dimV,
                   float* out) {
  float top = first[inBlock];
  for (int64_t c = 1; c < chunks; ++c) top = maxKeepingNaN(top, first[c * itemStride + inBlock]);
  float total = 0.0f;
  std::fill(out, out + dimV, 0.0f);
  for (int64_t c = 0; c < chunks; ++c) {
    const float* p = first + c * itemStride;
    const float* acc = p + 2 * kAttentionRows + inBlock * dimV;
    const float w = chunks == 1 ? 1.0f : stitch_kexp_f32(p[inBlock] - top);
    total = std::fma(w, p[kAttentionRows + inBlock], total);
    for (int64_t i = 0; i < dimV; ++i) out[i] = std::fma(w, acc[i], out[i]);
  }
  for (int64_t i = 0; i < dimV; ++i) out[i] /= total;
}

// Element offset of batch entry `b` in an operand with these batch strides.
int64_t batchOffset(const AttentionCall& c, const int64_t* strides, int64_t b) {
  int64_t offset = 0;
  for (int64_t d = c.batchRank - 1; d >= 0; --d) {
    offset += b % c.batchSizes[d] * strides[d];
    b /= c.batchSizes[d];
  }
  return offset;
}

// Floats per item's partial: per row of its block max, sum, then dimV of p @ v.
int64_t itemStride(const AttentionCall& c) { return kAttentionRows * (2 + c.dimV); }

}  // namespace

bool attentionShapesFit(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t r = q.dim();
  if (r < 2 || k.dim() != r || v.dim() != r) return false;
  for (const Tensor* t : {&q, &k, &v})
    if (t->dtype() != DType::f32) return false;
  for (int64_t d = 0; d < r - 2; ++d)
    if (k.size(d) != q.size(d) || v.size(d) != q.size(d)) return false;
  return q.size(r - 1) == k.size(r - 1) && k.size(r - 2) == v.size(r - 2);
}

bool attentionApplies(const Tensor& q, const Tensor& k, const Tensor& v) {
  if (!attentionShapesFit(q, k, v)) return false;
  for (const Tensor* t : {&q, &k, &v})
    if (t->size(t->dim() - 1) > 1 && t->stride(t->dim() - 1) != 1) return false;
  return true;
}

Shape attentionOutputShape(const Tensor& q, const Tensor& v) {
  Shape out = q.sizes();
  out.back() = v.sizes().back();
  return out;
}

AttentionWork attentionWork(const AttentionCall& c) {
  AttentionWork w;
  for (int64_t d = 0; d < c.batchRank; ++d) w.batches *= c.batchSizes[d];
  w.rowBlocks = (c.rows + kAttentionRows - 1) / kAttentionRows;
  w.chunks = (c.keys + kAttentionChunk - 1) / kAttentionChunk;
  w.items = w.batches * w.rowBlocks * w.chunks;
  w.parallel = w.batches * c.rows * c.keys * (c.dim + c.dimV) >= kMinParallelMacs;
  return w;
}

int64_t attentionPartialFloats(const AttentionCall& c, const AttentionWork& w) { return w.items * itemStride(c); }

void attentionItems(const AttentionCall& c, const AttentionWork& w, float* partials, int64_t begin, int64_t end) {
  const Strides s{c.qs, c.ks, c.vs, c.dim, c.dimV, c.scale};
  const int64_t stride = itemStride(c);
  for (int64_t item = begin; item < end; ++item) {
    const int64_t chunk = item % w.chunks, rowBlock = item / w.chunks % w.rowBlocks;
    const int64_t batch = item / w.chunks / w.rowBlocks;
    const int64_t row0 = rowBlock * kAttentionRows, key0 = chunk * kAttentionChunk;
    Block b{c.q + batchOffset(c, c.qBatchStrides, batch) + row0 * s.qs,
            c.k + batchOffset(c, c.kBatchStrides, batch) + key0 * s.ks,
            c.v + batchOffset(c, c.vBatchStrides, batch) + key0 * s.vs, std::min(kAttentionRows, c.rows - row0),
            std::min(kAttentionChunk, c.keys - key0)};
    float* p = partials + item * stride;
    attendChunk(b, s, p, p + kAttentionRows, p + 2 * kAttentionRows);
    // One chunk: its partials are the rows' results, combined here (the
    // same arithmetic as attentionCombine's).
    if (w.chunks == 1)
      for (int64_t r = 0; r < b.rows; ++r)
        combineChunks(p, stride, r, 1, c.dimV, c.out + (batch * c.rows + row0 + r) * c.dimV);
  }
}

void attentionCombine(const AttentionCall& c, const AttentionWork& w, const float* partials, int64_t begin,
                      int64_t end) {
  if (w.chunks == 1) return;  // the items wrote the rows
  const int64_t stride = itemStride(c);
  for (int64_t row = begin; row < end; ++row) {
    float* out = c.out + row * c.dimV;
    if (w.chunks == 0) {  // no keys: the second product sums no terms
      std::fill(out, out + c.dimV, 0.0f);
      continue;
    }
    const int64_t batch = row / c.rows, inBatch = row % c.rows;
    const int64_t rowBlock = inBatch / kAttentionRows;
    combineChunks(partials + (batch * w.rowBlocks + rowBlock) * w.chunks * stride, stride,
                  inBatch % kAttentionRows, w.chunks, c.dimV, out);
  }
}

void attentionF32(const Tensor& q, const Tensor& k, const Tensor& v, float scale, const Tensor& out,
                  int threads) {
  if (out.numel() == 0) return;
  const int64_t r = q.dim();
  AttentionCall c{q.data<float>(),        k.data<float>(),     v.data<float>(),        out.data<float>(),
                  r - 2,                  q.sizes().data(),    q.strides().data(),     k.strides().data(),
                  v.strides().data(),     q.size(r - 2),       k.size(r - 2),          q.size(r - 1),
                  v.size(r - 1),          q.stride(r - 2),     k.stride(r - 2),        v.stride(r - 2),
                  scale};
  const AttentionWork w = attentionWork(c);
  // Not zero-filled: each item writes the rows of its block, and only those
  // are combined (a decode step's one query row in a block of
  // kAttentionRows would otherwise zero four times what it uses).
  std::unique_ptr<float[]> partials(new float[(size_t)std::max<int64_t>(attentionPartialFloats(c, w), 1)]);
  const int team = w.parallel ? std::max(threads, 1) : 1;
#pragma omp parallel for num_threads(team) schedule(static)
  for (int64_t item = 0; item < w.items; ++item) attentionItems(c, w, partials.get(), item, item + 1);
  attentionCombine(c, w, partials.get(), 0, w.batches * c.rows);
}

}  // namespace stitch
