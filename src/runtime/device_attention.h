// fused.attention (runtime/attention_kernel.h) on the GPU: the same
// flash-decoding split, as two kernels over device buffers.
//
//   stitch_attention_chunks: a CUDA block per work item (batch entry,
//   block of kAttentionRows query rows, chunk of kAttentionChunk keys).
//   Each warp takes one key at a time, its lanes along the head dim (k's
//   row read in one coalesced line), the dot products summed across the
//   lanes by butterfly shuffles in a fixed order; the chunk's scores sit
//   in shared memory; one warp per query row takes their max and the sum
//   of exp(s - max); then each thread one (row, column) of p @ v, reading
//   v's rows along the columns. With one chunk it writes the output rows;
//   else the chunk's unscaled p @ v, max and sum.
//   stitch_attention_combine: a CUDA block per output row combines the
//   chunks' partials in chunk order, as attentionCombine does.
//
// So k and v are read once per block of query rows, the scores never
// reach global memory, and the result does not depend on how the threads
// were scheduled. Float32 throughout; compared with the interpreter under
// the tolerance rule.
#pragma once
#include <cstdint>
#include <string>

#include "interp/tensor.h"
#include "runtime/gpu_device.h"

namespace stitch {

// F32 operands on the device: q [batches, rows, dim], k [batches, keys,
// dim], v [batches, keys, dimV], each with its own batch and row strides
// (elements; the last dim contiguous), into a dense out [batches, rows,
// dimV].
struct DeviceAttention {
  CudaPointer q = 0, k = 0, v = 0, out = 0;
  int64_t batches = 0, rows = 0, keys = 0, dim = 0, dimV = 0;
  int64_t qBatch = 0, qRow = 0, kBatch = 0, kRow = 0, vBatch = 0, vRow = 0;
  float scale = 1.0f;
};

// The sizes of an attention over q, k and v (attentionShapesFit: their
// batch dims flattened), the pointers left 0 and the strides dense ones;
// false when they do not fit.
bool deviceAttentionSizes(const Tensor& q, const Tensor& k, const Tensor& v, DeviceAttention& a);

// t's batch and row strides when its elements can be read where they lie:
// the last dim contiguous, the batch dims one stride apart (a slice of a
// KV cache along its positions). False: it must be made dense first.
bool attentionStrides(const Tensor& t, int64_t& batch, int64_t& row);

// Whether the kernels take these sizes (head dims up to
// kDeviceAttentionMaxDim, items within a CUDA grid); else the host runs it.
constexpr int64_t kDeviceAttentionMaxDim = 128;
bool deviceRunsAttention(const DeviceAttention& a);

// The two kernels' CUDA text, as loaded.
std::string deviceAttentionSource();

// Queues the attention and returns its launches (1 or 2).
int runAttentionOnDevice(GpuDevice& device, const DeviceAttention& a);

}  // namespace stitch
