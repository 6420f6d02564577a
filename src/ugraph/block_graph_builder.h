// Builds a graph-defined kernel from a group of nodes: the ThreadGraph over
// the outputs' shape (each output stored converted to its dtype), the loop
// nest (loop_merging.h), the grid split of the outermost loop and the
// imap / omap of every input and output.
#pragma once
#include <unordered_set>
#include <vector>

#include "fusion/fusion_plan.h"
#include "ugraph/kernel_graph.h"
#include "ugraph/shared_memory_plan.h"

namespace stitch {

// Fills kernel.inputs, kernel.params and kernel.block; kernel.nodes and
// kernel.outputs (all of one shape) must be set. With a fused group, the
// grid follows its schedule (see gridFromSchedule) and the imap / omap its
// propagated partitions; `buffers` (default: planSharedMemory's plan for the
// group) names the values kept in block-local buffers (lowering.h).
void buildBlockGraph(Kernel& kernel, const FusedGroup* group = nullptr,
                     const SharedMemoryPlan* buffers = nullptr);

// The grid of a Row schedule (split_dim d, sword s) with s > 1: s blocks
// along iteration dim d. The loop holding d is split where d starts (so the
// blocks' share is a whole number of iterations) and becomes the split loop,
// in chunks of ceil(size(d) / s) * (the sizes of the dims after d in it).
// Returns false (grid left alone) for the one-block schedule or a Column one.
bool gridFromSchedule(BlockGraph& block, const Schedule& schedule);

// A Column schedule (split_dim = a reduced dim of the root reduction's
// input, of size `extent`, into sword parts): sets block.column and a grid
// of sword blocks. Only for the plain case: the stores use exactly one
// Reduce (not nested in another), one of its variables has that extent,
// and the kernel has no block-local buffers; returns false otherwise (the
// row grid then computes whole reductions: correct, less parallel).
bool columnFromSchedule(BlockGraph& block, const Schedule& schedule, int64_t extent);

// A block should do at least this many element iterations (inner loop
// extents times reduce extents), so that scheduling one block costs little
// against its work.
constexpr int64_t kMinBlockIterations = 16384;

// Grid and block extent for the outermost loop: blocks of `blockExtent`
// iterations of loops[0], independent of the thread count. A column
// reduction over a single output loop (see columnReduceNodes) gets blocks
// of at least kMinContiguousOutputs outputs (or the whole loop), at most
// kMaxLocalAccumulators accumulators, and two blocks or more when its work
// is at least 2 * kMinBlockIterations and the loop has 2 * kMinSplitOutputs
// outputs.
void scheduleGrid(BlockGraph& block);

// Loop order around reductions (the linearizer follows it; see
// uops/reduce_order.h). A column reduction (out[j] = sum_i x[i, j]) walks
// memory with stride along its reduce variable but contiguously along the
// output dim; with the reduce loops outermost and one accumulator per inner
// output element (a block-local array), the innermost loop reads
// contiguously and the C compiler can vectorize it. Each element still
// accumulates in the same order, so results are unchanged bit for bit.

// Accumulators per block-local array at most (the array lives on the stack).
constexpr int64_t kMaxLocalAccumulators = 4096;
// Reduce iterations per element from which a reduction's result is worth
// keeping across an inner loop (see outputLoopOrder): any real reduction.
// Recomputing even a 6-element one per element of a loop it does not
// depend on did 2.4x the work of its ops (softmax over dim 0 of [6, 4]).
constexpr int64_t kMinReuseWork = 2;
// Outputs per block of a column reduction at least (when the loop has as
// many): the contiguous inner loop under the reduce loops. Each reduce step
// then reads a page-sized run of a row (4 KiB of f32), which the hardware
// prefetcher streams; sum(x, 0) over f32[4096,4096] measured 256: 24 ms,
// 1024: 16 ms, 2048: 16 ms (median, 2 threads).
constexpr int64_t kMinContiguousOutputs = 1024;
// Outputs per block of a column reduction at least when large work is
// split in two blocks for parallelism.
constexpr int64_t kMinSplitOutputs = 32;

// The order in which to nest the output loops (indices into block.loops,
// outer to inner). Every order computes the same elements; by default the
// loops' own. When a reduction does not depend on some output loop (softmax
// over dim 0: the sums depend on the column only), that loop goes inside
// the ones it depends on, so the reduction runs once per value of the
// loops it depends on instead of once per element.
std::vector<int> outputLoopOrder(const BlockGraph& block);

// The Reduce nodes (in program order) whose loops can run outside the
// innermost output loop (order.back()): reductions that read with stride
// along their reduce variable and contiguously along that loop. None keeps
// the plain order (reduce loops innermost). Leaves out the limit on the
// accumulators (uops/reduce_order.h's outerReduceNodes applies it).
std::vector<int> columnReduceNodes(const BlockGraph& block, const std::vector<int>& order);

}  // namespace stitch
