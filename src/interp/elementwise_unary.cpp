// Unary elementwise ops. Float ops compute in the tensor's own precision
// (float math for f32, double for f64), as PyTorch does; f32 exp, exp2,
// expm1, tanh, sigmoid and silu come from unary_math.h (shared with
// generated kernels).
#include <cmath>
#include <functional>
#include <map>
#include <type_traits>

#include "interp/elementwise_ops.h"
#include "interp/scalar_math.h"
#include "interp/unary_math.h"

namespace stitch {

namespace {

using UnaryImpl = std::function<Tensor(const Tensor& a, DType compute, const Tensor& out)>;

template <TypeSet S, bool BoolOut = false, typename Make>
UnaryImpl unary(Make make) {
  return [make](const Tensor& a, DType compute, const Tensor& out) {
    return mapUnary<S, BoolOut>(a, compute, out, make);
  };
}

// A float op written once for float and double.
#define STITCH_FLOAT_UNARY(name, expr)                                         \
  {name, unary<TypeSet::Floating>([]<typename T>() { return [](T x) -> T { return expr; }; })}

template <typename T>
T absOf(T x) {
  if constexpr (kWrapping<T>) return x < 0 ? wrapNeg(x) : x;
  else return std::abs(x);
}

template <typename T>
T signOf(T x) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else return T((T(0) < x) - (x < T(0)));
}

const std::map<std::string, UnaryImpl>& unaryTable() {
  static const std::map<std::string, UnaryImpl> table = {
      STITCH_FLOAT_UNARY("exp", expOf(x)),
      STITCH_FLOAT_UNARY("log", std::log(x)),
      STITCH_FLOAT_UNARY("sqrt", std::sqrt(x)),
      STITCH_FLOAT_UNARY("rsqrt", T(1) / std::sqrt(x)),
      STITCH_FLOAT_UNARY("sin", std::sin(x)),
      STITCH_FLOAT_UNARY("cos", std::cos(x)),
      STITCH_FLOAT_UNARY("tan", std::tan(x)),
      STITCH_FLOAT_UNARY("tanh", tanhOf(x)),
      STITCH_FLOAT_UNARY("sigmoid", sigmoidOf(x)),
      STITCH_FLOAT_UNARY("silu", siluOf(x)),
      STITCH_FLOAT_UNARY("erf", std::erf(x)),
      STITCH_FLOAT_UNARY("reciprocal", T(1) / x),
      STITCH_FLOAT_UNARY("log1p", std::log1p(x)),
      STITCH_FLOAT_UNARY("expm1", expm1Of(x)),
      STITCH_FLOAT_UNARY("log2", std::log2(x)),
      STITCH_FLOAT_UNARY("exp2", exp2Of(x)),
      STITCH_FLOAT_UNARY("asin", std::asin(x)),
      STITCH_FLOAT_UNARY("acos", std::acos(x)),
      STITCH_FLOAT_UNARY("atan", std::atan(x)),
      STITCH_FLOAT_UNARY("sinh", std::sinh(x)),
      STITCH_FLOAT_UNARY("cosh", std::cosh(x)),
      {"neg", unary<TypeSet::Numeric>([]<typename T>() { return [](T x) -> T { return wrapNeg(x); }; })},
      {"abs", unary<TypeSet::Numeric>([]<typename T>() { return [](T x) -> T { return absOf(x); }; })},
      // NaN stays NaN (x < 0 is false for it), as PyTorch's relu.
      {"relu", unary<TypeSet::Numeric>([]<typename T>() { return [](T x) -> T { return x < T(0) ? T(0) : x; }; })},
      {"sign", unary<TypeSet::All>([]<typename T>() { return [](T x) -> T { return signOf(x); }; })},
      {"square", unary<TypeSet::Numeric>([]<typename T>() { return [](T x) -> T { return wrapMul(x, x); }; })},
      {"floor", unary<TypeSet::Numeric>([]<typename T>() {
         return [](T x) -> T { if constexpr (std::is_floating_point_v<T>) return std::floor(x); else return x; };
       })},
      {"ceil", unary<TypeSet::Numeric>([]<typename T>() {
         return [](T x) -> T { if constexpr (std::is_floating_point_v<T>) return std::ceil(x); else return x; };
       })},
      // Half to even, like PyTorch (the default rounding mode).
      {"round", unary<TypeSet::Numeric>([]<typename T>() {
         return [](T x) -> T { if constexpr (std::is_floating_point_v<T>) return std::nearbyint(x); else return x; };
       })},
      {"trunc", unary<TypeSet::Numeric>([]<typename T>() {
         return [](T x) -> T { if constexpr (std::is_floating_point_v<T>) return std::trunc(x); else return x; };
       })},
      {"logical_not", unary<TypeSet::IntegralOrBool>([]<typename T>() { return [](T x) -> T { return !x; }; })},
      {"bitwise_not", unary<TypeSet::IntegralOrBool>([]<typename T>() {
         return [](T x) -> T { if constexpr (std::is_same_v<T, bool>) return !x; else return ~x; };
       })},
      {"isnan", unary<TypeSet::All, true>([]<typename T>() { return [](T x) { return x != x; }; })},
  };
  return table;
}

Tensor gelu(const Tensor& a, DType compute, const Tensor& out, const std::string& approximate) {
  if (approximate == "tanh") {
    return mapUnary<TypeSet::Floating>(a, compute, out, []<typename T>() {
      return [](T x) -> T { return geluTanhOf(x); };
    });
  }
  if (approximate != "none") throw UserError("approximate argument must be either none or tanh.");
  return mapUnary<TypeSet::Floating>(a, compute, out, []<typename T>() {
    return [](T x) -> T { return x * T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2))); };
  });
}

std::string baseOp(const std::string& op) {
  if (!op.empty() && op.back() == '_') return op.substr(0, op.size() - 1);
  return op;
}

}  // namespace

Tensor unaryElementwise(const std::string& opName, const Tensor& a, DType compute,
                        const Tensor& out, const std::string& approximate) {
  std::string op = baseOp(opName);
  if (op == "gelu") return gelu(a, compute, out, approximate);
  auto it = unaryTable().find(op);
  STITCH_ASSERT(it != unaryTable().end(), "no unary elementwise op '", opName, "'");
  return it->second(a, compute, out);
}

Tensor clampScalar(const Tensor& self, const IValue& min, const IValue& max, DType compute,
                   const Tensor& out) {
  bool hasMin = !min.isNone(), hasMax = !max.isNone();
  return mapUnary<TypeSet::Numeric>(self, compute, out, [&]<typename T>() {
    T lo = hasMin ? scalarAs<T>(min) : T(0);
    T hi = hasMax ? scalarAs<T>(max) : T(0);
    return [=](T x) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        if (x != x) return x;
      }
      if (hasMin && x < lo) x = lo;
      if (hasMax && x > hi) x = hi;
      return x;
    };
  });
}

}  // namespace stitch
