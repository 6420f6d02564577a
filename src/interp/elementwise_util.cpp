#include "interp/elementwise_util.h"

namespace stitch {

Operand::Operand(const IValue& v) {
  if (v.isTensor()) {
    tensor_ = v.toTensor();
    return;
  }
  STITCH_ASSERT(v.isScalar(), "elementwise operand is neither a tensor nor a scalar: ", v.str());
  scalar_ = v;
}

PromoteArg Operand::promoteArg() const {
  if (isTensor()) return tensorArg(tensor_.dtype(), tensor_.dim());
  switch (scalar_.scalarKind()) {
    case ScalarKind::Bool: return boolScalarArg();
    case ScalarKind::Int: return intScalarArg();
    case ScalarKind::Float: return floatScalarArg();
  }
  return floatScalarArg();
}

bool Operand::isBool() const {
  return isTensor() ? tensor_.dtype() == DType::b8 : scalar_.isBool();
}

Tensor Operand::as(DType dt) const {
  if (isTensor()) return tensor_.dtype() == dt ? tensor_ : tensor_.to(dt);
  if (scalar_.isDouble()) return scalarTensor(scalar_.toDouble(), dt);
  return scalarTensorInt(scalar_.toInt(), dt);
}

DType promoteOperands(const std::vector<Operand>& ops) {
  std::vector<PromoteArg> args;
  for (const Operand& o : ops) args.push_back(o.promoteArg());
  return resultType(args);
}

Shape broadcastOperands(const std::vector<Operand>& ops) {
  Shape shape;
  for (const Operand& o : ops) shape = broadcastShapes(shape, o.shape());
  return shape;
}

}  // namespace stitch
