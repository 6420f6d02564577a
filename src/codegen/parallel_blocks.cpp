#include "codegen/parallel_blocks.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

namespace stitch {

char* hostArena(int64_t bytes) {
  struct Arena {
    std::unique_ptr<char[]> data;
    int64_t size = 0;
  };
  thread_local Arena arena;
  if (bytes > arena.size) {
    arena.data.reset();
    arena.data.reset(new (std::nothrow) char[(size_t)bytes]);
    if (!arena.data) std::abort();  // as the kernel's own allocation would
    arena.size = bytes;
  }
  return arena.data.get();
}

void parallelBlocks(BlockRangeFunction body, void* const* bufs, const StitchScalar* params,
                    int64_t count, int64_t threads) {
  const int64_t team = std::min(threads, count);
  if (team <= 1 || omp_in_parallel()) {
    if (count > 0) body(bufs, params, 0, count);
    return;
  }
#pragma omp parallel num_threads((int)team)
  {
    const BlockShare share = blockShare(count, omp_get_num_threads(), omp_get_thread_num());
    if (share.begin < share.end) body(bufs, params, share.begin, share.end);
  }
}

const char* const kParallelBlocksC =
    "typedef void (*stitch_block_range)(void* const* bufs, const stitch_scalar* params, int64_t begin, int64_t end);\n"
    "typedef void (*stitch_parallel_blocks)(stitch_block_range body, void* const* bufs,\n"
    "                                       const stitch_scalar* params, int64_t count, int64_t threads);\n"
    "static stitch_parallel_blocks stitch_parallel = 0;\n"
    "void stitch_set_parallel(stitch_parallel_blocks fn) { stitch_parallel = fn; }\n"
    "static void stitch_run_blocks(stitch_block_range body, void* const* bufs, const stitch_scalar* params,\n"
    "                              int64_t count, int64_t threads) {\n"
    "  if (stitch_parallel && threads > 1 && count > 1) stitch_parallel(body, bufs, params, count, threads);\n"
    "  else if (count > 0) body(bufs, params, 0, count);\n"
    "}\n";

}  // namespace stitch
