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
// the same order. Written in vectors of 8 lanes, 8 rows at a time: every
// level's shuffles then stay within one 256-bit register or swap its
// 128-bit halves, which AVX2 does in one instruction each (16-lane vectors
// of shuffles across both operands went through memory and single lanes
// there, more work than the dot products they fold).
inline void fold8Rows(const float (*part)[kWidth], float* out) {
  HalfLanes h[8], x[4], y[2];
  for (int i = 0; i < 8; ++i) {  // lane l + lane l + 8
    HalfLanes lo, hi;
    std::memcpy(&lo, part[i], sizeof lo);
    std::memcpy(&hi, part[i] + kWidth / 2, sizeof hi);
    h[i] = lo + hi;
  }
  for (int i = 0; i < 4; ++i) {  // + 4: rows 2i and 2i + 1 side by side
    const HalfLanes a = h[2 * i], b = h[2 * i + 1];
    x[i] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11) +
           __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15);
  }
  for (int i = 0; i < 2; ++i) {  // + 2: rows 4i .. 4i + 3 as 0 2 | 1 3 pairs
    const HalfLanes a = x[2 * i], b = x[2 * i + 1];
    y[i] = __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13) +
           __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15);
  }
  // + 1: the sums of rows 0 2 4 6 1 3 5 7, then in row order.
  const HalfLanes z = __builtin_shufflevector(y[0], y[1], 0, 2, 8, 10, 4, 6, 12, 14) +
                      __builtin_shufflevector(y[0], y[1], 1, 3, 9, 11, 5, 7, 13, 15);
  const HalfLanes sums = __builtin_shufflevector(z, z, 0, 4, 1, 5, 2, 6, 3, 7);
  std::memcpy(out, &sums, sizeof sums);
}

inline void fold16Rows(const float (*part)[kWidth], float* out) {
  fold8Rows(part, out);
  fold8Rows(part + 8, out + 8);
}

}  // namespace stitch::lane_folds
