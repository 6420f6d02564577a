#include "interp/ivalue.h"

#include <cmath>
#include <sstream>

namespace stitch {

IValue IValue::list(IValueList elems) {
  IValue v;
  // Made mutable, held as const: appendIfUnshared may grow it.
  v.v_ = ListPtr(std::make_shared<IValueList>(std::move(elems)));
  return v;
}

bool IValue::appendIfUnshared(IValue elem) {
  ListPtr* list = std::get_if<ListPtr>(&v_);
  if (!list || list->use_count() != 1) return false;
  const_cast<IValueList&>(**list).push_back(std::move(elem));
  return true;
}

IValue IValue::tuple(IValueList elems) {
  IValue v;
  v.v_ = Tuple{std::make_shared<const IValueList>(std::move(elems))};
  return v;
}

IValue IValue::fromConstant(const Constant& c) {
  return std::visit(
      [](const auto& x) -> IValue {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
          IValueList elems;
          for (int64_t i : x) elems.emplace_back(i);
          return IValue::list(std::move(elems));
        } else {
          return IValue(x);
        }
      },
      c.variant());
}

static std::string kindName(const IValue& v) {
  if (v.isNone()) return "None";
  if (v.isBool()) return "bool";
  if (v.isInt()) return "int";
  if (v.isDouble()) return "float";
  if (v.isStr()) return "str";
  if (v.isDType()) return "dtype";
  if (v.isTensor()) return "Tensor";
  if (v.isList()) return "list";
  return "tuple";
}

bool IValue::toBool() const {
  if (isBool()) return std::get<bool>(v_);
  if (isInt()) return std::get<int64_t>(v_) != 0;
  if (isDouble()) return std::get<double>(v_) != 0.0;
  STITCH_ASSERT(false, "expected a bool, got ", kindName(*this));
  return false;
}

int64_t IValue::toInt() const {
  if (isInt()) return std::get<int64_t>(v_);
  if (isBool()) return std::get<bool>(v_) ? 1 : 0;
  STITCH_ASSERT(false, "expected an int, got ", kindName(*this));
  return 0;
}

double IValue::toDouble() const {
  if (isDouble()) return std::get<double>(v_);
  if (isInt()) return (double)std::get<int64_t>(v_);
  if (isBool()) return std::get<bool>(v_) ? 1.0 : 0.0;
  STITCH_ASSERT(false, "expected a float, got ", kindName(*this));
  return 0;
}

const IValueList& IValue::toList() const {
  if (isList()) return *std::get<ListPtr>(v_);
  STITCH_ASSERT(isTuple(), "expected a list or tuple, got ", kindName(*this));
  return *std::get<Tuple>(v_).elems;
}

std::vector<int64_t> IValue::toIntList() const {
  if (isInt()) return {std::get<int64_t>(v_)};
  std::vector<int64_t> out;
  for (const IValue& e : toList()) out.push_back(e.toInt());
  return out;
}

std::vector<Tensor> IValue::toTensorList() const {
  std::vector<Tensor> out;
  for (const IValue& e : toList()) out.push_back(e.toTensor());
  return out;
}

ScalarKind IValue::scalarKind() const {
  if (isBool()) return ScalarKind::Bool;
  if (isInt()) return ScalarKind::Int;
  STITCH_ASSERT(isDouble(), "expected a scalar, got ", kindName(*this));
  return ScalarKind::Float;
}

static std::string floatStr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(17);
  os << d;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string IValue::str() const {
  if (isNone()) return "None";
  if (isBool()) return std::get<bool>(v_) ? "True" : "False";
  if (isInt()) return std::to_string(std::get<int64_t>(v_));
  if (isDouble()) return floatStr(std::get<double>(v_));
  if (isStr()) return "\"" + toStr() + "\"";
  if (isDType()) return dtypeTorchName(toDType());
  if (isTensor()) {
    const Tensor& t = toTensor();
    if (!t.defined()) return "Tensor(undefined)";
    return std::string(dtypeName(t.dtype())) + t.shapeStr();
  }
  bool tup = isTuple();
  std::string s = tup ? "(" : "[";
  const IValueList& elems = toList();
  for (size_t i = 0; i < elems.size(); ++i) s += (i ? ", " : "") + elems[i].str();
  if (tup && elems.size() == 1) s += ",";
  return s + (tup ? ")" : "]");
}

}  // namespace stitch
