// Helpers shared by the driver tests: random runtime tensors and their
// comparison; fresh seeds and a scratch directory from common/.
#pragma once
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "../common/scratch_dir.h"
#include "interp/tensor.h"

namespace stitch::testing {

// Random values that every dtype represents exactly.
inline Tensor randomTensor(std::mt19937_64& rng, DType dtype, const Shape& shape) {
  Tensor t = Tensor::empty(shape, dtype);
  std::uniform_real_distribution<double> real(-100, 100);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloating(dtype))
      t.setDouble(i, dtype == DType::f32 ? (double)(float)real(rng) : real(rng));
    else if (dtype == DType::b8)
      t.setInt(i, (int64_t)(rng() & 1));
    else
      t.setInt(i, (int64_t)(rng() % 2000001) - 1000000);
  }
  return t;
}

inline void expectSameTensor(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.sizes(), b.sizes());
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (isFloating(a.dtype()))
      ASSERT_EQ(a.getDouble(i), b.getDouble(i)) << "element " << i;
    else
      ASSERT_EQ(a.getInt(i), b.getInt(i)) << "element " << i;
  }
}

}  // namespace stitch::testing
