// Binary elementwise arithmetic, comparisons and logical/bitwise ops.
#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <type_traits>

#include "common/scalar_powers.h"
#include "interp/elementwise_ops.h"
#include "interp/scalar_math.h"

namespace stitch {

namespace {

// Integer division and remainder by zero are data errors; the loops only
// raise a flag (no throwing inside parallel regions) and we fail afterwards.
struct ZeroDivisionFlag {
  std::atomic<bool> hit{false};
  void check() const {
    if (hit.load()) throw RuntimeFailure("ZeroDivisionError");
  }
};

template <typename T>
T floorDivide(T a, T b, std::atomic<bool>* zero) {
  if constexpr (std::is_floating_point_v<T>) {
    return floorDivFloat(a, b);
  } else {
    if (b == 0) {
      zero->store(true, std::memory_order_relaxed);
      return 0;
    }
    return floorDivInt(a, b);
  }
}

template <typename T>
T remainderOf(T a, T b, std::atomic<bool>* zero) {
  if constexpr (std::is_floating_point_v<T>) {
    return remainderFloat(a, b);
  } else {
    if (b == 0) {
      zero->store(true, std::memory_order_relaxed);
      return 0;
    }
    return remainderInt(a, b);
  }
}

template <typename T>
T powOf(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::pow(a, b);
  else return intPow(a, b);
}

using BinaryImpl = std::function<Tensor(const Operand& a, const Operand& b, const IValue& alpha,
                                        DType compute, const Tensor& out)>;

Tensor addWithAlpha(const Operand& a, const Operand& b, const IValue& alpha, DType compute,
                    const Tensor& out, bool subtract) {
  bool unit = !alpha.isScalar() || alpha.toDouble() == 1.0;
  return mapBinary<TypeSet::All>(a, b, compute, out, [&]<typename T>() {
    T al = alpha.isScalar() ? scalarAs<T>(alpha) : T(1);
    return [al, unit, subtract](T x, T y) -> T {
      T scaled = unit ? y : wrapMul(al, y);
      return subtract ? wrapSub(x, scaled) : wrapAdd(x, scaled);
    };
  });
}

// Generic registrations: `make` builds the functor for the compute type.
template <TypeSet S, bool BoolOut, typename Make>
BinaryImpl simple(Make make) {
  return [make](const Operand& a, const Operand& b, const IValue&, DType compute,
                const Tensor& out) { return mapBinary<S, BoolOut>(a, b, compute, out, make); };
}

Tensor zeroCheckedBinary(const Operand& a, const Operand& b, DType compute, const Tensor& out,
                         bool floorDiv) {
  ZeroDivisionFlag flag;
  std::atomic<bool>* hit = &flag.hit;
  Tensor r = mapBinary<TypeSet::Numeric>(a, b, compute, out, [&]<typename T>() {
    return [hit, floorDiv](T x, T y) -> T {
      return floorDiv ? floorDivide(x, y, hit) : remainderOf(x, y, hit);
    };
  });
  flag.check();
  return r;
}

const std::map<std::string, BinaryImpl>& binaryTable() {
  static const std::map<std::string, BinaryImpl> table = {
      {"add", [](const Operand& a, const Operand& b, const IValue& al, DType c,
                 const Tensor& o) { return addWithAlpha(a, b, al, c, o, false); }},
      {"sub", [](const Operand& a, const Operand& b, const IValue& al, DType c,
                 const Tensor& o) { return addWithAlpha(a, b, al, c, o, true); }},
      {"mul", simple<TypeSet::All, false>([]<typename T>() {
         return [](T x, T y) -> T { return wrapMul(x, y); };
       })},
      {"div", simple<TypeSet::Floating, false>([]<typename T>() {
         return [](T x, T y) -> T { return x / y; };
       })},
      {"atan2", simple<TypeSet::Floating, false>([]<typename T>() {
         return [](T x, T y) -> T { return std::atan2(x, y); };
       })},
      {"floor_divide", [](const Operand& a, const Operand& b, const IValue&, DType c,
                          const Tensor& o) { return zeroCheckedBinary(a, b, c, o, true); }},
      {"remainder", [](const Operand& a, const Operand& b, const IValue&, DType c,
                       const Tensor& o) { return zeroCheckedBinary(a, b, c, o, false); }},
      {"pow", simple<TypeSet::Numeric, false>([]<typename T>() {
         return [](T x, T y) -> T { return powOf(x, y); };
       })},
      {"maximum", simple<TypeSet::All, false>([]<typename T>() {
         return [](T x, T y) -> T { return maxPropagateNan(x, y); };
       })},
      {"minimum", simple<TypeSet::All, false>([]<typename T>() {
         return [](T x, T y) -> T { return minPropagateNan(x, y); };
       })},
      {"eq", simple<TypeSet::All, true>([]<typename T>() { return [](T x, T y) { return x == y; }; })},
      {"ne", simple<TypeSet::All, true>([]<typename T>() { return [](T x, T y) { return x != y; }; })},
      {"lt", simple<TypeSet::All, true>([]<typename T>() { return [](T x, T y) { return x < y; }; })},
      {"le", simple<TypeSet::All, true>([]<typename T>() { return [](T x, T y) { return x <= y; }; })},
      {"gt", simple<TypeSet::All, true>([]<typename T>() { return [](T x, T y) { return x > y; }; })},
      {"ge", simple<TypeSet::All, true>([]<typename T>() { return [](T x, T y) { return x >= y; }; })},
      {"logical_and", simple<TypeSet::IntegralOrBool, false>([]<typename T>() {
         return [](T x, T y) -> T { return x && y; };
       })},
      {"logical_or", simple<TypeSet::IntegralOrBool, false>([]<typename T>() {
         return [](T x, T y) -> T { return x || y; };
       })},
      {"logical_xor", simple<TypeSet::IntegralOrBool, false>([]<typename T>() {
         return [](T x, T y) -> T { return (x != 0) != (y != 0); };
       })},
      {"bitwise_and", simple<TypeSet::IntegralOrBool, false>([]<typename T>() {
         return [](T x, T y) -> T { return x & y; };
       })},
      {"bitwise_or", simple<TypeSet::IntegralOrBool, false>([]<typename T>() {
         return [](T x, T y) -> T { return x | y; };
       })},
      {"bitwise_xor", simple<TypeSet::IntegralOrBool, false>([]<typename T>() {
         return [](T x, T y) -> T { return x ^ y; };
       })},
  };
  return table;
}

// Reversed ops compute `other op self`.
const std::map<std::string, std::string> kReversed = {{"rsub", "sub"},
                                                      {"rdiv", "div"},
                                                      {"rpow", "pow"},
                                                      {"rfloor_divide", "floor_divide"},
                                                      {"rremainder", "remainder"}};

std::string baseOp(const std::string& op) {
  if (!op.empty() && op.back() == '_') return op.substr(0, op.size() - 1);
  return op;
}

}  // namespace

Tensor binaryElementwise(const std::string& opName, const Operand& a, const Operand& b,
                         const IValue& alpha, DType compute, const Tensor& out) {
  std::string op = baseOp(opName);
  auto rev = kReversed.find(op);
  if (rev != kReversed.end()) return binaryElementwise(rev->second, b, a, alpha, compute, out);
  if (op == "pow" && !b.isTensor() && b.scalar().isScalar() && isFloating(compute)) {
    const ScalarPower form = scalarPowerOf(b.scalar().toDouble());
    if (form != ScalarPower::General)
      return mapBinary<TypeSet::Floating, false>(a, b, compute, out, [form]<typename T>() {
        return [form](T x, T y) -> T { return scalarPower(form, x, y); };
      });
  }
  auto it = binaryTable().find(op);
  STITCH_ASSERT(it != binaryTable().end(), "no binary elementwise op '", opName, "'");
  return it->second(a, b, alpha, compute, out);
}

// Checks PyTorch's value-dependent rule for integer powers.
static void checkIntegerPower(const std::string& op, const Operand& self, const Operand& other,
                              DType compute) {
  if (baseOp(op) != "pow" || isFloating(compute) || other.isTensor()) return;
  if (other.scalar().isInt() && other.scalar().toInt() < 0)
    throw UserError("Integers to negative integer powers are not allowed.");
}

IValueList binaryKernel(const std::string& op, const IValueList& args, bool hasAlpha) {
  Operand self(args.at(0)), other(args.at(1));
  ElementwiseTypes types = binaryOpTypes(op, self.promoteArg(), other.promoteArg());
  IValue alpha = hasAlpha ? args.at(2) : IValue();
  if (hasAlpha) checkAlpha(types.compute, alpha.scalarKind());
  checkIntegerPower(op, self, other, types.compute);
  return {binaryElementwise(op, self, other, alpha, types.compute)};
}

}  // namespace stitch
