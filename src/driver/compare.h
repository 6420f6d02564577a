// Compares two runs' flattened outputs the way `--check` does: same count,
// kinds, dtypes and shapes, and every element of a tensor within
//
//   |a - b| <= atol + rtol * |b| + scaleUlps * eps * max |b|
//
// (NaN matches NaN, inf matches the same inf), where eps is the dtype's
// machine epsilon (f32 2^-23, f64 2^-52, 0 for integers and bools) and the
// maximum runs over the expected tensor's finite elements. The last term
// stands for the magnitude of the terms summed into an element: a float32
// kernel's rounding error scales with those terms, not with the (possibly
// cancelled) result, while the reference interpreter accumulates in double.
// An element near zero out of a sum of large terms may differ by a few ulps
// of the tensor's scale; a wrong index or a lost term moves it by far more.
#pragma once
#include <string>
#include <vector>

#include "driver/outputs.h"

namespace stitch {

struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
  double scaleUlps = 8;
};

struct CheckResult {
  bool ok = true;
  double maxAbsError = 0;  // over all elements of all outputs (finite ones)
  std::string mismatch;    // what differs first, when !ok
};

CheckResult compareOutputs(const std::vector<NamedOutput>& got,
                           const std::vector<NamedOutput>& expected,
                           const Tolerance& tolerance = {});

}  // namespace stitch
