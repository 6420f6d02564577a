// The C backend: one translation unit for all kernels of a program.
//
//   #include <stdint.h> / stitch_scalar (codegen/kernel_abi.h), <math.h>
//   static inline helpers the kernels need (codegen/c_prelude.h)
//   void NAME(void* const* bufs, const stitch_scalar* params, int64_t threads) { ... }
//
// Each value uop becomes `const T vN = ...;`, LOOP / ENDLOOP plain counted
// for loops (innermost loops stay branch-free so the C compiler vectorizes
// them), DEFINE_ACC a mutable local updated by its PHI. A kernel with a grid
// (SPECIAL) is split in two: NAME_blocks runs a range of grid blocks, and
// NAME hands the whole range to the host's parallel loop
// (codegen/parallel_blocks.h); the grid count never depends on the thread
// count, so neither do the results.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/c_prelude.h"
#include "codegen/cuda_threads.h"
#include "codegen/tile_epilogue.h"
#include "uops/uop.h"

namespace stitch {

// `epilogues`: the tile epilogues of the program's contraction kernels
// (codegen/tile_epilogue.h), rendered after the kernels.
std::string renderC(const std::vector<KernelUOps>& kernels, const std::vector<TileEpilogue>& epilogues = {});

// The same printer for CUDA (NVRTC): one `extern "C" __global__` function
// per kernel (STITCH_KERNEL; the same text also compiles as C for the CUDA
// emulator, runtime/cuda_emulator.h), taking a stitch_args by value (buffers, then scalar
// parameters, as the C kernels' arrays). A grid block is a CUDA block whose
// threads share one loop of the block (codegen/cuda_threads.h), or where
// none qualifies one CUDA thread running the block's loops as C does;
// block-local buffers are the thread's arrays, or when large the block's
// dynamic shared memory (where it fits the device's limit and the block's
// threads share them) or its slice of the arena buffer. A part after the
// grid is NAME_after, run by one thread once NAME is done. Scratch shared
// by the blocks and the arena are buffers the caller adds after the
// kernel's own (cudaLaunchOf).
//
// What the text depends on of the device it is rendered for. The default
// is what every CUDA GPU gives a block without opting in; a run renders
// for the device it runs on (GpuDevice::sharedMemoryPerBlock).
struct CudaDeviceLimits {
  int64_t sharedMemoryPerBlock = kCudaStaticSharedBytes;  // static and dynamic together (the opt-in limit)
};
std::string renderCuda(const std::vector<KernelUOps>& kernels, const CudaDeviceLimits& limits = {});

// How a CUDA kernel of renderCuda is launched: a CUDA block per grid block
// whose threads share a loop (codegen/cuda_threads.h), else a CUDA thread
// per grid block.
struct CudaLaunch {
  int64_t gridBlocks = 1;                   // the plan's grid (1 without one)
  int64_t blocks = 1;                       // CUDA blocks of NAME
  int threadsPerBlock = 1;                  // CUDA threads of each
  std::vector<int64_t> sharedScratchBytes;  // buffers after the kernel's own, in order
  int64_t arenaBytesPerBlock = 0;           // > 0: then one arena buffer of gridBlocks x this
  int64_t dynamicSharedBytes = 0;           // the block's dynamic shared memory (large block-local buffers)
  bool after = false;                       // NAME_after follows NAME, on one thread
  bool barriers = false;                    // NAME's threads wait for each other (__syncthreads)
};
// CUDA threads per block: of a launch with a thread per grid block, and
// the most a shared loop gets.
inline constexpr int kCudaThreadsPerBlock = 128;
// The CUDA blocks a GPU runs at once, which the fusion's schedules are
// ranked for on the CUDA target (as host cores are on the C target): four
// blocks on each of the 132 SMs of an H100 or H200.
inline constexpr int kCudaConcurrentBlocks = 4 * 132;
// `limits` as the kernel's text was rendered with.
CudaLaunch cudaLaunchOf(const KernelUOps& kernel, const CudaDeviceLimits& limits = {});

// The helpers of `prelude` (RenderTarget::Cuda) as device functions, for a
// module that adds its own kernels to renderCuda's text.
std::string cudaHelpers(const CPrelude& prelude);

// The grid's block count when the kernel's whole work is its exported block
// range `void NAME_blocks(bufs, params, begin, end)` over [0, count) (no
// scratch shared by the blocks, nothing after the grid); 0 when the kernel
// has no grid or more than one.
int64_t blockRangeCount(const KernelUOps& kernel);

}  // namespace stitch
