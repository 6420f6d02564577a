// What a value is known to be before the program runs: the constants the
// kernel planner, fusion and schedules read off op arguments (dims, sizes,
// None arguments).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace stitch {

// An int constant.
std::optional<int64_t> staticInt(const Value* v);
// An int-list constant, an int constant (as [int]), or a prim.list_construct
// of int constants.
std::optional<std::vector<int64_t>> staticIntList(const Value* v);
// None: a None-typed value or a None constant.
bool isNoneConstant(const Value* v);
// Elements of a shape (1 for a 0-d one).
int64_t numelOfShape(const std::vector<int64_t>& shape);

}  // namespace stitch
