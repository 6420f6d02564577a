// Tensor creation: zeros, ones, empty, full, arange, *_like, scalar_tensor.
#include <cmath>
#include <random>

#include "interp/dtype_dispatch.h"
#include "interp/kernel_registry.h"
#include "ir/creation_dtypes.h"
#include "ir/graph.h"

namespace stitch {

namespace {

using Args = const IValueList&;

std::optional<DType> optionalDType(const IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toDType();
}

ScalarKind kindOf(const IValue& v) { return v.scalarKind(); }

// Writes a Python scalar into every element, exactly for ints.
void fillWith(const Tensor& t, const IValue& v) {
  if (v.isDouble()) t.fill(v.toDouble());
  else t.fillInt(v.toInt());
}

Tensor filled(const Shape& size, DType dtype, const IValue& v) {
  Tensor t = Tensor::empty(size, dtype);
  fillWith(t, v);
  return t;
}

IValueList arangeKernel(Args a) {
  // arange(end, dtype) or arange(start, end, step, dtype).
  bool full = a.size() == 4;
  IValue start = full ? a[0] : IValue(int64_t(0));
  IValue end = full ? a[1] : a[0];
  IValue step = full ? a[2] : IValue(int64_t(1));
  std::optional<DType> requested = optionalDType(full ? a[3] : a[1]);
  DType dtype = arangeDType({kindOf(start), kindOf(end), kindOf(step)}, requested);
  int64_t n = arangeLength(start.toDouble(), end.toDouble(), step.toDouble(), dtype);
  Tensor out = Tensor::empty({n}, dtype);
  // Integer dtypes count in integers (PyTorch truncates the bounds first).
  bool exactInts = !isFloating(dtype);
  dispatchDType(dtype, [&]<typename T>() {
    T* p = out.data<T>();
    if (exactInts) {
      int64_t s = (int64_t)std::trunc(start.toDouble()), st = (int64_t)std::trunc(step.toDouble());
      if (!start.isDouble()) s = start.toInt();
      if (!step.isDouble()) st = step.toInt();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(s + i * st);
      return;
    }
    double s = start.toDouble(), st = step.toDouble();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(s + (double)i * st);
  });
  return {out};
}

IValueList randLike(Args a) {
  const Tensor& self = a.at(0).toTensor();
  DType dtype = optionalDType(a.at(1)).value_or(self.dtype());
  checkRandDType(dtype);
  // A fixed seed keeps interpreter runs reproducible.
  static std::mt19937_64 generator(0x5eed);
  // Values k / 2^bits with as many bits as the dtype's mantissa holds, so
  // every one is exact and below 1 (a double in [0, 1) rounded to float can
  // become 1.0f, which torch.rand never returns).
  int bits = dtype == DType::f32 ? 24 : 53;
  double scale = std::ldexp(1.0, -bits);
  Tensor out = Tensor::empty(self.sizes(), dtype);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setDouble(i, double(generator() >> (64 - bits)) * scale);
  return {out};
}

}  // namespace

void registerCreationKernels(KernelRegistry& r) {
  r.add("zeros", [](const Node&, Args a) {
    return IValueList{Tensor::empty(a.at(0).toIntList(), creationDType(optionalDType(a.at(1))))};
  });
  r.add("empty", [](const Node&, Args a) {
    return IValueList{Tensor::empty(a.at(0).toIntList(), creationDType(optionalDType(a.at(1))))};
  });
  r.add("ones", [](const Node&, Args a) {
    DType dtype = creationDType(optionalDType(a.at(1)));
    return IValueList{filled(a.at(0).toIntList(), dtype, IValue(int64_t(1)))};
  });
  r.add("full", [](const Node&, Args a) {
    DType dtype = fullDType(kindOf(a.at(1)), optionalDType(a.at(2)));
    return IValueList{filled(a.at(0).toIntList(), dtype, a.at(1))};
  });
  r.add("arange", [](const Node&, Args a) { return arangeKernel(a); });
  r.add("zeros_like", [](const Node&, Args a) {
    const Tensor& self = a.at(0).toTensor();
    return IValueList{Tensor::empty(self.sizes(), optionalDType(a.at(1)).value_or(self.dtype()))};
  });
  r.add("empty_like", [](const Node&, Args a) {
    const Tensor& self = a.at(0).toTensor();
    return IValueList{Tensor::empty(self.sizes(), optionalDType(a.at(1)).value_or(self.dtype()))};
  });
  r.add("ones_like", [](const Node&, Args a) {
    const Tensor& self = a.at(0).toTensor();
    DType dtype = optionalDType(a.at(1)).value_or(self.dtype());
    return IValueList{filled(self.sizes(), dtype, IValue(int64_t(1)))};
  });
  r.add("full_like", [](const Node&, Args a) {
    const Tensor& self = a.at(0).toTensor();
    DType dtype = optionalDType(a.at(2)).value_or(self.dtype());
    return IValueList{filled(self.sizes(), dtype, a.at(1))};
  });
  r.add("scalar_tensor", [](const Node&, Args a) {
    DType dtype = creationDType(optionalDType(a.at(1)));
    return IValueList{filled({}, dtype, a.at(0))};
  });
  r.add("rand_like", [](const Node&, Args a) { return randLike(a); });
}

}  // namespace stitch
