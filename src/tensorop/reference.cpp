#include "tensorop/reference.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace stitch::tensorop::reference {

void brgemm(const BrgemmDesc& d, const float* a, const float* b, float* c,
            int64_t lda, int64_t ldb, int64_t ldc, int64_t br_stride_a,
            int64_t br_stride_b) {
  for (int64_t n = 0; n < d.n; ++n) {
    for (int64_t m = 0; m < d.m; ++m) {
      // Accumulate in double so the reference is the more accurate side.
      double acc = d.accumulate ? c[m + n * ldc] : 0.0;
      for (int64_t r = 0; r < d.br; ++r) {
        const float* ab = a + r * br_stride_a;
        const float* bb = b + r * br_stride_b;
        for (int64_t k = 0; k < d.k; ++k) {
          float av = d.trans_a ? ab[k + m * lda] : ab[m + k * lda];
          float bv = d.trans_b ? bb[n + k * ldb] : bb[k + n * ldb];
          acc += double(av) * double(bv);
        }
      }
      c[m + n * ldc] = float(acc);
    }
  }
}

float unaryScalar(ptype_t op, float x) {
  switch (op) {
    case ptype_t::zero: return 0.0f;
    case ptype_t::identity: return x;
    case ptype_t::relu: return x > 0.0f ? x : 0.0f;
    case ptype_t::square: return x * x;
    case ptype_t::reciprocal: return 1.0f / x;
    case ptype_t::increment: return x + 1.0f;
    case ptype_t::exp: return std::exp(x);
    default: assert(false && "not a unary primitive"); return x;
  }
}

void unary(const UnaryDesc& d, const float* in, float* out, int64_t ld_in,
           int64_t ld_out) {
  for (int64_t n = 0; n < d.n; ++n) {
    for (int64_t m = 0; m < d.m; ++m) {
      float x = d.op == ptype_t::zero ? 0.0f : in[m + n * ld_in];
      float y = unaryScalar(d.op, x);
      if (d.transpose)
        out[n + m * ld_out] = y;
      else
        out[m + n * ld_out] = y;
    }
  }
}

float binaryScalar(ptype_t op, float x, float y) {
  switch (op) {
    case ptype_t::add: return x + y;
    case ptype_t::sub: return x - y;
    case ptype_t::mul: return x * y;
    case ptype_t::div: return x / y;
    case ptype_t::min: return std::min(x, y);
    case ptype_t::max: return std::max(x, y);
    default: assert(false && "not a binary primitive"); return x;
  }
}

void binary(const BinaryDesc& d, const float* in0, const float* in1, float* out,
            int64_t ld_in0, int64_t ld_in1, int64_t ld_out) {
  const int64_t s0 = d.bcast_m_in0 ? 0 : 1;
  const int64_t s1 = d.bcast_m_in1 ? 0 : 1;
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t m = 0; m < d.m; ++m)
      out[m + n * ld_out] = binaryScalar(d.op, in0[m * s0 + n * ld_in0],
                                         in1[m * s1 + n * ld_in1]);
}

}  // namespace stitch::tensorop::reference
