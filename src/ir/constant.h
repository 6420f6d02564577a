// A compile-time value: the `value` attribute of prim.constant and the
// defaults of op schemas.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/type.h"

namespace stitch {

struct NoneValue {
  bool operator==(const NoneValue&) const { return true; }
};

class Constant {
 public:
  using Variant = std::variant<NoneValue, bool, int64_t, double, std::string, DType,
                               std::vector<int64_t>>;
  Constant() : v_(NoneValue{}) {}
  Constant(NoneValue n) : v_(n) {}
  Constant(bool b) : v_(b) {}
  Constant(int64_t i) : v_(i) {}
  Constant(int i) : v_((int64_t)i) {}
  Constant(double d) : v_(d) {}
  Constant(std::string s) : v_(std::move(s)) {}
  Constant(const char* s) : v_(std::string(s)) {}
  Constant(DType t) : v_(t) {}
  Constant(std::vector<int64_t> l) : v_(std::move(l)) {}

  bool isNone() const { return std::holds_alternative<NoneValue>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isFloat() const { return std::holds_alternative<double>(v_); }
  bool isStr() const { return std::holds_alternative<std::string>(v_); }
  bool isDType() const { return std::holds_alternative<DType>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }

  bool toBool() const { return std::get<bool>(v_); }
  int64_t toInt() const { return std::get<int64_t>(v_); }
  // Int and bool widen to double, as Python does in float context.
  double toDouble() const;
  const std::string& toStr() const { return std::get<std::string>(v_); }
  DType toDType() const { return std::get<DType>(v_); }
  const std::vector<int64_t>& toIntList() const { return std::get<std::vector<int64_t>>(v_); }
  const Variant& variant() const { return v_; }

  TypePtr type() const;
  // IR spelling: None, true, false, 3, 2.5, 1e-05, inf, nan, "text", f32, [1, 2].
  // Floats always show a '.', 'e', inf or nan so they parse back as floats.
  std::string str() const;
  bool operator==(const Constant& o) const { return v_ == o.v_; }

 private:
  Variant v_;
};

}  // namespace stitch
