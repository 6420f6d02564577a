// Numerics of compiled kernels: float32 work is done in float32, as every
// peer (PyTorch eager, TorchScript, torch.compile) does it. Sums, products,
// means, variances, softmax and contractions of f32 accumulate in f32 (f64
// in f64, integers in i64); elementwise math stays in the value's dtype.
// Division by a constant is the IEEE quotient without the divider where
// |a| >= 2^-100 (constantDivision below).
// Reductions fold in a fixed order (lane-split sums combine their lanes in
// lane order, uops/lane_reduce.h), so results never depend on the thread
// count or the grid.
//
// The reference interpreter keeps accumulating f32 in double: it is the
// high-precision oracle that compiled results are compared with, under the
// tolerance rule of driver/compare.h (used by --check, the unit tests and
// the differential suite).
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "ir/dtype.h"

namespace stitch {

// The dtype a kernel accumulates a reduction or contraction in, for a
// result of dtype `out`.
inline DType accumulateDType(DType out) { return isFloating(out) ? out : DType::i64; }

// How a kernel computes a / c for a float constant c: a division is one
// AVX-512 vector every ~11 cycles, against two multiplies a cycle.
// Reciprocal: c a power of two whose reciprocal is normal, a * (1 / c),
// exact (one rounding of the same value; f32 and f64). Corrected: another
// f32 c in [2^-125, 2^125], common/kernel_math.h's stitch_kdivc_f32, q = a
// * (1 / c) corrected once by the exact remainder (4 operations): the IEEE
// quotient wherever |a| >= 2^-100 and the quotient is normal, within 2
// ulps below. Divide: everything else. codegen/c_expr.h renders the form,
// uops/uop_work.h costs it.
enum class ConstantDivision : uint8_t { Divide, Reciprocal, Corrected };
inline ConstantDivision constantDivision(DType t, double c) {
  if (!isFloating(t) || !std::isfinite(c) || c == 0.0) return ConstantDivision::Divide;
  const bool f32 = t == DType::f32;
  if (f32) c = (float)c;
  int exponent = 0;
  const bool powerOfTwo = std::fabs(std::frexp(c, &exponent)) == 0.5;
  const double reciprocal = std::fabs(1.0 / c);  // exact for a power of two
  if (powerOfTwo && reciprocal >= (f32 ? FLT_MIN : DBL_MIN) && reciprocal <= (f32 ? FLT_MAX : DBL_MAX))
    return ConstantDivision::Reciprocal;
  // Within 2^-125 .. 2^125 the reciprocal is normal, and q c and the
  // remainder stay in range wherever |a| >= 2^-100 and the quotient is normal.
  if (f32 && std::fabs(c) >= 0x1p-125 && std::fabs(c) <= 0x1p125) return ConstantDivision::Corrected;
  return ConstantDivision::Divide;
}

}  // namespace stitch
