// Block-local buffers ("shared memory") in a kernel's ThreadGraph: the
// values a shared-memory plan names are computed once into a buffer by a
// Fill and read back by LocalLoads, instead of being expanded (recomputed)
// at every index their consumers ask for.
//
//   softmax: e = exp(x - max) read by sum(e) and e / sum
//   row i:   Fill local0[r] <- exp(x[i, r] - max_i)  over r < D
//            sum_i = Reduce(LocalLoad local0[r'])    out[i, j] = local0[j] / sum_i
//
// A buffer covers one tile of its value: the dims every request indexes with
// the same node (free of reduce variables) are fixed by the loops around the
// Fill, which the linearizer places where those loops are open, so the tile
// is refilled once per iteration of the loops its index depends on (once per
// row above) and never per element. The other dims are held whole. A value
// is buffered only when it is asked for at two different index vectors or
// more and has at least one tile dim (a value fixed in every dim is already
// computed once per iteration of the loops it depends on by the linearizer)
// and its tile has at most kMaxTileBytes, and when its elements cost more
// than reading them back (not a copy or access op: some float arithmetic or
// a reduction). Requests that the tile cannot serve
// expand the value as before: results are the same either way.
#pragma once
#include <cstdint>

#include "ugraph/kernel_graph.h"
#include "ugraph/shared_memory_plan.h"

namespace stitch {

constexpr int64_t kMaxTileBytes = int64_t(1) << 24;

// Builds kernel.block.thread (and kernel.inputs / params, block.locals) for
// kernel.nodes / kernel.outputs, buffering the plan's values where the rules
// above allow. plan may be null (nothing buffered).
void lowerThreadGraph(Kernel& kernel, const SharedMemoryPlan* plan);

}  // namespace stitch
