// A program's results as the CLI shows and saves them: nested lists and
// tuples flattened in order into out0, out1, ...; a short text summary of
// each; conversion to arrays for `--outputs OUT.npz` (scalars become 0-dim
// arrays: int -> i64, float -> f64, bool -> bool).
#pragma once
#include <string>
#include <vector>

#include "driver/npz.h"
#include "interp/ivalue.h"

namespace stitch {

struct NamedOutput {
  std::string name;  // out0, out1, ...
  IValue value;      // a tensor, scalar, None, str or dtype; never a list
};

std::vector<NamedOutput> flattenOutputs(const IValueList& results);

// "f32", "i64", ...; "int", "float", "bool" for scalars; "None" ...
std::string outputDType(const IValue& value);
// The shape; empty for scalars.
std::vector<int64_t> outputShape(const IValue& value);

struct TensorSummary {
  std::vector<double> first;  // up to `count` leading elements (row-major)
  double sum = 0;
  double mean = 0;  // NaN for an empty tensor
};
TensorSummary summarize(const Tensor& tensor, size_t count = 6);

// One line: "out0: f32[2, 3]  [0.1, -0.5, ...]  sum=1.25 mean=0.208"
std::string describeOutput(const NamedOutput& output);

// Throws UserError for an output that is not a tensor or a scalar.
std::vector<NamedTensor> outputsAsArrays(const std::vector<NamedOutput>& outputs);

}  // namespace stitch
