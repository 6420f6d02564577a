#include "outputs.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "tensor_elements.h"
#include "user_error.h"

namespace stitch::cli {

namespace {

void flattenInto(const api::Value& v, std::vector<NamedOutput>& out) {
  if (v.kind() == api::Value::Kind::List || v.kind() == api::Value::Kind::Tuple) {
    for (const api::Value& e : v.items()) flattenInto(e, out);
    return;
  }
  out.push_back({"out" + std::to_string(out.size()), v});
}

bool isScalar(const api::Value& v) {
  api::Value::Kind k = v.kind();
  return k == api::Value::Kind::Bool || k == api::Value::Kind::Int || k == api::Value::Kind::Float;
}

// As Python prints a float: round-trip precision, "2.0" rather than "2".
std::string floatText(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(17);
  os << d;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// A scalar or None as Python prints it.
std::string scalarText(const api::Value& v) {
  switch (v.kind()) {
    case api::Value::Kind::None: return "None";
    case api::Value::Kind::Bool: return v.toBool() ? "True" : "False";
    case api::Value::Kind::Int: return std::to_string(v.toInt());
    case api::Value::Kind::Float: return floatText(v.toDouble());
    case api::Value::Kind::Tensor:
    case api::Value::Kind::List:
    case api::Value::Kind::Tuple:
      break;
  }
  return outputDType(v);
}

std::string formatNumber(double v, bool integral) {
  std::ostringstream os;
  if (integral && std::isfinite(v))
    os << (long long)v;
  else
    os << std::setprecision(6) << v;
  return os.str();
}

template <typename T>
api::Tensor zeroDim(api::DType dtype, T value) {
  api::Tensor t = api::Tensor::empty(dtype, {});
  *static_cast<T*>(t.data) = value;
  return t;
}

api::Tensor scalarArray(const api::Value& v) {
  if (v.kind() == api::Value::Kind::Bool) return zeroDim<uint8_t>(api::DType::b8, v.toBool());
  if (v.kind() == api::Value::Kind::Int) return zeroDim<int64_t>(api::DType::i64, v.toInt());
  return zeroDim<double>(api::DType::f64, v.toDouble());
}

}  // namespace

std::vector<NamedOutput> flattenOutputs(const std::vector<api::Value>& results) {
  std::vector<NamedOutput> out;
  for (const api::Value& v : results) flattenInto(v, out);
  return out;
}

std::string outputDType(const api::Value& value) {
  switch (value.kind()) {
    case api::Value::Kind::Tensor: return api::dtypeName(value.tensor().dtype);
    case api::Value::Kind::Bool: return "bool";
    case api::Value::Kind::Int: return "int";
    case api::Value::Kind::Float: return "float";
    case api::Value::Kind::None: return "None";
    case api::Value::Kind::List: return "list";
    case api::Value::Kind::Tuple: return "tuple";
  }
  return "";
}

std::vector<int64_t> outputShape(const api::Value& value) {
  return value.kind() == api::Value::Kind::Tensor ? value.tensor().sizes : std::vector<int64_t>{};
}

TensorSummary summarize(const api::Tensor& tensor, size_t count) {
  TensorSummary s;
  double sum = 0;
  forEachElement(tensor, [&](const void* element) {
    double v = elementAsDouble(tensor.dtype, element);
    sum += v;
    if (s.first.size() < count) s.first.push_back(v);
  });
  int64_t n = tensor.numel();
  s.sum = sum;
  s.mean = n ? sum / (double)n : std::numeric_limits<double>::quiet_NaN();
  return s;
}

std::string describeOutput(const NamedOutput& output) {
  const api::Value& v = output.value;
  std::ostringstream os;
  os << output.name << ": ";
  if (v.kind() != api::Value::Kind::Tensor) {
    os << outputDType(v) << " " << scalarText(v);
    return os.str();
  }
  const api::Tensor& t = v.tensor();
  bool integral = !isFloating(t.dtype);
  TensorSummary s = summarize(t);
  os << api::dtypeName(t.dtype) << shapeText(t.sizes) << "  [";
  for (size_t i = 0; i < s.first.size(); ++i) os << (i ? ", " : "") << formatNumber(s.first[i], integral);
  if ((int64_t)s.first.size() < t.numel()) os << ", ...";
  os << "]  sum=" << formatNumber(s.sum, integral) << " mean=" << formatNumber(s.mean, false);
  return os.str();
}

std::vector<NamedTensor> outputsAsArrays(const std::vector<NamedOutput>& outputs) {
  std::vector<NamedTensor> arrays;
  for (const NamedOutput& o : outputs) {
    if (o.value.kind() == api::Value::Kind::Tensor) {
      arrays.push_back({o.name, o.value.tensor()});
      continue;
    }
    if (!isScalar(o.value))
      throw userError("output ", o.name, " is ", outputDType(o.value), ", which cannot be saved in an .npz file");
    arrays.push_back({o.name, scalarArray(o.value)});
  }
  return arrays;
}

}  // namespace stitch::cli
