// The compute roof for the workload runner (workloads/run.py): the fp32 FMA
// rate of T threads, as one JSON object with the median and best GFLOPS over
// R runs, in the format copy_bandwidth prints.
//
//   fma_peak [THREADS=1] [RUNS=20]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fma_peak.h"

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  int runs = argc > 2 ? std::atoi(argv[2]) : 20;
  if (threads <= 0 || runs <= 0) {
    std::fprintf(stderr, "usage: fma_peak [THREADS] [RUNS]\n");
    return 2;
  }
  // ~1.5 GFLOP per thread, ~10 ms on a current AVX-512 core: long enough
  // for the sustained clock, short enough for many runs.
  const int64_t iterations = 500000;
  stitch::bench::runFmaLoop(iterations, threads);  // warm-up: code generated, threads started
  std::vector<double> gflops;
  for (int r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    double flop = stitch::bench::runFmaLoop(iterations, threads);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    gflops.push_back(flop / s / 1e9);
  }
  std::sort(gflops.begin(), gflops.end());
  std::printf("{\"threads\": %d, \"runs\": %d, \"gflops\": {\"median\": %.2f, \"best\": %.2f}}\n",
              threads, runs, gflops[gflops.size() / 2], gflops.back());
  return 0;
}
