#include "runtime/host_ops.h"

#include <unordered_map>

#include "interp/kernel_registry.h"
#include "runtime/copy_kernels.h"
#include "runtime/host_products.h"

namespace stitch {

namespace {

// The functional graph's immut.X is a copy of the region the view X covers:
// the interpreter copies so that none of its values share memory. The
// runtime never writes into a value another one still refers to (an assign
// runs in place only on a buffer nothing else holds: in_place_assign.h), so
// it takes the view itself, as PyTorch would: a list element's shape cast or
// a slice a host op reads costs no copy per run. immut.view becomes reshape:
// a view where the strides allow one, else a copy.
const Kernel* aliasingTwin(const std::string& kind) {
  static const std::unordered_map<std::string, std::string> twins = {
      {"immut.select", "select"},       {"immut.slice", "slice"},       {"immut.view", "reshape"},
      {"immut.permute", "permute"},     {"immut.transpose", "transpose"}, {"immut.unsqueeze", "unsqueeze"},
      {"immut.squeeze", "squeeze"},     {"immut.expand", "expand"},
  };
  auto it = twins.find(kind);
  return it == twins.end() ? nullptr : KernelRegistry::get().find(it->second);
}

}  // namespace

HostOp findHostOp(const Node& node) {
  HostOp found;
  found.product = isHostProductOp(node);
  found.op = aliasingTwin(node.kind());
  // reshape copies where the strides allow no view: it may read data.
  found.aliases = found.op && node.kind() != "immut.view";
  found.appends = node.kind() == "list.append";
  found.copies = isCopyKernelOp(node.kind()) && node.outputs().size() == 1;
  found.reshapes = node.kind() == "immut.view";
  found.readsShapes = node.is("list.len") || node.is("size") || node.is("dim") || node.is("numel") ||
                      node.is("prim.dtype");
  found.extracts = node.is("list.get") || node.is("prim.tuple_index") || node.is("prim.list_unpack") ||
                   node.is("prim.tuple_unpack");
  if (!found.op) found.op = KernelRegistry::get().find(node.kind());
  return found;
}

IValueList runHostOp(const HostOp& op, const Node& node, const IValueList& args) {
  if (op.product && args.size() == 2 && args[0].isTensor() && args[1].isTensor()) {
    if (std::optional<Tensor> product = fewRowProduct(args[0].toTensor(), args[1].toTensor()))
      return {IValue(std::move(*product))};
  }
  if (!op.op) throw InternalError("internal error: no host implementation for op '" + node.kind() + "'");
  IValueList results = (*op.op)(node, args);
  STITCH_ASSERT(results.size() == node.outputs().size(), "host op '", node.kind(), "' returned ",
                results.size(), " values for ", node.outputs().size(), " outputs");
  return results;
}

}  // namespace stitch
