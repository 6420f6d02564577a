// Constant folding of ALU and CAST uops whose operands are all CONST.
// Folds only what the generated C computes bit for bit the same way
// (wrapping integer arithmetic, IEEE +,-,*,/,sqrt in the op's dtype,
// comparisons, NaN-propagating max/min); transcendental functions and
// conversions C leaves undefined stay unfolded.
#pragma once
#include <optional>
#include <vector>

#include "uops/uop.h"

namespace stitch {

// The CONST uop equal to `u`, or nullopt when `u` cannot (or must not) fold.
std::optional<UOp> foldConstant(const UOp& u, const std::vector<UOp>& uops);

// A CONST uop of `dtype` holding v (ints / bool) or f (floats), normalized
// to the dtype (i32 wraps, bool is 0 / 1, f32 rounds).
UOp makeConstInt(int64_t v, DType dtype);
UOp makeConstFloat(double f, DType dtype);

}  // namespace stitch
