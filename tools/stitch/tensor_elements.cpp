#include "tensor_elements.h"

#include <cstring>

namespace stitch::cli {

bool isFloating(api::DType dtype) { return dtype == api::DType::f32 || dtype == api::DType::f64; }

std::string shapeText(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

double elementAsDouble(api::DType dtype, const void* element) {
  switch (dtype) {
    case api::DType::f32: return *static_cast<const float*>(element);
    case api::DType::f64: return *static_cast<const double*>(element);
    case api::DType::i32: return *static_cast<const int32_t*>(element);
    case api::DType::i64: return (double)*static_cast<const int64_t*>(element);
    case api::DType::b8: return *static_cast<const uint8_t*>(element) != 0;
  }
  return 0;
}

int64_t elementAsInt(api::DType dtype, const void* element) {
  switch (dtype) {
    case api::DType::f32: return (int64_t)*static_cast<const float*>(element);
    case api::DType::f64: return (int64_t)*static_cast<const double*>(element);
    case api::DType::i32: return *static_cast<const int32_t*>(element);
    case api::DType::i64: return *static_cast<const int64_t*>(element);
    case api::DType::b8: return *static_cast<const uint8_t*>(element) != 0;
  }
  return 0;
}

std::string rowMajorBytes(const api::Tensor& t) {
  size_t esize = api::dtypeSize(t.dtype);
  std::string bytes;
  bytes.reserve((size_t)t.numel() * esize);
  if (t.contiguous()) {
    if (t.numel() > 0) bytes.append(static_cast<const char*>(t.data), (size_t)t.numel() * esize);
    return bytes;
  }
  forEachElement(t, [&](const char* element) { bytes.append(element, esize); });
  return bytes;
}

}  // namespace stitch::cli
