// Shared pieces of the elementwise kernels: operands that are tensors or
// Python scalars, PyTorch's type promotion over them, dtype checks with
// PyTorch's messages, and the broadcast-convert-map drivers.
#pragma once
#include <vector>

#include "interp/dtype_dispatch.h"
#include "interp/elementwise_loops.h"
#include "interp/ivalue.h"
#include "ir/elementwise_dtypes.h"
#include "ir/shape_util.h"

namespace stitch {


// One operand of an elementwise op: a tensor or a Python scalar.
class Operand {
 public:
  explicit Operand(const IValue& v);
  bool isTensor() const { return tensor_.defined(); }
  const Tensor& tensor() const { return tensor_; }
  const IValue& scalar() const { return scalar_; }
  PromoteArg promoteArg() const;
  Shape shape() const { return isTensor() ? tensor_.sizes() : Shape{}; }
  bool isBool() const;  // a bool tensor or a Python bool
  // As a tensor of dtype `dt`: the tensor itself when it already has it, a
  // converted copy, or a 0-dim tensor holding the scalar.
  Tensor as(DType dt) const;

 private:
  Tensor tensor_;
  IValue scalar_;
};

DType promoteOperands(const std::vector<Operand>& ops);

// Broadcast shape of the operands (PyTorch's message on mismatch).
Shape broadcastOperands(const std::vector<Operand>& ops);

// out = fn(a) elementwise, computing in `compute`; out is `outArg` if defined
// (it must already have a's shape and the output dtype) else a new tensor of
// `compute` (or bool when BoolOut).
template <TypeSet S, bool BoolOut = false, typename MakeFn>
Tensor mapUnary(const Tensor& a, DType compute, const Tensor& outArg, MakeFn makeFn) {
  Tensor in = a.dtype() == compute ? a : a.to(compute);
  Tensor out = outArg.defined() ? outArg : Tensor::empty(a.sizes(), BoolOut ? DType::b8 : compute);
  dispatchIn<S>(compute, [&]<typename T>() {
    auto fn = makeFn.template operator()<T>();
    if constexpr (BoolOut) unaryLoop<bool, T>(out, in, fn);
    else unaryLoop<T, T>(out, in, fn);
  });
  return out;
}

// out = fn(a, b) over the broadcast of a and b, both converted to `compute`.
template <TypeSet S, bool BoolOut = false, typename MakeFn>
Tensor mapBinary(const Operand& a, const Operand& b, DType compute, const Tensor& outArg,
                 MakeFn makeFn) {
  Shape shape = outArg.defined() ? outArg.sizes() : broadcastOperands({a, b});
  Tensor out = outArg.defined() ? outArg : Tensor::empty(shape, BoolOut ? DType::b8 : compute);
  Tensor ta = a.as(compute).expandTo(shape);
  Tensor tb = b.as(compute).expandTo(shape);
  dispatchIn<S>(compute, [&]<typename T>() {
    auto fn = makeFn.template operator()<T>();
    if constexpr (BoolOut) binaryLoop<bool, T, T>(out, ta, tb, fn);
    else binaryLoop<T, T, T>(out, ta, tb, fn);
  });
  return out;
}

// Scalar arguments as IValues: the value converted to the compute type T.
template <typename T>
T scalarAs(const IValue& v) {
  if (v.isDouble()) return static_cast<T>(v.toDouble());
  return static_cast<T>(v.toInt());
}

}  // namespace stitch
