#include "driver/random_inputs.h"

namespace stitch {

namespace {

template <typename T, typename Draw>
void fillWith(const Tensor& t, Draw draw) {
  T* p = t.data<T>();
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) p[i] = draw();
}

}  // namespace

Tensor InputRandom::tensor(DType dtype, const Shape& shape) {
  Tensor t = Tensor::empty(shape, dtype);
  // f32 uses 24 random bits so that 2u - 1 is exact and stays below 1.
  auto unit32 = [this] { return (float)((double)(engine_() >> 40) * 0x1.0p-24 * 2.0 - 1.0); };
  auto unit64 = [this] { return (double)(engine_() >> 11) * 0x1.0p-53 * 2.0 - 1.0; };
  auto digit = [this] { return (int64_t)(engine_() % 10); };
  switch (dtype) {
    case DType::f32:
      fillWith<float>(t, unit32);
      return t;
    case DType::f64:
      fillWith<double>(t, unit64);
      return t;
    case DType::i32:
      fillWith<int32_t>(t, [&] { return (int32_t)digit(); });
      return t;
    case DType::i64:
      fillWith<int64_t>(t, digit);
      return t;
    case DType::b8:
      fillWith<uint8_t>(t, [this] { return (uint8_t)(engine_() >> 63); });
      return t;
  }
  return t;
}

}  // namespace stitch
