// Folds of 16 float lanes for the runtime's float32 routines
// (host_products, attention_kernel), in the one order the generated
// kernels use as well (codegen/c_prelude.cpp's stitch_lane_fold16): lanes l
// and l + 8, then + 4, + 2, + 1. A dot product summed in 16 lanes gives the
// same result whichever routine folds it. GCC / clang vector extensions:
// any x86-64 clone (or other target) lowers them to its own instructions.
#pragma once
#include <cstdint>
#include <cstring>

namespace stitch::lane_folds {

constexpr int64_t kWidth = 16;

typedef float Lanes __attribute__((vector_size(kWidth * sizeof(float))));
typedef float HalfLanes __attribute__((vector_size(kWidth / 2 * sizeof(float))));
typedef float QuarterLanes __attribute__((vector_size(kWidth / 4 * sizeof(float))));

// The sum of 16 lanes, in vector registers (a loop per halving would take
// the array through memory at every step).
inline float fold16(const float* lanes) {
  Lanes v;
  std::memcpy(&v, lanes, sizeof v);
  HalfLanes h = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
                __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  QuarterLanes q = __builtin_shufflevector(h, h, 0, 1, 2, 3) + __builtin_shufflevector(h, h, 4, 5, 6, 7);
  float even = q[0] + q[2], odd = q[1] + q[3];
  return even + odd;
}

// The sums of 16 rows of lanes at once: out[j] = fold16(part[j]), each in
// the same order, in 15 shuffle pairs. The levels leave the sums in
// bit-reversed order; the last shuffle puts them back.
inline void fold16Rows(const float (*part)[kWidth], float* out) {
  Lanes v[16];
  std::memcpy(v, part, sizeof v);
  Lanes w[8], x[4], y[2];
  for (int i = 0; i < 8; ++i) {
    const Lanes a = v[2 * i], b = v[2 * i + 1];
    w[i] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
           __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  }
  for (int i = 0; i < 4; ++i) {
    const Lanes a = w[2 * i], b = w[2 * i + 1];
    x[i] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27) +
           __builtin_shufflevector(a, b, 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
  }
  for (int i = 0; i < 2; ++i) {
    const Lanes a = x[2 * i], b = x[2 * i + 1];
    y[i] = __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29) +
           __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
  }
  const Lanes z = __builtin_shufflevector(y[0], y[1], 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30) +
                  __builtin_shufflevector(y[0], y[1], 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
  const Lanes sums = __builtin_shufflevector(z, z, 0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15);
  std::memcpy(out, &sums, sizeof sums);
}

}  // namespace stitch::lane_folds
