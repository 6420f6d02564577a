#include "driver/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stitch {

namespace {

struct ElementVerdict {
  bool close = true;
  double absError = 0;
};

// `slack`: the tolerance's scale term for this tensor (0 for scalars).
ElementVerdict compareElement(double a, double b, const Tolerance& tol, double slack = 0) {
  if (std::isnan(a) || std::isnan(b)) return {std::isnan(a) && std::isnan(b), 0};
  if (std::isinf(a) || std::isinf(b)) return {a == b, 0};
  double err = std::fabs(a - b);
  return {err <= tol.atol + tol.rtol * std::fabs(b) + slack, err};
}

double machineEpsilon(DType dtype) {
  if (dtype == DType::f32) return std::numeric_limits<float>::epsilon();
  if (dtype == DType::f64) return std::numeric_limits<double>::epsilon();
  return 0;
}

double largestFinite(const double* p, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i)
    if (std::isfinite(p[i])) m = std::max(m, std::fabs(p[i]));
  return m;
}

void fail(CheckResult& r, std::string why) {
  if (r.ok) r.mismatch = std::move(why);
  r.ok = false;
}

void compareTensors(const std::string& name, const Tensor& a, const Tensor& b,
                    const Tolerance& tol, CheckResult& r) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) {
    fail(r, errorMessage(name, ": got ", dtypeName(a.dtype()), a.shapeStr(), ", expected ",
                         dtypeName(b.dtype()), b.shapeStr()));
    return;
  }
  Tensor ca = a.to(DType::f64).contiguous();
  Tensor cb = b.to(DType::f64).contiguous();
  const double* pa = ca.data<double>();
  const double* pb = cb.data<double>();
  int64_t n = ca.numel();
  double slack = tol.scaleUlps * machineEpsilon(b.dtype()) * largestFinite(pb, n);
  for (int64_t i = 0; i < n; ++i) {
    ElementVerdict v = compareElement(pa[i], pb[i], tol, slack);
    r.maxAbsError = std::max(r.maxAbsError, v.absError);
    if (!v.close)
      fail(r, errorMessage(name, ": element ", i, " is ", pa[i], ", expected ", pb[i]));
  }
}

void compareScalars(const std::string& name, const IValue& a, const IValue& b,
                    const Tolerance& tol, CheckResult& r) {
  if (outputDType(a) != outputDType(b)) {
    fail(r, errorMessage(name, ": got ", outputDType(a), ", expected ", outputDType(b)));
    return;
  }
  if (!a.isScalar()) {
    if (a.str() != b.str()) fail(r, errorMessage(name, ": got ", a.str(), ", expected ", b.str()));
    return;
  }
  ElementVerdict v = compareElement(a.toDouble(), b.toDouble(), tol);
  r.maxAbsError = std::max(r.maxAbsError, v.absError);
  if (!v.close) fail(r, errorMessage(name, ": got ", a.str(), ", expected ", b.str()));
}

}  // namespace

CheckResult compareOutputs(const std::vector<NamedOutput>& got,
                           const std::vector<NamedOutput>& expected, const Tolerance& tol) {
  CheckResult r;
  if (got.size() != expected.size()) {
    fail(r, errorMessage("got ", got.size(), " outputs, expected ", expected.size()));
    return r;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const IValue& a = got[i].value;
    const IValue& b = expected[i].value;
    if (a.isTensor() && b.isTensor())
      compareTensors(got[i].name, a.toTensor(), b.toTensor(), tol, r);
    else
      compareScalars(got[i].name, a, b, tol, r);
  }
  return r;
}

}  // namespace stitch
