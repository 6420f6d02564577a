// Helpers shared by the command-line tests: random public-API tensors that
// every dtype holds exactly, compared element by element in row-major
// order (whatever their strides); fresh seeds and a scratch directory from
// common/.
#pragma once
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../common/scratch_dir.h"
#include "stitch/stitch.h"
#include "tensor_elements.h"

namespace stitch::testing {

namespace api = stitch::api;

inline const api::DType kAllDTypes[] = {api::DType::f32, api::DType::f64, api::DType::i32, api::DType::i64,
                                        api::DType::b8};

inline std::vector<int64_t> randomShape(std::mt19937_64& rng, int maxRank = 4, int64_t maxDim = 6) {
  std::vector<int64_t> s(rng() % (maxRank + 1));
  for (int64_t& d : s) d = (int64_t)(rng() % (maxDim + 1));
  return s;
}

inline api::Tensor randomTensor(std::mt19937_64& rng, api::DType dtype, const std::vector<int64_t>& shape) {
  api::Tensor t = api::Tensor::empty(dtype, shape);
  std::uniform_real_distribution<double> real(-100, 100);
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dtype) {
      case api::DType::f32: static_cast<float*>(t.data)[i] = (float)real(rng); break;
      case api::DType::f64: static_cast<double*>(t.data)[i] = real(rng); break;
      case api::DType::i32: static_cast<int32_t*>(t.data)[i] = (int32_t)(rng() % 2000001) - 1000000; break;
      case api::DType::i64: static_cast<int64_t*>(t.data)[i] = (int64_t)(rng() % 2000001) - 1000000; break;
      case api::DType::b8: static_cast<uint8_t*>(t.data)[i] = (uint8_t)(rng() & 1); break;
    }
  }
  return t;
}

// The elements in row-major order, as doubles (every test value is exact).
inline std::vector<double> elementsOf(const api::Tensor& t) {
  std::vector<double> out;
  cli::forEachElement(t, [&](const void* e) { out.push_back(cli::elementAsDouble(t.dtype, e)); });
  return out;
}

inline void expectSameTensor(const api::Tensor& a, const api::Tensor& b) {
  ASSERT_EQ(a.dtype, b.dtype);
  ASSERT_EQ(a.sizes, b.sizes);
  std::vector<double> ea = elementsOf(a), eb = elementsOf(b);
  ASSERT_EQ(ea.size(), eb.size());
  for (size_t i = 0; i < ea.size(); ++i) ASSERT_EQ(ea[i], eb[i]) << "element " << i;
}

}  // namespace stitch::testing
