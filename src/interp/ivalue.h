// Run-time values of the interpreter: tensors, Python scalars, None, strings,
// dtypes, lists and tuples. Lists are immutable here: the IR's list ops are
// functional (list.append returns a new list).
#pragma once
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "interp/tensor.h"
#include "ir/constant.h"

namespace stitch {

class IValue;
using IValueList = std::vector<IValue>;

class IValue {
 public:
  struct ListTag {};
  struct TupleTag {};
  using ListPtr = std::shared_ptr<const IValueList>;
  struct Tuple {
    ListPtr elems;
  };
  using Variant = std::variant<NoneValue, bool, int64_t, double, std::string, DType, Tensor,
                               ListPtr, Tuple>;

  IValue() : v_(NoneValue{}) {}
  IValue(NoneValue n) : v_(n) {}
  IValue(bool b) : v_(b) {}
  IValue(int64_t i) : v_(i) {}
  IValue(int i) : v_((int64_t)i) {}
  IValue(double d) : v_(d) {}
  IValue(std::string s) : v_(std::move(s)) {}
  IValue(DType t) : v_(t) {}
  IValue(Tensor t) : v_(std::move(t)) {}
  static IValue list(IValueList elems);
  static IValue tuple(IValueList elems);
  static IValue fromConstant(const Constant& c);
  // A list's elements are shared between the values that hold it and never
  // change; but a list no other value holds may grow where it is: appends
  // `elem` and returns true for such a list, false (nothing done) otherwise.
  bool appendIfUnshared(IValue elem);

  bool isNone() const { return std::holds_alternative<NoneValue>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isScalar() const { return isBool() || isInt() || isDouble(); }
  bool isStr() const { return std::holds_alternative<std::string>(v_); }
  bool isDType() const { return std::holds_alternative<DType>(v_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isList() const { return std::holds_alternative<ListPtr>(v_); }
  bool isTuple() const { return std::holds_alternative<Tuple>(v_); }

  bool toBool() const;      // bool (or int/double: nonzero)
  int64_t toInt() const;    // int or bool
  double toDouble() const;  // double, int or bool
  const std::string& toStr() const { return std::get<std::string>(v_); }
  DType toDType() const { return std::get<DType>(v_); }
  const Tensor& toTensor() const { return std::get<Tensor>(v_); }
  const IValueList& toList() const;   // list or tuple elements
  std::vector<int64_t> toIntList() const;  // a list of ints, or a single int
  std::vector<Tensor> toTensorList() const;
  ScalarKind scalarKind() const;  // for a scalar

  const Variant& variant() const { return v_; }
  std::string str() const;  // short description for messages and --json

 private:
  Variant v_;
};

}  // namespace stitch
