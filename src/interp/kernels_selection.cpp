// Kernels of the selection ops; the in-place ones write the out-of-place
// result back into self (through its strides, self may be a view).
#include "interp/kernel_registry.h"
#include "interp/selection_ops.h"

namespace stitch {

namespace {

IValueList inPlace(const IValueList& a, const Tensor& result) {
  a[0].toTensor().copyFrom(result);
  return {a[0]};
}

Tensor scatterOf(const IValueList& a, bool add) {
  if (a[3].isTensor())
    return selection::scatter(a[0].toTensor(), a[1].toInt(), a[2].toTensor(), a[3].toTensor(), add);
  return selection::scatterValue(a[0].toTensor(), a[1].toInt(), a[2].toTensor(), a[3]);
}

}  // namespace

void registerSelectionKernels(KernelRegistry& r) {
  r.add("sort", [](const Node&, const IValueList& a) -> IValueList {
    auto [values, indices] = selection::sort(a[0].toTensor(), a[1].toInt(), a[2].toBool(), a[3].toBool());
    return {values, indices};
  });
  r.add("argsort", [](const Node&, const IValueList& a) -> IValueList {
    return {selection::sort(a[0].toTensor(), a[1].toInt(), a[2].toBool(), a[3].toBool()).second};
  });
  r.add("topk", [](const Node&, const IValueList& a) -> IValueList {
    auto [values, indices] =
        selection::topk(a[0].toTensor(), a[1].toInt(), a[2].toInt(), a[3].toBool(), a[4].toBool());
    return {values, indices};
  });
  r.add("nonzero", [](const Node&, const IValueList& a) -> IValueList {
    return {selection::nonzero(a[0].toTensor())};
  });
  r.add("masked_select", [](const Node&, const IValueList& a) -> IValueList {
    return {selection::maskedSelect(a[0].toTensor(), a[1].toTensor())};
  });
  r.add("index.get", [](const Node&, const IValueList& a) -> IValueList {
    return {selection::indexGet(a[0].toTensor(), a[1].toInt(), a[2].toTensor())};
  });
  auto put = [](const IValueList& a) {
    return selection::indexPut(a[0].toTensor(), a[1].toInt(), a[2].toTensor(), a[3].toTensor(),
                               a[4].toBool());
  };
  r.add("index.put", [put](const Node&, const IValueList& a) -> IValueList { return {put(a)}; });
  r.add("index.put_", [put](const Node&, const IValueList& a) { return inPlace(a, put(a)); });
  for (bool add : {false, true}) {
    std::string name = add ? "scatter_add" : "scatter";
    r.add(name, [add](const Node&, const IValueList& a) -> IValueList { return {scatterOf(a, add)}; });
    r.add(name + "_", [add](const Node&, const IValueList& a) { return inPlace(a, scatterOf(a, add)); });
  }
}

}  // namespace stitch
