// The one random source of the interpreter tests: a fresh seed every run,
// so every run checks new inputs.
#pragma once
#include <cstdint>
#include <random>

namespace stitch::testrand {

inline std::mt19937_64& rng() {
  static std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

inline int64_t randInt(int64_t lo, int64_t hi) {  // inclusive
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng());
}

}  // namespace stitch::testrand
