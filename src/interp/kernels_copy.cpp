// Kernels of the copy ops: each returns a new tensor (to() with an unchanged
// dtype returns its input, as PyTorch does).
#include "interp/copy_ops.h"
#include "interp/kernel_registry.h"

namespace stitch {

void registerCopyKernels(KernelRegistry& r) {
  r.add("clone", [](const Node&, const IValueList& a) -> IValueList {
    return {a[0].toTensor().clone()};
  });
  r.add("cat", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::cat(a[0].toTensorList(), a[1].toInt())};
  });
  r.add("stack", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::stack(a[0].toTensorList(), a[1].toInt())};
  });
  r.add("index_select", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::indexSelect(a[0].toTensor(), a[1].toInt(), a[2].toTensor())};
  });
  r.add("gather", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::gather(a[0].toTensor(), a[1].toInt(), a[2].toTensor())};
  });
  r.add("to", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::to(a[0].toTensor(), a[1].toDType())};
  });
  r.add("repeat", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::repeat(a[0].toTensor(), a[1].toIntList())};
  });
  r.add("flip", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::flip(a[0].toTensor(), a[1].toIntList())};
  });
  r.add("tril", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::tril(a[0].toTensor(), a[1].toInt())};
  });
  r.add("triu", [](const Node&, const IValueList& a) -> IValueList {
    return {copies::triu(a[0].toTensor(), a[1].toInt())};
  });
}

}  // namespace stitch
