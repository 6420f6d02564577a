// The machine's copy bandwidth, the roof for memory-bound kernels: copies
// N floats from one warm buffer to another with T OpenMP threads, each
// thread one contiguous chunk, and prints one JSON object with the median
// and best GB/s (bytes read + bytes written per second) over R runs.
//
//   copy_bandwidth [FLOATS=67108864] [RUNS=20] [THREADS=omp default]
//
// Two copies are timed: `memcpy` per chunk (glibc picks non-temporal stores
// for large sizes) and a plain `dst[i] = src[i]` loop compiled like the
// generated kernels (-O3 -march=native, ordinary stores).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename Copy>
std::vector<double> timeRuns(int runs, Copy copy) {
  std::vector<double> seconds;
  copy();  // warm-up: pages touched, caches in their steady state
  for (int r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    copy();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 67108864;
  int runs = argc > 2 ? std::atoi(argv[2]) : 20;
  int threads = argc > 3 ? std::atoi(argv[3]) : omp_get_max_threads();
  if (n <= 0 || runs <= 0 || threads <= 0) {
    std::fprintf(stderr, "usage: copy_bandwidth [FLOATS] [RUNS] [THREADS]\n");
    return 2;
  }
  float* src = static_cast<float*>(std::aligned_alloc(64, ((n * 4 + 63) / 64) * 64));
  float* dst = static_cast<float*>(std::aligned_alloc(64, ((n * 4 + 63) / 64) * 64));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    src[i] = float(i % 1000) * 0.5f;
    dst[i] = 0;
  }
  auto chunked = [&](auto body) {
#pragma omp parallel num_threads(threads)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
      int64_t begin = n * t / nt, end = n * (t + 1) / nt;
      body(begin, end);
    }
  };
  std::vector<double> memcpySec = timeRuns(runs, [&] {
    chunked([&](int64_t b, int64_t e) { std::memcpy(dst + b, src + b, (e - b) * sizeof(float)); });
  });
  std::vector<double> loopSec = timeRuns(runs, [&] {
    chunked([&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) dst[i] = src[i];
    });
  });
  double bytes = 2.0 * double(n) * sizeof(float);
  auto gbps = [&](double s) { return bytes / s / 1e9; };
  std::printf(
      "{\"floats\": %lld, \"threads\": %d, \"runs\": %d, "
      "\"memcpy_gbps\": {\"median\": %.2f, \"best\": %.2f}, "
      "\"loop_gbps\": {\"median\": %.2f, \"best\": %.2f}, \"check\": %g}\n",
      (long long)n, threads, runs, gbps(medianOf(memcpySec)),
      gbps(*std::min_element(memcpySec.begin(), memcpySec.end())), gbps(medianOf(loopSec)),
      gbps(*std::min_element(loopSec.begin(), loopSec.end())), double(dst[n - 1]));
  std::free(src);
  std::free(dst);
  return 0;
}
