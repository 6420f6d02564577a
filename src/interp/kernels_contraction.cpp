// Interpreter kernels of the contraction family (matmul, mm, bmm, linear,
// einsum, fused.attention); the arithmetic lives in matmul_ops.h and
// einsum_eval.h.
#include "interp/along_dim_ops.h"
#include "interp/einsum_eval.h"
#include "interp/elementwise_ops.h"
#include "interp/kernel_registry.h"
#include "interp/matmul_ops.h"
#include "interp/view_ops.h"

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
  // The chain it replaces, op by op, with the interpreter's own routines:
  // the same values as interpreting the chain, scale aside (a division by
  // c became a multiplication by 1 / c).
  r.add("fused.attention", [](const Node&, const IValueList& a) -> IValueList {
    Tensor scores = matmulTensors(a[0].toTensor(), views::transpose(a[1].toTensor(), -2, -1));
    Tensor scaled = binaryKernel("mul", {IValue(scores), a[3]}, false).at(0).toTensor();
    return {IValue(matmulTensors(softmaxAlongDim(scaled, -1, std::nullopt, false), a[2].toTensor()))};
  });
}

}  // namespace stitch
