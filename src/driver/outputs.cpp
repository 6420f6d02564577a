#include "driver/outputs.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace stitch {

namespace {

void flattenInto(const IValue& v, std::vector<NamedOutput>& out) {
  if (v.isList() || v.isTuple()) {
    for (const IValue& e : v.toList()) flattenInto(e, out);
    return;
  }
  out.push_back({"out" + std::to_string(out.size()), v});
}

template <typename T>
void summarizeTyped(const Tensor& c, size_t count, TensorSummary& s) {
  const T* p = c.data<T>();
  int64_t n = c.numel();
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += (double)p[i];
  for (int64_t i = 0; i < n && (size_t)i < count; ++i) s.first.push_back((double)p[i]);
  s.sum = sum;
  s.mean = n ? sum / (double)n : std::numeric_limits<double>::quiet_NaN();
}

std::string formatNumber(double v, bool integral) {
  std::ostringstream os;
  if (integral && std::isfinite(v))
    os << (long long)v;
  else
    os << std::setprecision(6) << v;
  return os.str();
}

Tensor scalarArray(const IValue& v) {
  if (v.isBool()) {
    Tensor t = Tensor::empty({}, DType::b8);
    t.setInt(0, v.toBool());
    return t;
  }
  if (v.isInt()) {
    Tensor t = Tensor::empty({}, DType::i64);
    t.setInt(0, v.toInt());
    return t;
  }
  Tensor t = Tensor::empty({}, DType::f64);
  t.setDouble(0, v.toDouble());
  return t;
}

}  // namespace

std::vector<NamedOutput> flattenOutputs(const IValueList& results) {
  std::vector<NamedOutput> out;
  for (const IValue& v : results) flattenInto(v, out);
  return out;
}

std::string outputDType(const IValue& value) {
  if (value.isTensor()) return dtypeName(value.toTensor().dtype());
  if (value.isBool()) return "bool";
  if (value.isInt()) return "int";
  if (value.isDouble()) return "float";
  if (value.isNone()) return "None";
  if (value.isStr()) return "str";
  if (value.isDType()) return "dtype";
  return "list";
}

std::vector<int64_t> outputShape(const IValue& value) {
  return value.isTensor() ? value.toTensor().sizes() : std::vector<int64_t>{};
}

TensorSummary summarize(const Tensor& tensor, size_t count) {
  TensorSummary s;
  Tensor c = tensor.contiguous();
  switch (c.dtype()) {
    case DType::b8: summarizeTyped<uint8_t>(c, count, s); break;
    case DType::i32: summarizeTyped<int32_t>(c, count, s); break;
    case DType::i64: summarizeTyped<int64_t>(c, count, s); break;
    case DType::f32: summarizeTyped<float>(c, count, s); break;
    case DType::f64: summarizeTyped<double>(c, count, s); break;
  }
  return s;
}

std::string describeOutput(const NamedOutput& output) {
  const IValue& v = output.value;
  std::ostringstream os;
  os << output.name << ": ";
  if (!v.isTensor()) {
    os << outputDType(v) << " " << v.str();
    return os.str();
  }
  const Tensor& t = v.toTensor();
  bool integral = !isFloating(t.dtype());
  TensorSummary s = summarize(t);
  os << dtypeName(t.dtype()) << t.shapeStr() << "  [";
  for (size_t i = 0; i < s.first.size(); ++i) os << (i ? ", " : "") << formatNumber(s.first[i], integral);
  if ((int64_t)s.first.size() < t.numel()) os << ", ...";
  os << "]  sum=" << formatNumber(s.sum, integral) << " mean=" << formatNumber(s.mean, false);
  return os.str();
}

std::vector<NamedTensor> outputsAsArrays(const std::vector<NamedOutput>& outputs) {
  std::vector<NamedTensor> arrays;
  for (const NamedOutput& o : outputs) {
    if (o.value.isTensor()) {
      arrays.push_back({o.name, o.value.toTensor()});
      continue;
    }
    if (!o.value.isScalar())
      throw UserError(errorMessage("output ", o.name, " is ", outputDType(o.value),
                                   ", which cannot be saved in an .npz file"));
    arrays.push_back({o.name, scalarArray(o.value)});
  }
  return arrays;
}

}  // namespace stitch
