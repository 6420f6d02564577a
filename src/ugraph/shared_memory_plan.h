// Shared-memory planning (FusionStitching) for a fused group: which
// intermediate values a block keeps in a block-local scratch buffer
// (on CPU: memory that stays in L1/L2) instead of recomputing them at each
// use, and where in the block's scratch arena each one lives.
//
// 1. Size requirements: non-root reductions and batch-dots must be buffered
//    (their consumers read them many times); elementwise values with several
//    uses and expensive ops (exp, tanh, ...) are buffered by priority. An
//    Assign's result (immut.*_rev) is not buffered for its several uses:
//    each element of it is one branch (the write or the base), which loop
//    pieces select at compile time, so a reader recomputes a load or the
//    written value's own expression, and a buffer would copy whole rows.
// 2. Shrinking: over the budget, buffers turn into recomputation, cheapest
//    first (inexpensive ops, then expensive ones, then those feeding a
//    batch-dot), and among equals the ones nearest the output first.
// 3. Space sharing: walking the dominator tree from the root, a buffer
//    reuses the space of buffers whose last reader runs before it is filled.
//
// Sizes are per block: the elements of each value one block needs under the
// group's schedule (schedule_propagation.h) times the dtype's size.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fusion/fusion_plan.h"
#include "fusion/schedule_propagation.h"

namespace stitch {

struct SharedMemoryOptions {
  int64_t budgetBytes = 0;  // 0: defaultSharedMemoryBudget()
};

// The per-core L2 size (sysfs), else 1 MiB; $STITCH_SMEM_BYTES overrides.
int64_t defaultSharedMemoryBudget();

enum class BufferReason : uint8_t { Reduce, BatchDot, MultiUse, Expensive };

struct SharedBuffer {
  const Value* value = nullptr;
  BufferReason reason = BufferReason::Reduce;
  int64_t elements = 0;  // per block
  int64_t bytes = 0;
  int64_t offset = 0;    // in the block's arena
};

struct SharedMemoryPlan {
  std::vector<SharedBuffer> buffers;       // in program order of their values
  std::vector<const Value*> recomputed;    // candidates dropped by shrinking, in the order dropped
  int64_t arenaBytes = 0;                  // after sharing
  int64_t budgetBytes = 0;
};

SharedMemoryPlan planSharedMemory(const FusedGroup& group, const PartitionMap& partitions,
                                  const SharedMemoryOptions& options = {});

// One line per buffer, then "recomputed: ..." and "arena N of budget M bytes".
std::string printSharedMemoryPlan(const SharedMemoryPlan& plan);

const char* bufferReasonName(BufferReason r);  // "reduce", "batch-dot", "multi-use", "expensive"

}  // namespace stitch
