// In-place kernels: they write into the given tensor (which may be a strided
// view of another, so the base sees the writes) and return it. As in
// PyTorch, the result dtype must be castable to self's dtype and self's
// shape must not grow by broadcasting.
#include "interp/elementwise_ops.h"
#include "interp/kernel_registry.h"
#include "interp/mem_overlap.h"
#include "interp/view_ops.h"
#include "ir/graph.h"

namespace stitch {

namespace {

// Reads of `other` that overlap self's memory must see the old values.
Operand detachFrom(const Tensor& self, const Operand& other) {
  if (!other.isTensor() || !other.tensor().sameStorage(self)) return other;
  return Operand(IValue(other.tensor().clone()));
}

IValueList binaryInPlace(const std::string& op, const IValueList& args, bool hasAlpha) {
  const Tensor& self = args.at(0).toTensor();
  Operand selfOp(args.at(0)), other(args.at(1));
  ElementwiseTypes types = binaryOpTypes(op, selfOp.promoteArg(), other.promoteArg());
  IValue alpha = hasAlpha ? args.at(2) : IValue();
  if (hasAlpha) checkAlpha(types.compute, alpha.scalarKind());
  if (op == "pow_" && !isFloating(types.compute) && !other.isTensor() && other.scalar().isInt() &&
      other.scalar().toInt() < 0) {
    throw UserError("Integers to negative integer powers are not allowed.");
  }
  requireCastable(types.out, self.dtype());
  requireBroadcastsTo(self.sizes(), other.shape());
  checkNoInternalOverlap(self);
  if (other.isTensor()) checkNoOverlap(self, other.tensor());
  other = detachFrom(self, other);
  if (types.out == self.dtype()) {
    binaryElementwise(op, selfOp, other, alpha, types.compute, self);
  } else {
    self.copyFrom(binaryElementwise(op, selfOp, other, alpha, types.compute));
  }
  return {args.at(0)};
}

IValueList unaryInPlace(const std::string& op, const IValueList& args) {
  const Tensor& self = args.at(0).toTensor();
  ElementwiseTypes types = unaryOpTypes(op, self.dtype());
  requireCastable(types.out, self.dtype());
  checkNoInternalOverlap(self);
  if (types.out == self.dtype() && types.compute == self.dtype()) {
    unaryElementwise(op, self, types.compute, self);
  } else {
    self.copyFrom(unaryElementwise(op, self, types.compute));
  }
  return {args.at(0)};
}

IValueList clampInPlace(const IValueList& args) {
  const Tensor& self = args.at(0).toTensor();
  const IValue &min = args.at(1), &max = args.at(2);
  std::optional<PromoteArg> pmin, pmax;
  if (!min.isNone()) pmin = Operand(min).promoteArg();
  if (!max.isNone()) pmax = Operand(max).promoteArg();
  DType compute = clampResultType(tensorArg(self.dtype(), self.dim()), pmin, pmax);
  requireCastable(compute, self.dtype());
  checkNoInternalOverlap(self);
  if (compute == self.dtype()) clampScalar(self, min, max, compute, self);
  else self.copyFrom(clampScalar(self, min, max, compute));
  return {args.at(0)};
}

IValueList fillInPlace(const IValueList& args) {
  Tensor self = args.at(0).toTensor();
  IValue v = fillValue(args.at(1), "fill_");
  if (v.isDouble()) self.fill(v.toDouble());
  else self.fillInt(v.toInt());
  return {args.at(0)};
}

// The copy_ of a subscript assignment, x[i] = v: its source is
// prim.setitem_value(v).
bool copiesSetitemValue(const Node& n) {
  const Value* src = n.input(1);
  return !src->isBlockParam() && src->node()->is("prim.setitem_value");
}

// PyTorch: copying a view onto itself does nothing; any other overlap of
// dense memory is an error; undecidable layouts copy via a temporary.
// Subscript assignment expands the value to the destination before the
// copy (PyTorch's copy_to), so that is what the checks see: a broadcast
// value (stride 0) is undecidable, a value equal to the destination a no-op.
IValueList copyInPlace(const Node& n, const IValueList& args) {
  const Tensor& self = args.at(0).toTensor();
  Tensor src = args.at(1).toTensor();
  requireBroadcastsTo(self.sizes(), src.sizes());
  if (copiesSetitemValue(n)) src = views::expand(src, self.sizes());
  if (sameView(self, src)) return {args.at(0)};
  checkNoInternalOverlap(self);
  checkNoOverlap(self, src);
  self.copyFrom(src);
  return {args.at(0)};
}

const char* kAlphaOps[] = {"add_", "sub_"};
const char* kBinaryOps[] = {"mul_", "div_", "pow_", "floor_divide_", "remainder_",
                            "bitwise_and_", "bitwise_or_", "bitwise_xor_"};
const char* kUnaryOps[] = {"relu_", "sigmoid_", "tanh_", "exp_", "neg_", "abs_", "sqrt_"};

}  // namespace

void registerInPlaceKernels(KernelRegistry& r) {
  r.add("copy_", [](const Node& n, const IValueList& args) { return copyInPlace(n, args); });
  for (const char* op : kAlphaOps) {
    std::string name = op;
    r.add(name, [name](const Node&, const IValueList& args) { return binaryInPlace(name, args, true); });
  }
  for (const char* op : kBinaryOps) {
    std::string name = op;
    r.add(name, [name](const Node&, const IValueList& args) { return binaryInPlace(name, args, false); });
  }
  for (const char* op : kUnaryOps) {
    std::string name = op;
    r.add(name, [name](const Node&, const IValueList& args) { return unaryInPlace(name, args); });
  }
  r.add("clamp_", [](const Node&, const IValueList& args) { return clampInPlace(args); });
  r.add("zero_", [](const Node&, const IValueList& args) {
    Tensor self = args.at(0).toTensor();
    self.fillInt(0);
    return IValueList{args.at(0)};
  });
  r.add("fill_", [](const Node&, const IValueList& args) { return fillInPlace(args); });
  r.add("masked_fill_", [](const Node&, const IValueList& args) {
    maskedFillInto(args.at(0).toTensor(), args.at(1).toTensor(), args.at(2));
    return IValueList{args.at(0)};
  });
}

}  // namespace stitch
