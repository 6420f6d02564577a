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
// lists.
//
// The body may also take views and write rows in place, as a decode step
// with a KV cache does:
//
//   - a view (`immut.select / slice / unsqueeze / squeeze / transpose` of a
//     tensor of known rank, its dims constants; indices and slice bounds
//     may be loop scalars): pointer arithmetic on a register, every thread
//     alike, so the shapes may depend on the counter (`cache[:, :, :t+1]`).
//     A view feeds only views, in-place writes (as their source), the
//     attention kernel and appends; it is never carried or read by a
//     generated kernel (those take dense static buffers);
//   - an in-place write (`immut.select_rev`) into a carried tensor of the
//     outermost loop: the chain of writes from the slot's parameter to its
//     yield, each link read by the next write alone, writes its regions into
//     the slot's one buffer, O(region) per iteration;
//   - the predefined attention kernel (runtime/attention_kernel.h), when its
//     key and value lengths are provably equal (static, or the same views
//     of the same slice of two equally long dims) and every operand's last
//     dim is contiguous.
//
// Everything else (host ops, other predefined kernels, branches, views of
// other kinds, shapes that depend on data) keeps the loop on the host, and
// so does a kernel write of a small region into a large tensor (over 64 KB
// and 4 regions): in a kernel it copies the whole tensor every iteration,
// where the host writes the region in place.
#pragma once
#include <optional>

#include "ir/graph.h"
#include "ugraph/kernel_graph.h"

namespace stitch {

// The most dims a loop kernel's view register has.
constexpr int kMaxLoopRank = 8;

// A view a loop kernel takes on a register (runtime/strided_layout.h
// applies it): the view of an immut.select / slice / unsqueeze / squeeze /
// transpose, or the region an immut.select_rev writes.
struct LoopView {
  enum class Op : uint8_t { Select, Slice, Unsqueeze, Squeeze, Transpose, Same };
  Op op = Op::Same;
  int64_t dim = 0, dim1 = 0;     // normalized; dim1: Transpose's second
  int64_t step = 1;              // Slice
  const Value* index = nullptr;  // Select: the index; Slice: the start (null: None)
  const Value* end = nullptr;    // Slice: the end (null: None)
};

// The view `n` takes (of its input 0), when a loop kernel can take it: a
// tensor of known rank up to kMaxLoopRank, constant dims, a positive
// constant slice step, a squeezed dim of known size (a squeeze of a dim not
// of size 1 is Op::Same).
std::optional<LoopView> loopViewOf(const Node* n);

// Whether `n` is an Assign a loop kernel can run in place given a dead base
// (immut.select_rev of static types, the source broadcast to the region;
// its region loopViewOf(n)).
bool isLoopInPlaceAssign(const Node* n);

// Whether the loop's body returns the constant true as its condition (a
// `for` over a trip count known at entry, not a `while`).
bool isCountedLoop(const Node* loop);

// Whether `loop` (a prim.loop) can run as one loop kernel over `kernels`.
bool runsAsLoopKernel(const Node* loop, const KernelGraph& kernels);

// Adds a LoopKernel to `kernels` for every outermost loop of `graph` that
// qualifies (loops nested in it are part of it).
void planLoopKernels(const Graph& graph, KernelGraph& kernels);

}  // namespace stitch
