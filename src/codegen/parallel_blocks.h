// How a generated kernel's grid runs in parallel. The generated C has no
// OpenMP of its own (see c_compiler.cpp): each kernel is split into a
// block-range function and an entry point that passes it to
// `stitch_run_blocks`, which calls the host's parallel loop when the loader
// has installed it (`stitch_set_parallel`, called right after dlopen), else
// runs every block itself. The host loop splits the grid into contiguous
// per-thread ranges like OpenMP's schedule(static), with threads from the
// process's own OpenMP runtime.
#pragma once
#include <cstdint>

#include "codegen/kernel_abi.h"

namespace stitch {

using BlockRangeFunction = void (*)(void* const* bufs, const StitchScalar* params, int64_t begin,
                                    int64_t end);
using ParallelBlocksFunction = void (*)(BlockRangeFunction body, void* const* bufs,
                                        const StitchScalar* params, int64_t count, int64_t threads);

// Thread t's share of `count` blocks among n threads, as OpenMP's
// schedule(static) without a chunk size splits them: one contiguous range
// per thread, the first `count % n` ranges one block longer.
struct BlockShare {
  int64_t begin, end;
};
inline BlockShare blockShare(int64_t count, int64_t n, int64_t t) {
  const int64_t base = count / n, extra = count % n;
  const int64_t begin = t * base + (t < extra ? t : extra);
  return {begin, begin + base + (t < extra ? 1 : 0)};
}

// Runs body over [0, count) on min(threads, count) threads.
void parallelBlocks(BlockRangeFunction body, void* const* bufs, const StitchScalar* params,
                    int64_t count, int64_t threads);

// The C declarations of the protocol, emitted in every generated file that
// has a grid.
extern const char* const kParallelBlocksC;

// The calling thread's scratch arena of at least `bytes` bytes (kernels'
// large block-local buffers): kept and grown per thread, freed when the
// thread ends. Installed into each loaded library (`stitch_set_arena`).
using ArenaFunction = char* (*)(int64_t bytes);
char* hostArena(int64_t bytes);

}  // namespace stitch
