// hoisted-products: a product in a counted loop whose left operand is the
// counter's row of a tensor from outside the loop, and whose right operand
// is a matrix from outside the loop or a constant entry of a stack of
// them, runs for every row at once before the loop: one GEMM per stack
// that reads each weight once per run instead of a GEMV per step that
// reads it every step (an RNN's input projections: NASRNN's eight
// x_t @ W_x[i] per step become one [8, 50, 256] product before its loop,
// which then streams half the weights per step). The loop reads its row
// of the result.
//
//   prim.loop(%n, %true, ...)                   %a = immut.view(%xs, [T, K])
//     block0(%t, ...):                          %p = matmul(%a, %W)     [G, T, N]
//       %x = immut.select(%xs, 0, %t)           prim.loop(%n, %true, ...)
//       %w = immut.select(%W, 0, 3)               block0(%t, ...):
//       %y = matmul(%x, %w)                         %r = immut.select(%p, 0, 3)
//                                                   %s = immut.select(%r, 0, %t)
//                                                   %y = immut.unsqueeze(%s, 0)
//
// Only where the loop walks every row of xs (its trip count the constant
// xs.shape[0]), over static float shapes, xs of rank 2 ([T, K]: x_t a
// vector) or [T, 1, K] (a row), and, for a stack, at least half of its
// entries used in the loop (the rest would be work thrown away), and a
// whole product of at most kMaxHoistedProductBytes (it lives through the
// loop, where each step needed one row). Returns whether anything was
// rewritten.
#pragma once
#include <cstdint>

#include "ir/graph.h"

namespace stitch {

constexpr int64_t kMaxHoistedProductBytes = int64_t(64) << 20;

bool hoistLoopInvariantProducts(Graph& graph);

}  // namespace stitch
