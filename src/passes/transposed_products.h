// transposed-products: a product of few rows with a transposed operand,
// `a @ b.transpose(-2, -1)` (decode attention's q @ k^T), reads b as it is
// stored: it becomes an einsum over b's own layout, so no kernel copies b
// transposed first and the product's kernel walks b's rows contiguously,
// summing along the shared dim (fused with what follows, e.g. the softmax).
//
//   %t = immut.transpose(%k, 1, 2)     (k: f32[8,4096,64])
//   %s = matmul(%q, %t)                (q: f32[8,4,64])
//     ->  %s = einsum("bik,bjk->bij", [%q, %k])
//
// Only where a has at most kMaxTransposedProductRows rows: a larger product
// runs faster as a library GEMM on the copied operand (predefined kernels
// take dense row-major operands). mm / bmm / matmul of two operands of one
// rank (2 or 3) and one batch; float dtypes; static shapes. Returns whether
// anything was rewritten (the transpose is then dead unless used elsewhere).
#pragma once
#include <cstdint>

#include "ir/graph.h"

namespace stitch {

constexpr int64_t kMaxTransposedProductRows = 16;

bool readTransposedOperandsInPlace(Graph& graph);

// The tensor whose last two dims `v` swaps (an immut.transpose or
// immut.permute doing only that, its operand of known rank >= 2), or null.
// Shared with attention-chains (q @ k^T).
Value* lastTwoDimsSwappedFrom(const Value* v);

}  // namespace stitch
