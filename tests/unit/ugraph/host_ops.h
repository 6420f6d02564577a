// Runs one host op with the interpreter's kernel (kept in its own file: the
// interpreter's `Kernel` alias and the kernel IR's `Kernel` struct share a
// name).
#pragma once
#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch::ugraph_test {

IValueList runHostNode(const Node& node, const IValueList& args);

}  // namespace stitch::ugraph_test
