// What the view and copy type rules read from a node's inputs: the known
// parts of a tensor's type and statically known int arguments.
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/shape_util.h"

namespace stitch::rules {

struct TensorInfo {
  std::optional<DType> dtype;
  std::optional<Dims> shape;  // dims may be -1 (unknown)
  int64_t rank() const { return shape ? (int64_t)shape->size() : -1; }
  bool shapeKnown() const;    // rank and every dim known
  int64_t numel() const;      // -1 when not known
};

TensorInfo tensorInfo(const Value* v);
TypePtr tensorType(const std::optional<DType>& dtype, const std::optional<Dims>& shape);
TypePtr tensorType(const TensorInfo& info);
// A shape of `rank` unknown dims, or no shape for rank -1.
std::optional<Dims> unknownShape(int64_t rank);

// An int[] argument with every element known; nullopt otherwise.
std::optional<std::vector<int64_t>> knownIntList(const StaticValues& known, const Value* v);
// An int[] argument whose length is known; unknown elements are kUnknownSize.
std::optional<std::vector<int64_t>> sizeList(const StaticValues& known, const Value* v);
// An int? argument: nullopt for None, and `unknown` set when not constant.
struct OptionalInt {
  std::optional<int64_t> value;
  bool unknown = false;
};
OptionalInt optionalInt(const StaticValues& known, const Value* v);

}  // namespace stitch::rules
