// Static shape/dtype rules of the contraction family. They share shapes,
// checks and messages with the interpreter's kernels
// (ir/contraction_shapes.h, ir/einsum_spec.h).
#include "ir/contraction_shapes.h"
#include "ir/einsum_spec.h"
#include "ir/type_rules/rule_args.h"
#include "ir/type_rules/type_rules.h"

namespace stitch {

namespace {

using rules::TensorInfo;
using rules::tensorInfo;
using rules::tensorType;
using TypeList = std::vector<TypePtr>;

std::optional<DType> productDType(const TensorInfo& a, const TensorInfo& b) {
  if (!a.dtype || !b.dtype) return std::nullopt;
  return matmulDType(*a.dtype, *b.dtype, a.rank(), b.rank());
}

TypeList matmulRule(const Node& n, const StaticValues&) {
  TensorInfo a = tensorInfo(n.input(0)), b = tensorInfo(n.input(1));
  std::optional<Dims> shape;
  if (a.shape && b.shape) shape = matmulShape(*a.shape, *b.shape);
  return {tensorType(productDType(a, b), shape)};
}

// mm / bmm: fixed ranks, so the output rank is known even without shapes.
TypeList fixedRankRule(const Node& n, int64_t rank) {
  TensorInfo a = tensorInfo(n.input(0)), b = tensorInfo(n.input(1));
  Dims as = a.shape.value_or(Dims(rank, -1)), bs = b.shape.value_or(Dims(rank, -1));
  Dims shape = rank == 2 ? mmShape(as, bs) : bmmShape(as, bs);
  std::optional<DType> dtype;
  if (a.dtype && b.dtype) dtype = matmulDType(*a.dtype, *b.dtype, rank, rank);
  return {tensorType(dtype, shape)};
}

TypeList linearRule(const Node& n, const StaticValues& known) {
  TensorInfo x = tensorInfo(n.input(0)), w = tensorInfo(n.input(1));
  bool hasBias = !known.isNone(n.input(2));
  TensorInfo bias = hasBias ? tensorInfo(n.input(2)) : TensorInfo{};
  std::optional<DType> dtype;
  if (x.dtype && w.dtype) {
    int64_t wRank = w.rank() == 2 ? 2 : w.rank();
    dtype = matmulDType(*x.dtype, *w.dtype, x.rank(), wRank);
    if (hasBias && bias.dtype) checkLinearBiasDType(*dtype, *bias.dtype);
  }
  std::optional<Dims> shape;
  if (x.shape && w.shape && (!hasBias || bias.shape)) {
    std::optional<Dims> biasShape;
    if (hasBias) biasShape = bias.shape;
    shape = linearShape(*x.shape, *w.shape, biasShape);
  }
  return {tensorType(dtype, shape)};
}

TypeList einsumRule(const Node& n, const StaticValues& known) {
  const Constant* eqConst = known.constant(n.input(0));
  auto elemTypes = known.listElementTypes(n.input(1));
  if (!eqConst || !eqConst->isStr() || !elemTypes) return {Type::tensor()};
  EinsumEquation eq = parseEinsumEquation(eqConst->toStr(), elemTypes->size());
  std::vector<int64_t> ranks;
  std::vector<Dims> shapes;
  std::vector<DType> dtypes;
  for (const TypePtr& t : *elemTypes) {
    if (!t || !t->isTensor() || !t->hasRank()) return {Type::tensor()};
    ranks.push_back(t->rank());
    shapes.push_back(*t->shape());
    if (t->dtype()) dtypes.push_back(*t->dtype());
  }
  EinsumLabels labels = resolveEinsumLabels(eq, ranks);
  std::vector<int64_t> sizes = einsumLabelSizes(labels, shapes);
  std::optional<DType> dtype;
  if (dtypes.size() == elemTypes->size()) dtype = einsumResultDType(labels, shapes, dtypes);
  return {tensorType(dtype, einsumOutputShape(labels, sizes))};
}

// Both products' dtype rule: q, k and v of one float dtype.
TypeList attentionRule(const Node& n, const StaticValues&) {
  TensorInfo q = tensorInfo(n.input(0)), k = tensorInfo(n.input(1)), v = tensorInfo(n.input(2));
  std::optional<DType> dtype;
  if (q.dtype && k.dtype && v.dtype) dtype = matmulDType(matmulDType(*q.dtype, *k.dtype, q.rank(), k.rank()), *v.dtype, q.rank(), v.rank());
  std::optional<Dims> shape;
  if (q.shape && k.shape && v.shape) shape = attentionShape(*q.shape, *k.shape, *v.shape);
  return {tensorType(dtype, shape)};
}

}  // namespace

void registerContractionTypeRules(OpRegistry& r) {
  r.setTypeRule("matmul", matmulRule);
  r.setTypeRule("mm", [](const Node& n, const StaticValues&) { return fixedRankRule(n, 2); });
  r.setTypeRule("bmm", [](const Node& n, const StaticValues&) { return fixedRankRule(n, 3); });
  r.setTypeRule("linear", linearRule);
  r.setTypeRule("einsum", einsumRule);
  r.setTypeRule("fused.attention", attentionRule);
}

}  // namespace stitch
