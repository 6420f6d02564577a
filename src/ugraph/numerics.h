// Numerics of compiled kernels: float32 work is done in float32, as every
// peer (PyTorch eager, TorchScript, torch.compile) does it. Sums, products,
// means, variances, softmax and contractions of f32 accumulate in f32 (f64
// in f64, integers in i64); elementwise math stays in the value's dtype.
// Division by a constant is the IEEE quotient without the divider where
// |a| >= 2^-100 (codegen/c_expr.h renderDivByConstant).
// Reductions fold in a fixed order (lane-split sums combine their lanes in
// lane order, uops/lane_reduce.h), so results never depend on the thread
// count or the grid.
//
// The reference interpreter keeps accumulating f32 in double: it is the
// high-precision oracle that compiled results are compared with, under the
// tolerance rule of driver/compare.h (used by --check, the unit tests and
// the differential suite).
#pragma once
#include "ir/dtype.h"

namespace stitch {

// The dtype a kernel accumulates a reduction or contraction in, for a
// result of dtype `out`.
inline DType accumulateDType(DType out) { return isFloating(out) ? out : DType::i64; }

}  // namespace stitch
