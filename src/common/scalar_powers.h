// A floating tensor to a scalar power, as PyTorch computes it: for six
// exponents its CPU kernel uses an exact cheaper form instead of pow
// (torch.pow(x, 2) is x * x bit for bit, torch.pow(x, 0.5) is sqrt(x), ...;
// a tensor exponent always goes through pow). The interpreter and the
// kernel lowering both follow this table, so compiled code, the
// interpreter and PyTorch agree bit for bit on these powers, and a square
// costs a multiply instead of a libm call.
#pragma once
#include <cmath>
#include <cstdint>

namespace stitch {

enum class ScalarPower : uint8_t { General, Square, Cube, Sqrt, Rsqrt, Reciprocal, InverseSquare };

inline ScalarPower scalarPowerOf(double exponent) {
  if (exponent == 2.0) return ScalarPower::Square;
  if (exponent == 3.0) return ScalarPower::Cube;
  if (exponent == 0.5) return ScalarPower::Sqrt;
  if (exponent == -0.5) return ScalarPower::Rsqrt;
  if (exponent == -1.0) return ScalarPower::Reciprocal;
  if (exponent == -2.0) return ScalarPower::InverseSquare;
  return ScalarPower::General;
}

template <typename T>
T scalarPower(ScalarPower form, T x, T exponent) {
  switch (form) {
    case ScalarPower::General: return std::pow(x, exponent);
    case ScalarPower::Square: return x * x;
    case ScalarPower::Cube: return x * x * x;
    case ScalarPower::Sqrt: return std::sqrt(x);
    case ScalarPower::Rsqrt: return T(1) / std::sqrt(x);
    case ScalarPower::Reciprocal: return T(1) / x;
    case ScalarPower::InverseSquare: return T(1) / (x * x);
  }
  return std::pow(x, exponent);
}

}  // namespace stitch
