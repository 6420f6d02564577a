// Compile-time evaluation of the scalar and list computations shape
// inference can see through: Python scalar arithmetic (scalar.*), list ops on
// int lists, size()/dim()/numel() of tensors with known shapes. This is what
// makes `x.shape[0]` or `range(x.size(0))` statically known.
#pragma once
#include <map>
#include <optional>
#include <variant>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace stitch {

// An int list whose length is known and some elements maybe not.
using PartialIntList = std::vector<std::optional<int64_t>>;
// What is statically known about one value: nothing, a constant, a
// partially known int list, or that it is another value (a tuple element, the
// live branch's result) and knows what that one knows.
using StaticValue = std::variant<std::monostate, Constant, PartialIntList, const Value*>;

// StaticValues that also knows the values shape inference has propagated.
class PropagatedValues : public StaticValues {
 public:
  const Constant* constant(const Value* v) const override;
  std::optional<PartialIntList> intList(const Value* v) const override;
  std::optional<std::vector<TypePtr>> listElementTypes(const Value* v) const override;
  void set(const Value* v, StaticValue s);

 private:
  const Value* resolve(const Value* v) const;
  std::map<const Value*, Constant> constants_;
  std::map<const Value*, PartialIntList> lists_;
  std::map<const Value*, const Value*> aliases_;
};

// The static value of each of n's outputs (monostate where not known).
// Never throws for values that would fail at run time (e.g. 1 // 0): those
// stay unknown and fail when run.
std::vector<StaticValue> evaluateStatically(const Node& n, const PropagatedValues& known);

}  // namespace stitch
