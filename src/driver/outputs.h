// A program's results flattened in order into out0, out1, ... (nested
// lists and tuples opened up), the unit that --check compares.
#pragma once
#include <string>
#include <vector>

#include "interp/ivalue.h"

namespace stitch {

struct NamedOutput {
  std::string name;  // out0, out1, ...
  IValue value;      // a tensor, scalar, None, str or dtype; never a list
};

std::vector<NamedOutput> flattenOutputs(const IValueList& results);

// "f32", "i64", ...; "int", "float", "bool" for scalars; "None" ...
std::string outputDType(const IValue& value);

}  // namespace stitch
