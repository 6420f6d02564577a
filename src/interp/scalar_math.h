// Element arithmetic with Python's / PyTorch's semantics, shared by tensor
// kernels and Python scalar ops: floor division and remainder that round
// toward negative infinity, integer powers, and integer ops that wrap on
// overflow (two's complement, as PyTorch's kernels do) instead of being
// undefined.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace stitch {

template <typename T>
constexpr bool kWrapping = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
inline T wrapAdd(T a, T b) {
  if constexpr (kWrapping<T>) return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else return a + b;
}
template <typename T>
inline T wrapSub(T a, T b) {
  if constexpr (kWrapping<T>) return T(std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b));
  else return a - b;
}
template <typename T>
inline T wrapMul(T a, T b) {
  if constexpr (kWrapping<T>) return T(std::make_unsigned_t<T>(a) * std::make_unsigned_t<T>(b));
  else if constexpr (std::is_same_v<T, bool>) return a && b;
  else return a * b;
}
template <typename T>
inline T wrapNeg(T a) {
  if constexpr (kWrapping<T>) return T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(a));
  else return -a;
}

// b != 0. The quotient rounds toward negative infinity.
template <typename T>
inline T floorDivInt(T a, T b) {
  if (b == -1) return wrapNeg(a);  // INT_MIN / -1 would trap
  T q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q;
  return q;
}

// b != 0. The remainder takes the divisor's sign.
template <typename T>
inline T remainderInt(T a, T b) {
  if (b == -1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Python's float floor division (also PyTorch's div_floor): division by zero
// gives a / b (inf or nan).
template <typename T>
inline T floorDivFloat(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T fl = std::floor(div);
  if (div - fl > T(0.5)) fl += T(1);
  return fl;
}

template <typename T>
inline T remainderFloat(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

// maximum / minimum: a NaN on either side wins, as in PyTorch.
template <typename T>
inline T maxPropagateNan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <typename T>
inline T minPropagateNan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

// Integer power; a negative exponent gives 1 / a^-b truncated (0 unless
// |a| == 1), as PyTorch's integer pow does.
template <typename T>
inline T intPow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return exp ? base : true;
  } else {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
    using U = std::make_unsigned_t<T>;
    U result = 1, b = U(base);
    while (exp) {
      if (exp & 1) result *= b;
      b *= b;
      exp >>= 1;
    }
    return T(result);
  }
}

}  // namespace stitch
