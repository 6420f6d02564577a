// Shared helpers of the tensorop benchmarks: random buffers and the counter
// convention the report script reads (`flop` = floating-point operations
// per iteration; GFLOPS = flop / real_time).
#pragma once
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "stitch/aligned_buffer.h"

namespace stitch::bench {

inline AlignedFloats randomBuffer(size_t n, unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  AlignedFloats v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

inline void setFlops(benchmark::State& state, double flopPerIteration) {
  state.counters["flop"] = benchmark::Counter(flopPerIteration);
  state.counters["GFLOPS"] = benchmark::Counter(flopPerIteration * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void registerKernelBenchmarks(int repetitions, bool sweep);
void registerOperationBenchmarks(int repetitions);

}  // namespace stitch::bench
