// Helpers of the view and copy op tests: fresh random tensors and shapes,
// element access by multi-index, and error-message matching.
#pragma once
#include <gtest/gtest.h>

#include "test_random.h"

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "interp/tensor.h"

namespace stitch::vtest {

using testrand::randInt;
using testrand::rng;

inline Shape randomShape(int64_t rank, int64_t maxDim = 5, int64_t minDim = 1) {
  Shape s(rank);
  for (auto& d : s) d = randInt(minDim, maxDim);
  return s;
}

inline Tensor randomTensor(const Shape& shape, DType dtype = DType::f32) {
  Tensor t = Tensor::empty(shape, dtype);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloating(dtype)) t.setDouble(i, real(rng()));
    else if (dtype == DType::b8) t.setInt(i, randInt(0, 1));
    else t.setInt(i, randInt(-50, 50));
  }
  return t;
}

// Row-major linear index of a multi-index into `sizes`.
inline int64_t linearIndex(const Shape& sizes, const std::vector<int64_t>& idx) {
  int64_t lin = 0;
  for (size_t d = 0; d < sizes.size(); ++d) lin = lin * sizes[d] + idx[d];
  return lin;
}

inline std::vector<int64_t> unravel(const Shape& sizes, int64_t lin) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = lin % sizes[d];
    lin /= sizes[d];
  }
  return idx;
}

inline double at(const Tensor& t, const std::vector<int64_t>& idx) {
  return t.getDouble(linearIndex(t.sizes(), idx));
}

// Checks out[idx] == expected(idx) for every element of out.
inline void expectElements(const Tensor& out,
                           const std::function<double(const std::vector<int64_t>&)>& expected) {
  for (int64_t i = 0; i < out.numel(); ++i) {
    std::vector<int64_t> idx = unravel(out.sizes(), i);
    ASSERT_EQ(out.getDouble(i), expected(idx)) << "at linear index " << i;
  }
}

// Runs f and expects an exception of type E whose message contains `part`.
template <typename E, typename F>
void expectError(F&& f, const std::string& part) {
  try {
    f();
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << part;
    return;
  }
  ADD_FAILURE() << "no error; expected one containing: " << part;
}

}  // namespace stitch::vtest
