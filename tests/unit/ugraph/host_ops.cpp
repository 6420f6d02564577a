#include "host_ops.h"

#include "interp/kernel_registry.h"

namespace stitch::ugraph_test {

IValueList runHostNode(const Node& node, const IValueList& args) {
  if (node.is("prim.constant")) return {IValue::fromConstant(node.attr("value"))};
  const auto* kernel = KernelRegistry::get().find(node.kind());
  STITCH_ASSERT(kernel != nullptr, "no interpreter kernel for ", node.kind());
  return (*kernel)(node, args);
}

}  // namespace stitch::ugraph_test
