// Which loop of a grid block the threads of a CUDA block share (renderCuda).
//
// On CUDA a grid block of the plan is a CUDA block. When the block's work
// is one loop whose iterations are independent, its iterations are dealt
// out to the block's threads (`for (i = lo + threadIdx.x; i < hi; i +=
// blockDim.x)`); the loops around it run in every thread. Of the loops
// that qualify, the innermost one with more than a few iterations is
// taken: consecutive threads then touch consecutive elements along the
// contiguous dimension (coalesced). Independent means: inside the loop no
// accumulator or block-local buffer from outside it, no read of a buffer
// the kernel writes, every store's index depends on the loop, no buffer in
// the arena (an arena slice belongs to the block); and the code around it
// on the way from the grid only computes values (no stores, no
// accumulators, no buffers). A kernel with code after its grid or scratch
// shared by its blocks keeps one thread per grid block.
#pragma once
#include <cstdint>

#include "uops/uop.h"

namespace stitch {

// The LOOP uop the threads of a CUDA block share, or -1 (one thread per
// grid block). `maxLocalBytes`: block-local buffers above this live in
// the arena.
int threadSharedLoop(const KernelUOps& kernel, int64_t maxLocalBytes);

}  // namespace stitch
