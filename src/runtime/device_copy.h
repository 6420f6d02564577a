// Strided copies between device buffers (one predefined kernel, a thread
// per element): what the host does with Tensor::copyFrom and contiguous(),
// for tensors that stay on the GPU -- a view a kernel reads made dense, a
// region of a tensor overwritten (a KV cache's row), a broadcast source
// (stride 0) expanded into it.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/gpu_device.h"

namespace stitch {

// The most dims a strided copy takes; more run on the host.
constexpr int64_t kDeviceCopyMaxRank = 8;

// The most pieces one launch copies (a source pointer each).
constexpr int64_t kDeviceCopyMaxPieces = 96;

// Element i of `sizes` (row-major order) of each of `pieces` sources goes
// from srcs[p] + sum(i_d * srcStrides[d]) to dst + p * pieceStep +
// sum(i_d * dstStrides[d]), all in elements of `elemSize` bytes (1, 2, 4
// or 8) from pointers at the first element: one launch (a single region,
// or a stack's rows). Sources and destination must not overlap. Queued on
// the device.
void copyPiecesOnDevice(GpuDevice& device, int64_t rank, const int64_t* sizes, size_t elemSize, CudaPointer dst,
                        const int64_t* dstStrides, int64_t pieceStep, const CudaPointer* srcs, int64_t pieces,
                        const int64_t* srcStrides);

// The kernel's CUDA text, as loaded.
std::string deviceCopySource();

}  // namespace stitch
