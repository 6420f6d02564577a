#include "runtime/device_attention.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "codegen/c_renderer.h"
#include "codegen/kernel_abi.h"
#include "common/error.h"
#include "runtime/attention_kernel.h"

namespace stitch {

namespace {

// Chunk and row block are the host kernel's (kAttentionChunk,
// kAttentionRows): the same split, so the same partials are combined.
// Every warp of a block runs the same trips of each loop that shuffles
// (keys past the end compute zeros, the row count is the block's): CUDA
// wants every lane of a warp at a full-mask shuffle, the emulator every
// thread of the block.
std::string attentionSizes() {
  return "\n#define ATT_ROWS " + std::to_string(kAttentionRows) + "\n#define ATT_CHUNK " +
         std::to_string(kAttentionChunk) + "\n#define ATT_SLICES " + std::to_string(kDeviceAttentionMaxDim / 32) +
         " /* a head dim's elements per lane */\n";
}
constexpr const char* kAttentionKernels = R"(#define ATT_UNROLL 4 /* keys a warp loads before it sums them */

/* max that keeps a NaN from either side, as PyTorch's softmax does */
static __device__ inline float stitch_att_max(float m, float x) { return x != x || x > m ? x : m; }

STITCH_KERNEL void stitch_attention_chunks(const stitch_args args) {
  const float* restrict q = (const float*)args.bufs[0];
  const float* restrict k = (const float*)args.bufs[1];
  const float* restrict v = (const float*)args.bufs[2];
  float* restrict out = (float*)args.bufs[3];
  float* restrict part = (float*)args.bufs[4];
  const int64_t rows = args.params[0].i, keys = args.params[1].i, dim = args.params[2].i, dimV = args.params[3].i;
  const int64_t rowBlocks = args.params[4].i, chunks = args.params[5].i;
  const float scale = (float)args.params[6].f;
  const int64_t qb = args.params[7].i, qs = args.params[8].i, kb = args.params[9].i, ks = args.params[10].i;
  const int64_t vb = args.params[11].i, vs = args.params[12].i;
  STITCH_SHARED(float, p, ATT_ROWS * ATT_CHUNK, 0);
  STITCH_SHARED(float, stats, 2 * ATT_ROWS, 1);
  const int64_t item = blockIdx.x, chunk = item % chunks, rowBlock = item / chunks % rowBlocks;
  const int64_t b = item / chunks / rowBlocks, row0 = rowBlock * ATT_ROWS, key0 = chunk * ATT_CHUNK;
  const int64_t nr = rows - row0 < ATT_ROWS ? rows - row0 : ATT_ROWS;
  const int64_t nk = keys - key0 < ATT_CHUNK ? keys - key0 : ATT_CHUNK;
  const int64_t lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;

  float qr[ATT_ROWS][ATT_SLICES];
  for (int r = 0; r < ATT_ROWS; ++r)
    for (int s = 0; s < ATT_SLICES; ++s) {
      const int64_t d = lane + 32 * s;
      qr[r][s] = r < nr && d < dim ? q[b * qb + (row0 + r) * qs + d] : 0.0f;
    }
  /* The scores: a warp per key, its lanes along the head dim. */
  for (int64_t j0 = 0; j0 < nk; j0 += warps * ATT_UNROLL) {
    float kv[ATT_UNROLL][ATT_SLICES];
    for (int u = 0; u < ATT_UNROLL; ++u) {
      const int64_t j = j0 + warp + u * warps;
      for (int s = 0; s < ATT_SLICES; ++s) {
        const int64_t d = lane + 32 * s;
        kv[u][s] = j < nk && d < dim ? k[b * kb + (key0 + j) * ks + d] : 0.0f;
      }
    }
    for (int u = 0; u < ATT_UNROLL; ++u) {
      const int64_t j = j0 + warp + u * warps;
      for (int r = 0; r < ATT_ROWS; ++r) {
        if (r >= nr) break; /* the same in the whole block; constant indices into qr */
        float acc = 0.0f;
        for (int s = 0; s < ATT_SLICES; ++s) acc = fmaf(qr[r][s], kv[u][s], acc);
        for (unsigned m = 16; m >= 1; m /= 2) acc += STITCH_SHFL_XOR(acc, m);
        if (lane == 0 && j < nk) p[r * ATT_CHUNK + j] = acc * scale;
      }
    }
  }
  __syncthreads();

  /* Each row's max and sum of exp(s - max): a warp per row. */
  {
    const int64_t r = warp;
    const int live = r < nr;
    float m = -INFINITY, l = 0.0f;
    for (int64_t j = lane; j < nk; j += 32)
      if (live) m = stitch_att_max(m, p[r * ATT_CHUNK + j]);
    for (unsigned s = 16; s >= 1; s /= 2) m = stitch_att_max(m, STITCH_SHFL_XOR(m, s));
    for (int64_t j = lane; j < nk; j += 32)
      if (live) {
        const float e = expf(p[r * ATT_CHUNK + j] - m);
        p[r * ATT_CHUNK + j] = e;
        l += e;
      }
    for (unsigned s = 16; s >= 1; s /= 2) l += STITCH_SHFL_XOR(l, s);
    if (live && lane == 0) {
      stats[2 * r] = m;
      stats[2 * r + 1] = l;
    }
  }
  __syncthreads();

  /* p @ v: a thread per (row, column), v read along the columns; four
   * accumulators over the keys, added in a fixed order. */
  for (int64_t at = threadIdx.x; at < nr * dimV; at += blockDim.x) {
    const int64_t r = at / dimV, c = at % dimV;
    const float* pr = p + r * ATT_CHUNK;
    const float* vc = v + b * vb + key0 * vs + c;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int64_t j = 0;
    for (; j + 4 <= nk; j += 4) {
      a0 = fmaf(pr[j], vc[j * vs], a0);
      a1 = fmaf(pr[j + 1], vc[(j + 1) * vs], a1);
      a2 = fmaf(pr[j + 2], vc[(j + 2) * vs], a2);
      a3 = fmaf(pr[j + 3], vc[(j + 3) * vs], a3);
    }
    for (; j < nk; ++j) a0 = fmaf(pr[j], vc[j * vs], a0);
    const float acc = (a0 + a1) + (a2 + a3);
    if (chunks == 1)
      out[(b * rows + row0 + r) * dimV + c] = acc / stats[2 * r + 1];
    else
      part[(item * ATT_ROWS + r) * (dimV + 2) + c] = acc;
  }
  if (chunks > 1 && threadIdx.x < nr) {
    float* const row = part + (item * ATT_ROWS + threadIdx.x) * (dimV + 2) + dimV;
    row[0] = stats[2 * threadIdx.x];
    row[1] = stats[2 * threadIdx.x + 1];
  }
}

/* One output row per block: the chunks' partials weighted by e^(m_c - M),
 * M the largest max, added in chunk order. */
STITCH_KERNEL void stitch_attention_combine(const stitch_args args) {
  float* restrict out = (float*)args.bufs[3];
  const float* restrict part = (const float*)args.bufs[4];
  const int64_t rows = args.params[0].i, dimV = args.params[3].i;
  const int64_t rowBlocks = args.params[4].i, chunks = args.params[5].i;
  const int64_t row = blockIdx.x, b = row / rows, i = row % rows;
  const int64_t stride = ATT_ROWS * (dimV + 2);
  const float* first = part + (b * rowBlocks + i / ATT_ROWS) * chunks * stride + i % ATT_ROWS * (dimV + 2);
  float top = first[dimV];
  for (int64_t c = 1; c < chunks; ++c) top = stitch_att_max(top, first[c * stride + dimV]);
  float total = 0.0f;
  for (int64_t c = 0; c < chunks; ++c)
    total = fmaf(expf(first[c * stride + dimV] - top), first[c * stride + dimV + 1], total);
  for (int64_t col = threadIdx.x; col < dimV; col += blockDim.x) {
    float sum = 0.0f;
    for (int64_t c = 0; c < chunks; ++c) sum = fmaf(expf(first[c * stride + dimV] - top), first[c * stride + col], sum);
    out[row * dimV + col] = sum / total;
  }
}
)";

constexpr int kChunkThreads = 256;  // 8 warps: at least one per row of a block

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::string deviceAttentionSource() { return renderCuda({}) + attentionSizes() + kAttentionKernels; }

bool deviceAttentionSizes(const Tensor& q, const Tensor& k, const Tensor& v, DeviceAttention& a) {
  if (!attentionShapesFit(q, k, v)) return false;
  const int64_t r = q.dim();
  a.batches = 1;
  for (int64_t d = 0; d < r - 2; ++d) a.batches *= q.size(d);
  a.rows = q.size(r - 2);
  a.keys = k.size(r - 2);
  a.dim = q.size(r - 1);
  a.dimV = v.size(r - 1);
  a.qBatch = a.rows * a.dim;
  a.qRow = a.dim;
  a.kBatch = a.keys * a.dim;
  a.kRow = a.dim;
  a.vBatch = a.keys * a.dimV;
  a.vRow = a.dimV;
  return true;
}

bool attentionStrides(const Tensor& t, int64_t& batch, int64_t& row) {
  const int64_t r = t.dim();
  if (r < 2 || (t.size(r - 1) > 1 && t.stride(r - 1) != 1)) return false;
  row = t.stride(r - 2);
  batch = r > 2 ? t.stride(r - 3) : 0;
  // Batch dims of one size are never stepped over; the others must merge.
  int64_t step = 0;
  for (int64_t d = r - 3; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (step == 0) {
      batch = t.stride(d);
    } else if (t.stride(d) != step) {
      return false;
    }
    step = t.stride(d) * t.size(d);
  }
  return true;
}

bool deviceRunsAttention(const DeviceAttention& a) {
  if (a.batches < 1 || a.rows < 1 || a.keys < 1 || a.dim < 1 || a.dimV < 1) return false;
  if (a.dim > kDeviceAttentionMaxDim || a.dimV > INT_MAX) return false;
  const int64_t items = a.batches * ceilDiv(a.rows, kAttentionRows) * ceilDiv(a.keys, kAttentionChunk);
  return items <= INT_MAX && a.batches * a.rows <= INT_MAX;
}

int runAttentionOnDevice(GpuDevice& device, const DeviceAttention& a) {
  STITCH_ASSERT(deviceRunsAttention(a), "device attention of ", a.batches, " x ", a.rows, " x ", a.keys, " x ", a.dim);
  const int64_t rowBlocks = ceilDiv(a.rows, kAttentionRows), chunks = ceilDiv(a.keys, kAttentionChunk);
  const int64_t items = a.batches * rowBlocks * chunks;
  CudaKernelArgs args;
  std::memset(&args, 0, sizeof args);
  args.bufs[0] = a.q;
  args.bufs[1] = a.k;
  args.bufs[2] = a.v;
  args.bufs[3] = a.out;
  const int64_t params[] = {a.rows, a.keys, a.dim, a.dimV, rowBlocks, chunks};
  for (size_t i = 0; i < std::size(params); ++i) args.params[i].i = params[i];
  args.params[6].f = a.scale;
  const int64_t strides[] = {a.qBatch, a.qRow, a.kBatch, a.kRow, a.vBatch, a.vRow};
  for (size_t i = 0; i < std::size(strides); ++i) args.params[7 + i].i = strides[i];
  CudaPointer partials = 0;
  if (chunks > 1) args.bufs[4] = partials = device.allocate(size_t(items * kAttentionRows * (a.dimV + 2)) * 4);
  device.launch(predefinedKernel(device, "attention", &deviceAttentionSource, "stitch_attention_chunks"),
                {items, kChunkThreads, true}, &args, sizeof args);
  if (chunks == 1) return 1;
  const int threads = (int)std::min<int64_t>(256, ceilDiv(a.dimV, 32) * 32);
  device.launch(predefinedKernel(device, "attention", &deviceAttentionSource, "stitch_attention_combine"),
                {a.batches * a.rows, threads}, &args, sizeof args);
  // Freed in stream order: a later allocation's kernels run after these.
  device.release(partials);
  return 2;
}

}  // namespace stitch
