// Assign ops (FuncTs' `immut.X_rev(base, src, ...)`, `immut.assign(base,
// src)`) return a copy of `base` with a region replaced. When nothing else
// can see `base` any more (its value dies at the op and no other value,
// list or caller shares its storage), the runtime writes the region into
// `base` itself and hands it on as the result: O(region) instead of a full
// copy. A loop that writes one row or element per iteration
// (`y[i] = ...`, functionalized into select_rev) is linear, not quadratic.
#pragma once
#include <functional>

#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch {

// Whether the runtime can run `node` in place (given a dead, unshared base):
// immut.X_rev for a plain view X other than expand (an expanded region
// repeats elements), or immut.assign.
bool isInPlaceAssignOp(const Node& node);

// The interpreter's kernel of a forward view (interp/kernel_registry.h).
using ViewKernel = std::function<IValueList(const Node& node, const IValueList& args)>;

// The forward view kernel of such an op (select for immut.select_rev), null
// for immut.assign: looked up once per node, not per run.
const ViewKernel* inPlaceView(const Node& node);

// Writes args[1] into the region of args[0] (a tensor no one else sees) that
// `node` names, exactly as the op's out-of-place kernel would, and returns
// args[0]. `view` is inPlaceView(node). Errors are the interpreter's (bad
// index, shape mismatch).
Tensor assignInPlace(const Node& node, const ViewKernel* view, const IValueList& args);

}  // namespace stitch
