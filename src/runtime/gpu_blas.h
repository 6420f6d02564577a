// Matrix products on the GPU for the contraction kernels
// (runtime/device_contraction.h): cuBLAS, loaded with dlopen at run time
// like the driver, or on the CUDA emulator a host routine with cuBLAS's
// contract, so the mapping of a row-major product onto cuBLAS's
// column-major call is tested where there is no GPU.
//
// cuBLAS over a hand-written GEMM: it is what PyTorch calls for f32
// products on NVIDIA GPUs (same results as the peers, tuned per
// architecture); the math mode is CUBLAS_DEFAULT_MATH, so f32 products are
// not rounded through TF32 (PyTorch's default, allow_tf32 = False).
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/gpu_device.h"

namespace stitch {

class GpuBlas {
 public:
  virtual ~GpuBlas() = default;
  // cublasSgemmStridedBatched: for each b < batch, column-major
  // C_b[m, n] = op(A_b)[m, k] op(B_b)[k, n] (alpha 1, beta 0), where op(X)
  // is X or its transpose, X_b starts at X + b * strideX (floats; 0: one X
  // for all) and ldX is X's leading dimension.
  virtual void sgemmStridedBatched(bool transA, bool transB, int64_t m, int64_t n, int64_t k, CudaPointer a,
                                   int64_t lda, int64_t strideA, CudaPointer b, int64_t ldb, int64_t strideB,
                                   CudaPointer c, int64_t ldc, int64_t strideC, int64_t batch) = 0;
  // Where the calls go from now on: `stream` (a CUstream being captured,
  // with `workspace` of `bytes` for cuBLAS's scratch), or null (the legacy
  // stream, cuBLAS's own workspace).
  virtual void setStream(void* stream, CudaPointer workspace, size_t bytes) {}
};

// The host routine with cuBLAS's contract, on the emulator's memory (host
// addresses), summing in f32 in order of k.
GpuBlas& emulatedBlas();

// cuBLAS on the current CUDA context, or nullptr when no cuBLAS library
// loads ($STITCH_CUBLAS, libcublas.so.13, .12, libcublas.so,
// /usr/local/cuda/lib64): contractions then run on the host.
GpuBlas* cublas();

}  // namespace stitch
