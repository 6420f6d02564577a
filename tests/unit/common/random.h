// The random source of the unit tests: a fresh seed each run, so every run
// checks new inputs.
#pragma once
#include <cstdint>
#include <random>

namespace stitch::testing {

inline std::mt19937_64& rng() {
  static std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

// Uniform in [lo, hi].
inline int64_t randInt(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng()); }

}  // namespace stitch::testing
