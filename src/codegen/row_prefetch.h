// Prefetching the next row in kernels that read each row several times.
// A softmax row (max, then exp) is read from memory by its first pass and
// from cache by the later ones; the first pass of the next row then waits
// on memory while the core has nothing else to do, and the hardware
// prefetcher, which follows a stream within a 4 KiB page, does not run far
// enough ahead. A long later pass (softmax's exp) instead asks for the next
// row's lines as it goes, a few per chunk of its own elements, so the
// memory traffic overlaps its arithmetic (softmax [256, 4096], one thread:
// 0.57 -> 0.50 ms, bench/RESULTS.md). Asking for all of them at once, at
// the start of a row, gained nothing: the requests queue up and stall the
// pass behind them. The values computed do not change.
#pragma once
#include <cstdint>
#include <vector>

#include "uops/uop.h"

namespace stitch {

// Elements of the pass per chunk; its prefetches cover the same number of
// elements of the next row.
constexpr int64_t kRowPrefetchChunk = 256;

// One buffer the pass prefetches: it loads buffer[rowStart + i] at its
// loop's i, and the loop around it moves rowStart by rowStep.
struct RowPrefetch {
  int buffer;       // DEFINE_GLOBAL uop
  int rowStart;     // i64 uop, defined before the pass's loop opens
  int64_t rowStep;  // elements
};

// What innermost loop `loop` prefetches of the next iteration of `rowLoop`,
// the nearest loop around it: each kernel input (a buffer the kernel does
// not write) that the loop reads contiguously, at an index that moves with
// rowLoop, that a loop before it inside rowLoop already read (so the next
// row's first pass would miss), and whose rows span more than a core's L2
// share. Empty when the loop is shorter than two chunks or not innermost.
std::vector<RowPrefetch> rowPrefetches(const UOpGraph& g, int loop, int rowLoop);

}  // namespace stitch
