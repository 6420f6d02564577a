// Thin wrappers over the peer libraries (oneDNN, OpenBLAS, LIBXSMM); each
// returns false when the peer was not found at build time.
#pragma once
#include <cstdint>

namespace stitch::bench {

bool haveDnnl();
bool haveOpenblas();
bool haveXsmm();

// Column-major C[M,N] = A[M,K] * B[K,N] (beta 0), threads via the peer's own
// runtime (OpenMP for oneDNN, its pool for OpenBLAS).
void dnnlSgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c);
void openblasSgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                   int threads);

// LIBXSMM batch-reduce GEMM: C += sum_br A_br B_br on packed operands
// (A_br = a + br*m*k, B_br = b + br*k*n). Dispatch once, call many times.
void* xsmmBrgemmDispatch(int64_t m, int64_t n, int64_t k);
void xsmmBrgemmCall(void* kernel, int64_t br, const float* a, const float* b, float* c);

}  // namespace stitch::bench
