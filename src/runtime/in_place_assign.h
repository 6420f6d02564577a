// Assign ops (FuncTs' `immut.X_rev(base, src, ...)`, `immut.assign(base,
// src)`) return a copy of `base` with a region replaced. When nothing else
// can see `base` any more (its value dies at the op and no other value,
// list or caller shares its storage), the runtime writes the region into
// `base` itself and hands it on as the result: O(region) instead of a full
// copy. A loop that writes one row or element per iteration
// (`y[i] = ...`, functionalized into select_rev) is linear, not quadratic.
#pragma once
#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch {

// Whether the runtime can run `node` in place (given a dead, unshared base):
// immut.X_rev for a plain view X other than expand (an expanded region
// repeats elements), or immut.assign.
bool isInPlaceAssignOp(const Node& node);

// Writes args[1] into the region of args[0] (a tensor no one else sees) that
// `node` names, exactly as the op's out-of-place kernel would, and returns
// args[0]. Errors are the interpreter's (bad index, shape mismatch).
Tensor assignInPlace(const Node& node, const IValueList& args);

}  // namespace stitch
