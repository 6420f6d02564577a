// Calls a templated lambda with the C++ element type of a DType:
//   dispatchDType(t, [&]<typename T>() { ... T ... });
// bool tensors hold one byte per element, always 0 or 1.
#pragma once
#include <cstdint>

#include "ir/dtype.h"

namespace stitch {

template <typename F>
decltype(auto) dispatchDType(DType t, F&& f) {
  switch (t) {
    case DType::b8: return f.template operator()<bool>();
    case DType::i32: return f.template operator()<int32_t>();
    case DType::i64: return f.template operator()<int64_t>();
    case DType::f32: return f.template operator()<float>();
    case DType::f64: return f.template operator()<double>();
  }
  return f.template operator()<float>();
}

// Which dtypes a kernel supports; dispatchIn instantiates only those (the
// caller has already rejected the others with a user-facing message).
enum class TypeSet { All, Numeric, Floating, IntegralOrBool };

inline bool inTypeSet(TypeSet s, DType t) {
  switch (s) {
    case TypeSet::All: return true;
    case TypeSet::Numeric: return t != DType::b8;
    case TypeSet::Floating: return t == DType::f32 || t == DType::f64;
    case TypeSet::IntegralOrBool: return t == DType::b8 || t == DType::i32 || t == DType::i64;
  }
  return false;
}

template <TypeSet S, typename F>
decltype(auto) dispatchIn(DType t, F&& f) {
  if constexpr (S == TypeSet::Floating) {
    if (t == DType::f64) return f.template operator()<double>();
    return f.template operator()<float>();
  } else if constexpr (S == TypeSet::Numeric) {
    switch (t) {
      case DType::i32: return f.template operator()<int32_t>();
      case DType::i64: return f.template operator()<int64_t>();
      case DType::f64: return f.template operator()<double>();
      case DType::b8:
      case DType::f32: break;
    }
    return f.template operator()<float>();
  } else if constexpr (S == TypeSet::IntegralOrBool) {
    if (t == DType::b8) return f.template operator()<bool>();
    if (t == DType::i32) return f.template operator()<int32_t>();
    return f.template operator()<int64_t>();
  } else {
    return dispatchDType(t, std::forward<F>(f));
  }
}

template <typename T>
constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<bool>() { return DType::b8; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::i32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::i64; }
template <> constexpr DType dtypeOf<float>() { return DType::f32; }
template <> constexpr DType dtypeOf<double>() { return DType::f64; }

}  // namespace stitch
