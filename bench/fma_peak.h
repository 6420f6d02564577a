// The machine's fp32 FMA peak: a JIT loop of independent vector FMAs (no
// loads), the ceiling every GEMM result is reported against; and the same
// FMAs with the operand loads of one BRGEMM k step, the ceiling of any
// kernel that keeps M on the vector lanes.
#pragma once
#include <cstdint>

namespace stitch::bench {

// Runs `iterations` x (4 x 24) independent FMAs on each of `threads` OpenMP
// threads; returns the flop count (2 per lane per FMA) of the whole run.
// withLoads: each 24 FMAs also load 4 vectors and broadcast 6 floats (L1).
double runFmaLoop(int64_t iterations, int threads, bool withLoads = false);

}  // namespace stitch::bench
