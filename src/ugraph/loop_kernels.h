// Loop kernels: a counted loop whose body needs no value on the host runs as
// one kernel with the loop inside (runtime/loop_kernel.h runs it). The
// body's kernels become phases separated by barriers, run by one team of
// threads for every iteration; each thread keeps the same blocks of each
// phase in every iteration, so its part of the weights stays in its cache.
//
//   %h.1 = prim.loop(%n, %true, %h)          loop kernel loop0 over %t:
//     block0(%t, %h.2):                         phase k0 (grid 16)
//       %new_h = ...  (kernel k0)               barrier
//       -> (%true, %new_h)                      carry %h.2 <- %new_h (ping-pong)
//
// A loop qualifies when every node of its body (nested loops included) is
// one of: a prim.constant scalar, an int `scalar.add / sub / mul / min /
// max / neg`, an int comparison or bool `not / and / or` (a `while` loop's
// condition, computed by every thread alike), part of a graph-defined
// kernel, `tssa.update`, a nested loop that qualifies, or, in the outermost
// body of a `for` loop (its condition the constant true: the trip count is
// known at entry), the one `list.append` to a carried list that starts
// empty (the elements go to rows allocated per run). Its carried
// values are tensors of static types, int / float / bool scalars, or such
// lists. Everything else (host ops, predefined kernels, branches, views the
// host takes, shapes that depend on data) keeps the loop on the host, and so
// does a kernel write of a small region into a large tensor (over 64 KB and
// 4 regions): in a kernel it copies the whole tensor every iteration, where
// the host writes the region in place.
#pragma once
#include "ir/graph.h"
#include "ugraph/kernel_graph.h"

namespace stitch {

// Whether the loop's body returns the constant true as its condition (a
// `for` over a trip count known at entry, not a `while`).
bool isCountedLoop(const Node* loop);

// Whether `loop` (a prim.loop) can run as one loop kernel over `kernels`.
bool runsAsLoopKernel(const Node* loop, const KernelGraph& kernels);

// Adds a LoopKernel to `kernels` for every outermost loop of `graph` that
// qualifies (loops nested in it are part of it).
void planLoopKernels(const Graph& graph, KernelGraph& kernels);

}  // namespace stitch
