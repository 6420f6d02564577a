// The one rule by which a computed tensor is compared with a reference
// (--check, the unit tests; the differential suite spells the same formula
// in Python): every element within
//
//   |a - b| <= atol + rtol * |b| + scaleUlps * eps * max |b|
//
// (NaN matches NaN, inf matches the same inf), where eps is the dtype's
// machine epsilon (f32 2^-23, f64 2^-52) and the maximum runs over the
// reference's finite elements. The last term stands for the magnitude of
// the terms summed into an element: compiled kernels compute float32 in
// float32 (ugraph/numerics.h) and their rounding scales with those terms,
// not with the (possibly cancelled) result, while the reference
// interpreter accumulates in double. An element near zero out of a sum of
// large terms may differ by a few ulps of the tensor's scale; a wrong index
// or a lost term moves it by far more. Integers and bools compare exactly.
#pragma once
#include <cstdint>

#include "interp/tensor.h"

namespace stitch {

struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
  double scaleUlps = 8;
};

// PyTorch's own defaults for comparing floats (torch.testing.assert_close:
// f32 rtol 1.3e-6, atol 1e-5; f64 rtol 1e-7, atol 1e-7), with the scale
// term: what the unit tests hold kernels to against the interpreter.
Tolerance pytorchTolerance(DType dtype);

struct TensorComparison {
  bool close = true;
  int64_t firstMismatch = -1;  // row-major element index, when !close
  double maxAbsError = 0;      // over the finite elements
};

// a against the reference b; their dtypes and shapes must agree (checked by
// the caller).
TensorComparison compareTensorValues(const Tensor& a, const Tensor& b, const Tolerance& tolerance = {});

// One scalar element (no scale term).
bool closeScalar(double a, double b, const Tolerance& tolerance = {});

}  // namespace stitch
