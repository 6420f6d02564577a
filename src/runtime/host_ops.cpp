#include "runtime/host_ops.h"

#include "interp/kernel_registry.h"

namespace stitch {

IValueList runHostOp(const Node& node, const IValueList& args) {
  const Kernel* op = KernelRegistry::get().find(node.kind());
  if (!op) throw InternalError("internal error: no host implementation for op '" + node.kind() + "'");
  IValueList results = (*op)(node, args);
  STITCH_ASSERT(results.size() == node.outputs().size(), "host op '", node.kind(), "' returned ",
                results.size(), " values for ", node.outputs().size(), " outputs");
  return results;
}

}  // namespace stitch
