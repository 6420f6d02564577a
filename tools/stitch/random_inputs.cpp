#include "random_inputs.h"

namespace stitch::cli {

namespace {

template <typename T, typename Draw>
void fillWith(const api::Tensor& t, Draw draw) {
  T* p = static_cast<T*>(t.data);
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) p[i] = draw();
}

}  // namespace

api::Tensor InputRandom::tensor(api::DType dtype, const std::vector<int64_t>& shape) {
  api::Tensor t = api::Tensor::empty(dtype, shape);
  // f32 uses 24 random bits so that 2u - 1 is exact and stays below 1.
  auto unit32 = [this] { return (float)((double)(engine_() >> 40) * 0x1.0p-24 * 2.0 - 1.0); };
  auto unit64 = [this] { return (double)(engine_() >> 11) * 0x1.0p-53 * 2.0 - 1.0; };
  auto digit = [this] { return (int64_t)(engine_() % 10); };
  switch (dtype) {
    case api::DType::f32:
      fillWith<float>(t, unit32);
      return t;
    case api::DType::f64:
      fillWith<double>(t, unit64);
      return t;
    case api::DType::i32:
      fillWith<int32_t>(t, [&] { return (int32_t)digit(); });
      return t;
    case api::DType::i64:
      fillWith<int64_t>(t, digit);
      return t;
    case api::DType::b8:
      fillWith<uint8_t>(t, [this] { return (uint8_t)(engine_() >> 63); });
      return t;
  }
  return t;
}

}  // namespace stitch::cli
