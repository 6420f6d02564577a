// Deterministic random tensors for `--input NAME=f32[...]`.
//
// One std::mt19937_64 (whose output sequence the C++ standard fixes, so the
// values are the same on every platform) seeded with --seed produces the
// elements of every random input, in parameter order and row-major element
// order. Each element takes one 64-bit draw r:
//   f32:       u = (r >> 40) * 2^-24 in [0, 1), value 2u - 1 in [-1, 1)
//   f64:       u = (r >> 11) * 2^-53 in [0, 1), value 2u - 1 in [-1, 1)
//   i32 / i64: r % 10, in [0, 10)
//   bool:      r >> 63
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "stitch/stitch.h"

namespace stitch::cli {

class InputRandom {
 public:
  explicit InputRandom(uint64_t seed) : engine_(seed) {}
  // A new contiguous tensor that owns its memory.
  api::Tensor tensor(api::DType dtype, const std::vector<int64_t>& shape);

 private:
  std::mt19937_64 engine_;
};

}  // namespace stitch::cli
