// Out-of-place elementwise kernels: arithmetic, comparisons, logical and
// bitwise ops, unary math, clamp, where, masked_fill, lerp.
#include <cmath>
#include <type_traits>

#include "interp/elementwise_ops.h"
#include "interp/kernel_registry.h"
#include "interp/scalar_math.h"

namespace stitch {

namespace {

const char* kAlphaOps[] = {"add", "sub", "rsub"};
const char* kBinaryOps[] = {"mul", "div", "floor_divide", "remainder", "pow", "atan2", "rdiv",
                            "rpow", "rfloor_divide", "rremainder", "maximum", "minimum", "eq",
                            "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                            "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"};
const char* kUnaryOps[] = {"exp",   "log",  "sqrt",   "rsqrt",   "sin",   "cos",        "tanh",
                           "sigmoid", "silu", "erf",  "reciprocal", "log1p", "expm1",   "log2",
                           "exp2",  "tan",  "asin",   "acos",    "atan",  "sinh",       "cosh",
                           "neg",   "abs",  "relu",   "floor",   "ceil",  "sign",       "round",
                           "trunc", "square", "logical_not", "bitwise_not", "isnan"};

IValueList unaryKernel(const std::string& op, const IValueList& args) {
  const Tensor& self = args.at(0).toTensor();
  ElementwiseTypes types = unaryOpTypes(op, self.dtype());
  std::string approximate = op == "gelu" ? args.at(1).toStr() : "none";
  return {unaryElementwise(op, self, types.compute, Tensor(), approximate)};
}

IValueList clampKernel(const IValueList& args) {
  const Tensor& self = args.at(0).toTensor();
  const IValue &min = args.at(1), &max = args.at(2);
  std::optional<PromoteArg> pmin, pmax;
  if (!min.isNone()) pmin = Operand(min).promoteArg();
  if (!max.isNone()) pmax = Operand(max).promoteArg();
  DType compute = clampResultType(tensorArg(self.dtype(), self.dim()), pmin, pmax);
  if (!min.isTensor() && !max.isTensor()) return {clampScalar(self, min, max, compute)};
  // Tensor bounds: max(self, min) then min(., max), NaN from any side wins.
  Operand x(args.at(0));
  Tensor result = self;
  if (!min.isNone()) {
    result = mapBinary<TypeSet::Numeric>(x, Operand(min), compute, Tensor(), []<typename T>() {
      return [](T a, T b) -> T { return maxPropagateNan(a, b); };
    });
  }
  if (!max.isNone()) {
    Operand lhs = min.isNone() ? x : Operand(IValue(result));
    result = mapBinary<TypeSet::Numeric>(lhs, Operand(max), compute, Tensor(), []<typename T>() {
      return [](T a, T b) -> T { return minPropagateNan(a, b); };
    });
  }
  return {result};
}

IValueList whereKernel(const IValueList& args) {
  const Tensor& cond = args.at(0).toTensor();
  Operand a(args.at(1)), b(args.at(2));
  DType t = whereResultType(cond.dtype(), a.promoteArg(), b.promoteArg());
  Shape shape = broadcastShapes(cond.sizes(), broadcastOperands({a, b}));
  Tensor out = Tensor::empty(shape, t);
  Tensor c = cond.expandTo(shape), ta = a.as(t).expandTo(shape), tb = b.as(t).expandTo(shape);
  dispatchDType(t, [&]<typename T>() {
    ternaryLoop<T, bool, T, T>(out, c, ta, tb, [](bool k, T x, T y) { return k ? x : y; });
  });
  return {out};
}

IValueList maskedFillKernel(const IValueList& args) {
  const Tensor& self = args.at(0).toTensor();
  const Tensor& mask = args.at(1).toTensor();
  checkMaskDType(mask.dtype());
  Shape shape = broadcastShapes(self.sizes(), mask.sizes());
  Tensor out = self.expandTo(shape).clone();
  maskedFillInto(out, mask, args.at(2));
  return {out};
}

IValueList lerpKernel(const IValueList& args) {
  const Tensor& self = args.at(0).toTensor();
  const Tensor& end = args.at(1).toTensor();
  checkLerpTypes(self.dtype(), end.dtype());
  double w = args.at(2).toDouble();
  Tensor out = mapBinary<TypeSet::Floating>(Operand(args.at(0)), Operand(args.at(1)),
                                            self.dtype(), Tensor(), [&]<typename T>() {
    T weight = T(w);
    return [weight](T x, T y) -> T {
      T diff = y - x;
      return weight < T(0.5) ? x + weight * diff : y - diff * (T(1) - weight);
    };
  });
  return {out};
}

}  // namespace

void requireBroadcastsTo(const Shape& self, const Shape& other) {
  Shape b = broadcastShapes(self, other);
  if (b == self) return;
  throw UserError(errorMessage("output with shape ", shapeToString(self),
                               " doesn't match the broadcast shape ", shapeToString(b)));
}

IValue fillValue(const IValue& value, const char* op) {
  if (!value.isTensor()) return value;
  const Tensor& t = value.toTensor();
  if (t.dim() != 0) {
    if (std::string(op) == "fill_") {
      throw UserError(errorMessage("fill_ only supports 0-dimension value tensor but got tensor with ",
                                   t.dim(), " dimensions."));
    }
    throw UserError(errorMessage(op, " only supports a 0-dimensional value tensor, but got tensor with ",
                                 t.dim(), " dimension(s)."));
  }
  if (isFloating(t.dtype())) return IValue(t.item());
  if (t.dtype() == DType::b8) return IValue(t.getInt(0) != 0);
  return IValue(t.getInt(0));
}

void maskedFillInto(const Tensor& self, const Tensor& maskIn, const IValue& valueIn) {
  checkMaskDType(maskIn.dtype());
  requireBroadcastsTo(self.sizes(), maskIn.sizes());
  IValue value = fillValue(valueIn, "masked_fill_");
  Tensor mask = maskIn;
  if (mask.dtype() != DType::b8) {
    // PyTorch still takes 0/1 integer masks.
    Tensor asBool = mask.to(DType::b8), back = asBool.to(mask.dtype());
    Tensor differs = mapBinary<TypeSet::All, true>(Operand(IValue(mask)), Operand(IValue(back)),
                                                   mask.dtype(), Tensor(), []<typename T>() {
      return [](T x, T y) { return x != y; };
    });
    for (int64_t i = 0; i < differs.numel(); ++i)
      if (differs.getInt(i)) throw RuntimeFailure("Mask tensor can take 0 and 1 values only");
    mask = asBool;
  }
  Tensor m = mask.expandTo(self.sizes());
  dispatchDType(self.dtype(), [&]<typename T>() {
    const T v = scalarAs<T>(value);
    T* po = elemPtr<T>(self, 0);
    const bool* pm = elemPtr<const bool>(m, 0);
    forEachRow<2>(self.sizes(), {&self.strides(), &m.strides()}, {self.offset(), m.offset()},
                  [=](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                    T* o = po + off[0];
                    const bool* k = pm + off[1];
                    for (int64_t i = 0; i < n; ++i)
                      if (k[i * st[1]]) o[i * st[0]] = v;
                  });
  });
}

void registerElementwiseKernels(KernelRegistry& r) {
  for (const char* op : kAlphaOps) {
    std::string name = op;
    r.add(name, [name](const Node&, const IValueList& args) { return binaryKernel(name, args, true); });
  }
  for (const char* op : kBinaryOps) {
    std::string name = op;
    r.add(name, [name](const Node&, const IValueList& args) { return binaryKernel(name, args, false); });
  }
  for (const char* op : kUnaryOps) {
    std::string name = op;
    r.add(name, [name](const Node&, const IValueList& args) { return unaryKernel(name, args); });
  }
  r.add("gelu", [](const Node&, const IValueList& args) { return unaryKernel("gelu", args); });
  r.add("clamp", [](const Node&, const IValueList& args) { return clampKernel(args); });
  r.add("where", [](const Node&, const IValueList& args) { return whereKernel(args); });
  r.add("masked_fill", [](const Node&, const IValueList& args) { return maskedFillKernel(args); });
  r.add("lerp", [](const Node&, const IValueList& args) { return lerpKernel(args); });
}

}  // namespace stitch
