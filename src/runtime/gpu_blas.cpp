#include "runtime/gpu_blas.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/dynamic_symbols.h"
#include "common/error.h"

namespace stitch {

namespace {

class EmulatedBlas final : public GpuBlas {
 public:
  void sgemmStridedBatched(bool transA, bool transB, int64_t m, int64_t n, int64_t k, CudaPointer a, int64_t lda,
                           int64_t strideA, CudaPointer b, int64_t ldb, int64_t strideB, CudaPointer c, int64_t ldc,
                           int64_t strideC, int64_t batch) override {
    for (int64_t e = 0; e < batch; ++e) {
      const float* ae = reinterpret_cast<const float*>(a) + e * strideA;
      const float* be = reinterpret_cast<const float*>(b) + e * strideB;
      float* ce = reinterpret_cast<float*>(c) + e * strideC;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
          float sum = 0.0f;
          for (int64_t p = 0; p < k; ++p) {
            const float x = transA ? ae[p + i * lda] : ae[i + p * lda];
            const float y = transB ? be[j + p * ldb] : be[p + j * ldb];
            sum += x * y;
          }
          ce[i + j * ldc] = sum;
        }
    }
  }
};

// cublas_api.h: handles are pointers, cublasStatus_t an int enum (0:
// success), cublasOperation_t N = 0, T = 1; CUBLAS_DEFAULT_MATH = 0.
class Cublas final : public GpuBlas {
 public:
  static Cublas* load() {
    void* lib = openFirstLibrary(
        "STITCH_CUBLAS", {"libcublas.so.13", "libcublas.so.12", "libcublas.so", "/usr/local/cuda/lib64/libcublas.so"},
        nullptr, nullptr);
    if (!lib) return nullptr;
    auto* blas = new Cublas();  // never unloaded, like the driver
    bool ok = bindSymbol(lib, "cublasCreate_v2", blas->create_) && bindSymbol(lib, "cublasSetMathMode", blas->mathMode_) &&
              bindSymbol(lib, "cublasSgemmStridedBatched", blas->gemm_) &&
              bindSymbol(lib, "cublasSetStream_v2", blas->setStream_);
    // Optional: an older cuBLAS keeps its own workspace.
    if (ok) bindSymbol(lib, "cublasSetWorkspace_v2", blas->setWorkspace_);
    if (!ok || blas->create_(&blas->handle_) != 0 || blas->mathMode_(blas->handle_, 0) != 0) {
      delete blas;
      ::dlclose(lib);
      return nullptr;
    }
    return blas;
  }

  void sgemmStridedBatched(bool transA, bool transB, int64_t m, int64_t n, int64_t k, CudaPointer a, int64_t lda,
                           int64_t strideA, CudaPointer b, int64_t ldb, int64_t strideB, CudaPointer c, int64_t ldc,
                           int64_t strideC, int64_t batch) override {
    for (int64_t v : {m, n, k, lda, ldb, ldc, batch})
      STITCH_ASSERT(v <= INT_MAX, "cuBLAS product with a size of ", v);
    const float one = 1.0f, zero = 0.0f;
    const int status =
        gemm_(handle_, transA ? 1 : 0, transB ? 1 : 0, (int)m, (int)n, (int)k, &one, reinterpret_cast<const float*>(a),
              (int)lda, strideA, reinterpret_cast<const float*>(b), (int)ldb, strideB, &zero,
              reinterpret_cast<float*>(c), (int)ldc, strideC, (int)batch);
    if (status != 0) throw RuntimeFailure("CUDA: cublasSgemmStridedBatched failed with status " + std::to_string(status));
  }

  // cublasSetStream resets the workspace to cuBLAS's own pool, so the
  // captured one is set after it.
  void setStream(void* stream, CudaPointer workspace, size_t bytes) override {
    int status = setStream_(handle_, stream);
    if (status == 0 && stream && setWorkspace_) status = setWorkspace_(handle_, reinterpret_cast<void*>(workspace), bytes);
    if (status != 0) throw RuntimeFailure("CUDA: setting cuBLAS's stream failed with status " + std::to_string(status));
  }

 private:
  void* handle_ = nullptr;
  int (*create_)(void**) = nullptr;
  int (*mathMode_)(void*, int) = nullptr;
  int (*setStream_)(void*, void*) = nullptr;
  int (*setWorkspace_)(void*, void*, size_t) = nullptr;
  int (*gemm_)(void*, int, int, int, int, int, const float*, const float*, int, long long, const float*, int,
               long long, const float*, float*, int, long long, int) = nullptr;
};

}  // namespace

GpuBlas& emulatedBlas() {
  static EmulatedBlas blas;
  return blas;
}

GpuBlas* cublas() {
  static Cublas* loaded = Cublas::load();
  return loaded;
}

}  // namespace stitch
