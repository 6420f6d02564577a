#include "driver/outputs.h"

namespace stitch {

namespace {

void flattenInto(const IValue& v, std::vector<NamedOutput>& out) {
  if (v.isList() || v.isTuple()) {
    for (const IValue& e : v.toList()) flattenInto(e, out);
    return;
  }
  out.push_back({"out" + std::to_string(out.size()), v});
}

}  // namespace

std::vector<NamedOutput> flattenOutputs(const IValueList& results) {
  std::vector<NamedOutput> out;
  for (const IValue& v : results) flattenInto(v, out);
  return out;
}

std::string outputDType(const IValue& value) {
  if (value.isTensor()) return dtypeName(value.toTensor().dtype());
  if (value.isBool()) return "bool";
  if (value.isInt()) return "int";
  if (value.isDouble()) return "float";
  if (value.isNone()) return "None";
  if (value.isStr()) return "str";
  if (value.isDType()) return "dtype";
  return "list";
}

}  // namespace stitch
