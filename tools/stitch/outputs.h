// A program's results as the command shows and saves them: nested lists
// and tuples flattened in order into out0, out1, ...; a short text summary
// of each; arrays for `--outputs OUT.npz` (scalars become 0-dim arrays:
// int -> i64, float -> f64, bool -> bool).
#pragma once
#include <string>
#include <vector>

#include "npz.h"
#include "stitch/stitch.h"

namespace stitch::cli {

struct NamedOutput {
  std::string name;  // out0, out1, ...
  api::Value value;  // a tensor, a scalar or None; never a list or a tuple
};

std::vector<NamedOutput> flattenOutputs(const std::vector<api::Value>& results);

// "f32", "i64", ...; "int", "float", "bool" for scalars; "None".
std::string outputDType(const api::Value& value);
// The shape; empty for scalars.
std::vector<int64_t> outputShape(const api::Value& value);

struct TensorSummary {
  std::vector<double> first;  // up to `count` leading elements (row-major)
  double sum = 0;
  double mean = 0;  // NaN for an empty tensor
};
TensorSummary summarize(const api::Tensor& tensor, size_t count = 6);

// One line: "out0: f32[2, 3]  [0.1, -0.5, ...]  sum=1.25 mean=0.208"
std::string describeOutput(const NamedOutput& output);

// Throws a userError for an output that is not a tensor or a scalar.
std::vector<NamedTensor> outputsAsArrays(const std::vector<NamedOutput>& outputs);

}  // namespace stitch::cli
