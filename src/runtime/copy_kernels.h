// The predefined copy kernels: clone / contiguous (one strided copy, a
// memcpy when the source is dense), cat and stack (each piece copied into
// its slice of the output). The output is a dense buffer of the node's
// static type, allocated by the caller; every element gets written.
#pragma once
#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch {

// Whether the runtime has a copy routine for this op.
bool isCopyKernelOp(const std::string& op);

// Fills `out` with node's result for args (the node's input values, lists
// resolved). Returns false, writing nothing, when the values do not have
// the shapes the static type promises (the caller then runs the op on the
// host, which reports the error exactly as the interpreter does).
bool runCopyKernel(const Node& node, const IValueList& args, const Tensor& out);

}  // namespace stitch
