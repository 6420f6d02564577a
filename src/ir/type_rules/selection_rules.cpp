// Static types of the selection ops (sort, argsort, topk, nonzero,
// masked_select, index.get / index.put, scatter). Data-dependent lengths
// (nonzero, masked_select, a mask index) are unknown dims.
#include "ir/selection_shape.h"
#include "ir/type_rules/rule_args.h"
#include "ir/type_rules/type_rules.h"

namespace stitch {

namespace {

using namespace rules;
using TypeList = std::vector<TypePtr>;

// The dim argument normalized, when it and self's rank are known.
std::optional<int64_t> knownDim(const StaticValues& k, const Value* dim, const TensorInfo& self) {
  auto d = k.intValue(dim);
  if (!d || !self.shape) return std::nullopt;
  return normalizeDim(*d, std::max<int64_t>(self.rank(), 1));
}

TypeList sortRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  knownDim(k, n.input(1), self);  // range check
  return {tensorType(self), tensorType(DType::i64, self.shape)};
}

TypeList argsortRule(const Node& n, const StaticValues& k) {
  return {sortRule(n, k)[1]};
}

TypeList topkRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  auto count = k.intValue(n.input(1));
  auto dim = knownDim(k, n.input(2), self);
  std::optional<Dims> shape = self.shape;
  if (shape && !shape->empty()) {
    if (!dim) shape = unknownShape(self.rank());
    else if (count) {
      checkTopk(*count, (*shape)[*dim]);
      (*shape)[*dim] = *count;
    } else {
      (*shape)[*dim] = -1;
    }
  } else if (shape && count) {
    checkTopk(*count, 1);
  }
  return {tensorType(self.dtype, shape), tensorType(DType::i64, shape)};
}

TypeList nonzeroRule(const Node& n, const StaticValues&) {
  TensorInfo self = tensorInfo(n.input(0));
  return {tensorType(DType::i64, self.shape ? std::optional<Dims>(Dims{-1, self.rank()}) : std::nullopt)};
}

TypeList maskedSelectRule(const Node& n, const StaticValues&) {
  TensorInfo self = tensorInfo(n.input(0)), mask = tensorInfo(n.input(1));
  if (mask.dtype) checkMaskedSelectMask(*mask.dtype);
  if (self.shape && mask.shape) broadcastShapes(*self.shape, *mask.shape);
  return {tensorType(self.dtype, Dims{-1})};
}

std::optional<Dims> indexResultShape(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0)), index = tensorInfo(n.input(2));
  auto dim = k.intValue(n.input(1));
  if (!self.shape || !index.shape || !index.dtype || !dim) return std::nullopt;
  return advancedIndexShape(*self.shape, *dim, *index.dtype, *index.shape);
}

TypeList indexGetRule(const Node& n, const StaticValues& k) {
  return {tensorType(tensorInfo(n.input(0)).dtype, indexResultShape(n, k))};
}

TypeList indexPutRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0)), values = tensorInfo(n.input(3));
  if (self.dtype && values.dtype) checkIndexPutDTypes(*self.dtype, *values.dtype);
  std::optional<Dims> slots = indexResultShape(n, k);
  if (slots && values.shape) checkIndexPutValues(*values.shape, *slots);
  return {tensorType(self)};
}

TypeList scatterRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0)), index = tensorInfo(n.input(2));
  if (index.dtype && *index.dtype != DType::i64)
    throw UserError("scatter(): Expected dtype int64 for index");
  const Value* src = n.input(3);
  std::optional<Dims> srcShape;
  if (src->type()->isTensor()) {
    TensorInfo s = tensorInfo(src);
    if (self.dtype && s.dtype && *self.dtype != *s.dtype)
      throw UserError("scatter(): Expected self.dtype to be equal to src.dtype");
    if (!s.shape) return {tensorType(self)};
    srcShape = s.shape;
  }
  auto dim = knownDim(k, n.input(1), self);
  if (self.shape && index.shape && dim) checkScatterShapes(*self.shape, *dim, *index.shape, srcShape);
  return {tensorType(self)};
}

}  // namespace

void registerSelectionTypeRules(OpRegistry& r) {
  r.setTypeRule("sort", sortRule);
  r.setTypeRule("argsort", argsortRule);
  r.setTypeRule("topk", topkRule);
  r.setTypeRule("nonzero", nonzeroRule);
  r.setTypeRule("masked_select", maskedSelectRule);
  r.setTypeRule("index.get", indexGetRule);
  for (const char* op : {"index.put", "index.put_"}) r.setTypeRule(op, indexPutRule);
  for (const char* op : {"scatter", "scatter_", "scatter_add", "scatter_add_"}) r.setTypeRule(op, scatterRule);
}

}  // namespace stitch
