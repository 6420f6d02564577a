// Compares two runs' flattened outputs the way `--check` does: same count,
// kinds, dtypes and shapes, and every element within the tolerance rule of
// interp/tolerance.h.
#pragma once
#include <string>
#include <vector>

#include "driver/outputs.h"
#include "interp/tolerance.h"

namespace stitch {

struct CheckResult {
  bool ok = true;
  double maxAbsError = 0;  // over all elements of all outputs (finite ones)
  std::string mismatch;    // what differs first, when !ok
};

CheckResult compareOutputs(const std::vector<NamedOutput>& got,
                           const std::vector<NamedOutput>& expected,
                           const Tolerance& tolerance = {});

}  // namespace stitch
