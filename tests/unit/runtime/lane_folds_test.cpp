// The runtime's lane folds (runtime/lane_folds.h) against the order they
// document, written out one addition at a time: lanes l and l + 8, then
// + 4, + 2, + 1. Magnitudes far apart make every misplaced lane show in the
// bits; the many-rows fold must give each row the single-row fold's bits.
#include "runtime/lane_folds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "runtime_test_util.h"

namespace stitch {
namespace {

using lane_folds::kWidth;

float foldInOrder(const float* lanes) {
  float v[kWidth];
  std::memcpy(v, lanes, sizeof v);
  for (int64_t half = kWidth / 2; half >= 1; half /= 2)
    for (int64_t l = 0; l < half; ++l) v[l] = v[l] + v[l + half];
  return v[0];
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

TEST(LaneFolds, RowsFoldInTheDocumentedOrder) {
  std::mt19937_64& gen = rtest::rng();
  std::uniform_real_distribution<float> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (int trial = 0; trial < 200; ++trial) {
    alignas(64) float part[kWidth][kWidth];
    for (auto& row : part)
      for (float& x : row) x = std::ldexp(mantissa(gen), exponent(gen));
    if (trial % 10 == 0) part[trial % kWidth][(trial / 10) % kWidth] = trial % 20 ? INFINITY : NAN;
    alignas(64) float sums[kWidth];
    lane_folds::fold16Rows(part, sums);
    for (int64_t r = 0; r < kWidth; ++r) {
      const float want = foldInOrder(part[r]);
      ASSERT_TRUE(sameBits(lane_folds::fold16(part[r]), want)) << "trial " << trial << ", row " << r;
      ASSERT_TRUE(sameBits(sums[r], want)) << "trial " << trial << ", row " << r << ": " << sums[r] << " vs " << want;
    }
  }
}

}  // namespace
}  // namespace stitch
