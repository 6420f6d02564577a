#include "driver/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stitch {

namespace {

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
  TensorComparison c = compareTensorValues(a, b, tol);
  r.maxAbsError = std::max(r.maxAbsError, c.maxAbsError);
  if (c.close) return;
  auto text = [&](const Tensor& t) {
    return isFloating(t.dtype()) ? errorMessage(t.getDouble(c.firstMismatch)) : errorMessage(t.getInt(c.firstMismatch));
  };
  fail(r, errorMessage(name, ": element ", c.firstMismatch, " is ", text(a), ", expected ", text(b)));
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
  double x = a.toDouble(), y = b.toDouble();
  if (std::isfinite(x) && std::isfinite(y)) r.maxAbsError = std::max(r.maxAbsError, std::fabs(x - y));
  if (!closeScalar(x, y, tol)) fail(r, errorMessage(name, ": got ", a.str(), ", expected ", b.str()));
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
