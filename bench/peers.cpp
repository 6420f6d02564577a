#include "peers.h"

#include <cstdlib>

#ifdef STITCH_BENCH_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef STITCH_BENCH_OPENBLAS
#include <cblas.h>
#endif
#ifdef STITCH_BENCH_XSMM
#include <libxsmm.h>
#endif

namespace stitch::bench {

bool haveDnnl() {
#ifdef STITCH_BENCH_DNNL
  return true;
#else
  return false;
#endif
}

bool haveOpenblas() {
#ifdef STITCH_BENCH_OPENBLAS
  return true;
#else
  return false;
#endif
}

bool haveXsmm() {
#ifdef STITCH_BENCH_XSMM
  return true;
#else
  return false;
#endif
}

void dnnlSgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
#ifdef STITCH_BENCH_DNNL
  // dnnl_sgemm is row-major: C^T = B^T A^T on the column-major operands.
  dnnl_sgemm('N', 'N', n, m, k, 1.0f, b, k, a, m, 0.0f, c, m);
#else
  std::abort();
#endif
}

void openblasSgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                   int threads) {
#ifdef STITCH_BENCH_OPENBLAS
  openblas_set_num_threads(threads);
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, a,
              int(m), b, int(k), 0.0f, c, int(m));
#else
  std::abort();
#endif
}

void* xsmmBrgemmDispatch(int64_t m, int64_t n, int64_t k) {
#ifdef STITCH_BENCH_XSMM
  static bool init = (libxsmm_init(), true);
  (void)init;
  const libxsmm_blasint lda = m, ldb = k, ldc = m;
  const float alpha = 1.0f, beta = 1.0f;
  const int flags = 0, prefetch = 0;
  // Batch strides are in bytes in this API.
  auto fn = libxsmm_smmdispatch_reducebatch_strd(
      libxsmm_blasint(m), libxsmm_blasint(n), libxsmm_blasint(k),
      libxsmm_blasint(m * k * sizeof(float)), libxsmm_blasint(k * n * sizeof(float)), &lda,
      &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
  return reinterpret_cast<void*>(fn);
#else
  return nullptr;
#endif
}

void xsmmBrgemmCall(void* kernel, int64_t br, const float* a, const float* b, float* c) {
#ifdef STITCH_BENCH_XSMM
  const unsigned long long count = static_cast<unsigned long long>(br);
  reinterpret_cast<libxsmm_smmfunction_reducebatch_strd>(kernel)(a, b, c, &count);
#else
  std::abort();
#endif
}

}  // namespace stitch::bench
