#include "runtime/device_copy.h"

#include <cstring>

#include "codegen/c_renderer.h"
#include "codegen/kernel_abi.h"
#include "common/error.h"

namespace stitch {

namespace {

// params: rank, elements per piece, element size, the pieces' distance
// in dst (elements), CUDA blocks per piece, then sizes, dst strides and src strides,
// kDeviceCopyMaxRank of each. bufs: dst, then each piece's source.
constexpr const char* kCopyKernel = R"(
STITCH_KERNEL void stitch_strided_copy(const stitch_args args) {
  const int64_t rank = args.params[0].i, count = args.params[1].i, size = args.params[2].i;
  const int64_t perPiece = args.params[4].i, piece = (int64_t)blockIdx.x / perPiece;
  const int64_t i = (int64_t)blockIdx.x % perPiece * blockDim.x + threadIdx.x;
  if (i >= count) return;
  char* dst = (char*)args.bufs[0] + piece * args.params[3].i * size;
  const char* src = (const char*)args.bufs[1 + piece];
  int64_t rest = i, d = 0, s = 0;
  for (int64_t k = rank - 1; k >= 0; --k) {
    const int64_t n = args.params[5 + k].i, at = rest % n;
    rest /= n;
    d += at * args.params[5 + COPY_MAX_RANK + k].i;
    s += at * args.params[5 + 2 * COPY_MAX_RANK + k].i;
  }
  if (size == 4) ((int32_t*)dst)[d] = ((const int32_t*)src)[s];
  else if (size == 8) ((int64_t*)dst)[d] = ((const int64_t*)src)[s];
  else if (size == 2) ((int16_t*)dst)[d] = ((const int16_t*)src)[s];
  else dst[d] = src[s];
}
)";

constexpr int kCopyThreads = 256;
static_assert(5 + 3 * kDeviceCopyMaxRank <= kCudaMaxParams && 1 + kDeviceCopyMaxPieces <= kCudaMaxBuffers,
              "a strided copy's arguments fit stitch_args");

}  // namespace

std::string deviceCopySource() {
  return renderCuda({}) + "\n#define COPY_MAX_RANK " + std::to_string(kDeviceCopyMaxRank) + "\n" + kCopyKernel;
}

void copyPiecesOnDevice(GpuDevice& device, int64_t rank, const int64_t* sizes, size_t elemSize, CudaPointer dst,
                        const int64_t* dstStrides, int64_t pieceStep, const CudaPointer* srcs, int64_t pieces,
                        const int64_t* srcStrides) {
  STITCH_ASSERT(rank >= 0 && rank <= kDeviceCopyMaxRank, "a strided device copy of rank ", rank);
  STITCH_ASSERT(elemSize == 1 || elemSize == 2 || elemSize == 4 || elemSize == 8, "elements of ", elemSize, " bytes");
  STITCH_ASSERT(pieces >= 1 && pieces <= kDeviceCopyMaxPieces, pieces, " pieces in one device copy");
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) count *= sizes[d];
  if (count == 0) return;
  CudaKernelArgs args;
  std::memset(&args, 0, sizeof args);
  args.bufs[0] = dst;
  for (int64_t p = 0; p < pieces; ++p) args.bufs[1 + p] = srcs[p];
  args.params[0].i = rank;
  args.params[1].i = count;
  args.params[2].i = (int64_t)elemSize;
  args.params[3].i = pieceStep;
  const int threads = (int)std::min<int64_t>(count, kCopyThreads);
  const int64_t perPiece = (count + threads - 1) / threads;
  args.params[4].i = perPiece;
  for (int64_t d = 0; d < rank; ++d) {
    args.params[5 + d].i = sizes[d];
    args.params[5 + kDeviceCopyMaxRank + d].i = dstStrides[d];
    args.params[5 + 2 * kDeviceCopyMaxRank + d].i = srcStrides[d];
  }
  device.launch(predefinedKernel(device, "copy", &deviceCopySource, "stitch_strided_copy"), {perPiece * pieces, threads},
                &args, sizeof args);
}

}  // namespace stitch
