// Descriptors of the JIT primitives and the calling conventions of the
// generated code. All matrices are column-major fp32; leading dimensions and
// batch-reduce strides are in elements.
#pragma once
#include <cstdint>
#include <string>

#include "stitch/tensorop.h"

namespace stitch::tensorop {

// C[M,N] (+)= sum_br A_br[M,K] * B_br[K,N].
// A(m,k) = a[m + k*lda] (trans_a: a[k + m*lda]);
// B(k,n) = b[k + n*ldb] (trans_b: b[n + k*ldb]);  C(m,n) = c[m + n*ldc].
// A_br = a + br*br_stride_a, B_br = b + br*br_stride_b.
struct BrgemmDesc {
  int64_t m = 1, n = 1, k = 1, br = 1;
  bool trans_a = false, trans_b = false;
  bool accumulate = true;  // false: C is overwritten (beta = 0)
  std::string key() const;
};
using BrgemmFn = void (*)(const float* a, const float* b, float* c, int64_t lda,
                          int64_t ldb, int64_t ldc, int64_t br_stride_a,
                          int64_t br_stride_b);

// out = op(in) on an M x N block. transpose: out(n,m) = op(in(m,n)), so out
// is N x M with leading dimension ld_out. `zero` ignores `in`.
struct UnaryDesc {
  int64_t m = 1, n = 1;
  ptype_t op = ptype_t::identity;
  bool transpose = false;
  std::string key() const;
};
using UnaryFn = void (*)(const float* in, float* out, int64_t ld_in,
                         int64_t ld_out);

// out(m,n) = in0(m,n) op in1(m,n). A leading dimension of 0 broadcasts a
// column over N; bcast_m_in0/1 broadcast one element per column over M
// (the input's M stride is 0).
struct BinaryDesc {
  int64_t m = 1, n = 1;
  ptype_t op = ptype_t::add;
  bool bcast_m_in0 = false, bcast_m_in1 = false;
  std::string key() const;
};
using BinaryFn = void (*)(const float* in0, const float* in1, float* out,
                          int64_t ld_in0, int64_t ld_in1, int64_t ld_out);

}  // namespace stitch::tensorop
