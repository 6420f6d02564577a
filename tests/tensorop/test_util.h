// Helpers shared by the tensorop tests: fresh random inputs every run with
// the seed reported on failure, and tolerant float comparison.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace stitch::tensorop::testing {

// A new seed per call; pass it to SCOPED_TRACE so failures print it.
inline uint32_t freshSeed() {
  static std::random_device rd;
  return rd();
}

inline std::vector<float> randomVector(size_t n, std::mt19937& gen,
                                       float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// Relative-plus-absolute check sized for fp32 sums of `terms` products.
inline ::testing::AssertionResult closeVectors(const std::vector<float>& got,
                                               const std::vector<float>& want,
                                               double terms = 1) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " vs " << want.size();
  const double tol = 1e-5 * std::sqrt(std::max(1.0, terms)) * 4;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::abs(double(got[i]) - double(want[i]));
    if (!(d <= tol * (1.0 + std::abs(double(want[i])))))
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << got[i] << " want " << want[i];
  }
  return ::testing::AssertionSuccess();
}

}  // namespace stitch::tensorop::testing
