// The machine's fp32 FMA peak: a JIT loop of independent vector FMAs (no
// loads), the ceiling every GEMM result is reported against.
#pragma once
#include <cstdint>

namespace stitch::bench {

// Runs `iterations` x (4 x 24) independent FMAs on each of `threads` OpenMP
// threads; returns the flop count (2 per lane per FMA) of the whole run.
double runFmaLoop(int64_t iterations, int threads);

}  // namespace stitch::bench
