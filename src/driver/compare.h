// Compares two runs' flattened outputs the way `--check` does: same count,
// kinds, dtypes and shapes, and every element within
// |a - b| <= atol + rtol * |b| (NaN matches NaN, inf matches the same inf).
#pragma once
#include <string>
#include <vector>

#include "driver/outputs.h"

namespace stitch {

struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
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
