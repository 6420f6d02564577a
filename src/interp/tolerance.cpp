#include "interp/tolerance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stitch {

namespace {

double machineEpsilon(DType dtype) {
  if (dtype == DType::f32) return std::numeric_limits<float>::epsilon();
  if (dtype == DType::f64) return std::numeric_limits<double>::epsilon();
  return 0;
}

// `slack`: the scale term for the element's tensor.
bool closeWith(double a, double b, const Tolerance& tol, double slack, double* absError) {
  *absError = 0;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  *absError = std::fabs(a - b);
  return *absError <= tol.atol + tol.rtol * std::fabs(b) + slack;
}

}  // namespace

Tolerance pytorchTolerance(DType dtype) {
  Tolerance t;
  t.rtol = dtype == DType::f64 ? 1e-7 : 1.3e-6;
  t.atol = dtype == DType::f64 ? 1e-7 : 1e-5;
  return t;
}

TensorComparison compareTensorValues(const Tensor& a, const Tensor& b, const Tolerance& tol) {
  TensorComparison r;
  const int64_t n = b.numel();
  if (!isFloating(b.dtype())) {
    for (int64_t i = 0; i < n; ++i)
      if (a.getInt(i) != b.getInt(i) && r.close) r.close = false, r.firstMismatch = i;
    return r;
  }
  Tensor ca = a.to(DType::f64).contiguous(), cb = b.to(DType::f64).contiguous();
  const double* pa = ca.data<double>();
  const double* pb = cb.data<double>();
  double largest = 0;
  for (int64_t i = 0; i < n; ++i)
    if (std::isfinite(pb[i])) largest = std::max(largest, std::fabs(pb[i]));
  const double slack = tol.scaleUlps * machineEpsilon(b.dtype()) * largest;
  for (int64_t i = 0; i < n; ++i) {
    double err = 0;
    bool ok = closeWith(pa[i], pb[i], tol, slack, &err);
    r.maxAbsError = std::max(r.maxAbsError, err);
    if (!ok && r.close) r.close = false, r.firstMismatch = i;
  }
  return r;
}

bool closeScalar(double a, double b, const Tolerance& tol) {
  double err = 0;
  return closeWith(a, b, tol, 0, &err);
}

}  // namespace stitch
