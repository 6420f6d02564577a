// How the threads of a CUDA block share a grid block's work (renderCuda).
//
// On CUDA a grid block of the plan is a CUDA block. Its loops whose
// iterations are independent are dealt out to the block's threads (`for (i
// = lo + threadIdx.x; i < hi; i += blockDim.x)`); everything else in the
// block -- the loops around them, the code between them, accumulators in
// registers -- runs in every thread alike, so every value outside a shared
// loop is the same in all threads. Block-local buffers that the shared
// loops write and other code reads live in `__shared__` memory, and a
// barrier (`__syncthreads()`) stands before and after each shared loop:
// a lane-parallel reduction (a buffer of lanes, one per thread, filled,
// then folded in halves by the whole block: shared memory, then warp
// shuffles) keeps its fixed fold order, so the result does not depend on
// timing.
//
// Independent means: inside the loop no accumulator from outside it, no
// read of a global buffer the kernel writes, every global store's index
// depends on the loop, every store into a shared buffer goes to a slot of
// its own (index = c * loop + base, c != 0) and every read of a buffer the
// loop writes is either that iteration's slot or lies wholly outside the
// slots the loop writes; buffers defined inside the loop are the
// thread's own (none in the arena). Of a nest of such loops whose outer
// loops hold nothing else, the innermost with more than a warp's worth of
// iterations is taken: consecutive threads then touch consecutive elements
// along the contiguous dimension (coalesced).
//
// Code that runs in every thread stores into the thread's own buffers, or
// into a global buffer the kernel never reads (a row's reduction stored
// once per row): every thread holds the same value for the same slot, and
// thread 0 alone stores it (`guardedStores`; barriers around the shared
// loops then order it with their stores). A kernel with another such
// store, with code after its grid, or with scratch shared by its blocks
// keeps one thread per grid block.
#pragma once
#include <cstdint>
#include <vector>

#include "uops/uop.h"

namespace stitch {

// Static __shared__ memory a block may have on every architecture (more
// is dynamic, up to the device's opt-in limit).
inline constexpr int64_t kCudaStaticSharedBytes = 48 * 1024;

struct CudaThreadPlan {
  std::vector<int> sharedLoops;   // LOOP uops dealt out to the block's threads; empty: a thread per grid block
  std::vector<int> sharedLocals;  // DEFINE_LOCALs in __shared__ memory
  bool barriers = false;          // __syncthreads() around the shared loops
  bool guardedStores = false;     // global stores outside the shared loops, by thread 0
  int threads = 1;                // threads per CUDA block when sharedLoops is not empty
  // > 0: the block-local buffers too large for a thread's own arrays
  // (the arena's) live in the block's dynamic shared memory, this many
  // bytes, at their arena offsets; 0: in the arena buffer (global memory).
  int64_t dynamicSharedBytes = 0;

  bool shares(int loop) const;
  bool sharedLocal(int local) const;
};

// `maxLocalBytes`: block-local buffers above this live in the arena (a
// slice per block, in global memory), or in dynamic shared memory when the
// block's threads share them and all its shared memory fits
// `sharedMemoryPerBlock` (the device's limit, static and dynamic).
CudaThreadPlan cudaThreadPlan(const KernelUOps& kernel, int64_t maxLocalBytes, int maxThreads,
                              int64_t sharedMemoryPerBlock);

}  // namespace stitch
