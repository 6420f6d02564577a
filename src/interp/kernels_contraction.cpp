// Interpreter kernels of the contraction family (matmul, mm, bmm, linear,
// einsum); the arithmetic lives in matmul_ops.h and einsum_eval.h.
#include "interp/einsum_eval.h"
#include "interp/kernel_registry.h"
#include "interp/matmul_ops.h"

namespace stitch {

void registerContractionKernels(KernelRegistry& r) {
  r.add("matmul", [](const Node&, const IValueList& a) -> IValueList {
    return {IValue(matmulTensors(a[0].toTensor(), a[1].toTensor()))};
  });
  r.add("mm", [](const Node&, const IValueList& a) -> IValueList {
    return {IValue(mmTensors(a[0].toTensor(), a[1].toTensor()))};
  });
  r.add("bmm", [](const Node&, const IValueList& a) -> IValueList {
    return {IValue(bmmTensors(a[0].toTensor(), a[1].toTensor()))};
  });
  r.add("linear", [](const Node&, const IValueList& a) -> IValueList {
    std::optional<Tensor> bias;
    if (!a[2].isNone()) bias = a[2].toTensor();
    return {IValue(linearTensors(a[0].toTensor(), a[1].toTensor(), bias))};
  });
  r.add("einsum", [](const Node&, const IValueList& a) -> IValueList {
    return {IValue(einsumTensors(a[0].toStr(), a[1].toTensorList()))};
  });
}

}  // namespace stitch
