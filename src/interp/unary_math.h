// The interpreter's float math for exp, exp2, expm1, tanh, sigmoid and
// silu, per element type: f32 calls common/float_math.h (the functions
// generated kernels embed, so compiled and interpreted results agree bit
// for bit); f64 calls <cmath>. Header-only, for every evaluator that must
// compute what the interpreter computes.
#pragma once
#include <cmath>
#include <type_traits>

namespace stitch {

// common/float_math.h's f32 functions, compiled out of line (unary_math.cpp)
// in an FMA clone picked at load time where the CPU has FMA: the host build
// targets baseline x86-64, where each of their fma() calls would be a libm
// call (8x slower). fma is exact either way, so every clone gives the same
// bits as the generated kernels.
float hostExpF32(float x);
float hostExp2F32(float x);
float hostExpm1F32(float x);
float hostTanhF32(float x);
float hostSigmoidF32(float x);
float hostSiluF32(float x);

template <typename T>
T expOf(T x) {
  if constexpr (std::is_same_v<T, float>) return hostExpF32(x);
  else return std::exp(x);
}
template <typename T>
T exp2Of(T x) {
  if constexpr (std::is_same_v<T, float>) return hostExp2F32(x);
  else return std::exp2(x);
}
template <typename T>
T expm1Of(T x) {
  if constexpr (std::is_same_v<T, float>) return hostExpm1F32(x);
  else return std::expm1(x);
}
template <typename T>
T tanhOf(T x) {
  if constexpr (std::is_same_v<T, float>) return hostTanhF32(x);
  else return std::tanh(x);
}
// 1 / (1 + exp(-x)).
template <typename T>
T sigmoidOf(T x) {
  if constexpr (std::is_same_v<T, float>) return hostSigmoidF32(x);
  else return T(1) / (T(1) + std::exp(-x));
}
// x * sigmoid(x).
template <typename T>
T siluOf(T x) {
  if constexpr (std::is_same_v<T, float>) return hostSiluF32(x);
  else return x * sigmoidOf(x);
}
// gelu with the tanh approximation, in T's precision around tanhOf.
template <typename T>
T geluTanhOf(T x) {
  const T kBeta = T(M_SQRT2 * M_2_SQRTPI * 0.5), kKappa = T(0.044715);
  T inner = kBeta * (x + kKappa * x * x * x);
  return T(0.5) * x * (T(1) + tanhOf(inner));
}

}  // namespace stitch
