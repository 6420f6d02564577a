// Portable C++ versions of every primitive. They define the semantics the JIT
// must match (tests compare against them) and run where no JIT is available.
#pragma once
#include "tensorop/kernel_desc.h"

namespace stitch::tensorop::reference {

void brgemm(const BrgemmDesc& d, const float* a, const float* b, float* c,
            int64_t lda, int64_t ldb, int64_t ldc, int64_t br_stride_a,
            int64_t br_stride_b);
float unaryScalar(ptype_t op, float x);
void unary(const UnaryDesc& d, const float* in, float* out, int64_t ld_in,
           int64_t ld_out);
float binaryScalar(ptype_t op, float x, float y);
void binary(const BinaryDesc& d, const float* in0, const float* in1, float* out,
            int64_t ld_in0, int64_t ld_in1, int64_t ld_out);

}  // namespace stitch::tensorop::reference
