// Helpers shared by the driver tests: fresh random seeds (printed on
// failure), random tensors, a scratch directory.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "interp/tensor.h"

namespace stitch::testing {

inline uint64_t freshSeed() {
  std::random_device rd;
  return ((uint64_t)rd() << 32) ^ rd();
}

inline Shape randomShape(std::mt19937_64& rng, int maxRank = 4, int64_t maxDim = 6) {
  Shape s(rng() % (maxRank + 1));
  for (int64_t& d : s) d = (int64_t)(rng() % (maxDim + 1));
  return s;
}

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

class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("stitch-driver-test-" + std::to_string(freshSeed()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline const DType kAllDTypes[] = {DType::f32, DType::f64, DType::i32, DType::i64, DType::b8};

}  // namespace stitch::testing
