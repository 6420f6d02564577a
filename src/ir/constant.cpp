#include "ir/constant.h"

#include <charconv>
#include <cmath>

#include "common/error.h"

namespace stitch {

double Constant::toDouble() const {
  if (isFloat()) return std::get<double>(v_);
  if (isInt()) return (double)std::get<int64_t>(v_);
  if (isBool()) return std::get<bool>(v_) ? 1.0 : 0.0;
  STITCH_ASSERT(false, "toDouble() of a non-numeric constant ", str());
  return 0;
}

TypePtr Constant::type() const {
  struct Visitor {
    TypePtr operator()(const NoneValue&) const { return Type::none(); }
    TypePtr operator()(bool) const { return Type::boolT(); }
    TypePtr operator()(int64_t) const { return Type::intT(); }
    TypePtr operator()(double) const { return Type::floatT(); }
    TypePtr operator()(const std::string&) const { return Type::strT(); }
    TypePtr operator()(DType) const { return Type::dtypeT(); }
    TypePtr operator()(const std::vector<int64_t>&) const { return Type::list(Type::intT()); }
  };
  return std::visit(Visitor{}, v_);
}

// Shortest text that reads back as the same double, and always reads back as
// a float (never as an int): "1.0", "2.5", "1e-05", "inf", "nan".
static std::string formatDouble(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

static std::string quoteString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string Constant::str() const {
  struct Visitor {
    std::string operator()(const NoneValue&) const { return "None"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return formatDouble(d); }
    std::string operator()(const std::string& s) const { return quoteString(s); }
    std::string operator()(DType t) const { return dtypeName(t); }
    std::string operator()(const std::vector<int64_t>& l) const {
      std::string s = "[";
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(l[i]);
      }
      return s + "]";
    }
  };
  return std::visit(Visitor{}, v_);
}

}  // namespace stitch
