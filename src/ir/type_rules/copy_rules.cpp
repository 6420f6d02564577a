// Static types of the copy ops (clone, cat, stack, index_select, gather, to,
// repeat, flip, tril, triu).
#include <algorithm>

#include "ir/type_rules/rule_args.h"
#include "ir/type_rules/type_rules.h"
#include "ir/view_shape.h"

namespace stitch {

namespace {

using namespace rules;

std::vector<TypePtr> one(TypePtr t) { return {std::move(t)}; }

// The tensors of a Tensor[] argument, when its length is known statically.
std::optional<std::vector<TensorInfo>> listTensors(const StaticValues& k, const Value* list) {
  auto types = k.listElementTypes(list);
  if (!types) return std::nullopt;
  std::vector<TensorInfo> out;
  for (const TypePtr& t : *types) {
    TensorInfo info;
    if (t && t->isTensor()) {
      info.dtype = t->dtype();
      info.shape = t->shape();
    }
    out.push_back(info);
  }
  return out;
}

// What the list's own type says of its elements, when its length is unknown.
TensorInfo listElementInfo(const Value* list) {
  TensorInfo info;
  const TypePtr& t = list->type();
  if (!t || t->kind() != TypeKind::List || !t->elem()->isTensor()) return info;
  info.dtype = t->elem()->dtype();
  info.shape = t->elem()->shape();
  return info;
}

std::optional<DType> promoted(const std::vector<TensorInfo>& ts) {
  std::optional<DType> d;
  for (const TensorInfo& t : ts) {
    if (!t.dtype) return std::nullopt;
    d = d ? promoteTypes(*d, *t.dtype) : *t.dtype;
  }
  return d;
}

// A 1-d tensor of unknown length might be the empty tensor cat() skips.
bool mightBeSkipped(const TensorInfo& t) { return t.rank() == 1 && (*t.shape)[0] < 0; }

std::vector<TypePtr> catRule(const Node& n, const StaticValues& k) {
  auto ts = listTensors(k, n.input(0));
  auto dim = k.intValue(n.input(1));
  if (!ts) {
    TensorInfo elem = listElementInfo(n.input(0));
    return one(tensorType(elem.dtype, std::nullopt));
  }
  if (ts->empty()) throw UserError("torch.cat(): expected a non-empty list of Tensors");
  std::optional<DType> dtype = promoted(*ts);
  bool ranksKnown = std::all_of(ts->begin(), ts->end(), [](const TensorInfo& t) { return t.shape.has_value(); });
  bool ambiguous = std::any_of(ts->begin(), ts->end(), mightBeSkipped);
  if (!ranksKnown || ambiguous || !dim) {
    // The rank is still the participants' rank if all agree.
    int64_t rank = -1;
    for (const TensorInfo& t : *ts)
      if (t.shape && !(t.rank() == 1 && (*t.shape)[0] <= 0)) rank = rank < 0 ? t.rank() : rank;
    return one(tensorType(dtype, ambiguous || !ranksKnown ? std::nullopt : unknownShape(rank)));
  }
  std::vector<Dims> shapes;
  for (const TensorInfo& t : *ts) shapes.push_back(*t.shape);
  return one(tensorType(dtype, planCat(shapes, *dim).shape));
}

std::vector<TypePtr> stackRule(const Node& n, const StaticValues& k) {
  auto ts = listTensors(k, n.input(0));
  auto dim = k.intValue(n.input(1));
  if (!ts) {
    TensorInfo elem = listElementInfo(n.input(0));
    return one(tensorType(elem.dtype, std::nullopt));
  }
  if (ts->empty()) throw UserError("stack expects a non-empty TensorList");
  std::optional<DType> dtype = promoted(*ts);
  bool ranksKnown = std::all_of(ts->begin(), ts->end(), [](const TensorInfo& t) { return t.shape.has_value(); });
  if (!ranksKnown) return one(tensorType(dtype, std::nullopt));
  std::vector<Dims> shapes;
  for (const TensorInfo& t : *ts) shapes.push_back(*t.shape);
  if (!dim) {
    // Still checks that the shapes agree.
    Dims s = stackShape(shapes, 0);
    return one(tensorType(dtype, unknownShape((int64_t)s.size())));
  }
  return one(tensorType(dtype, stackShape(shapes, *dim)));
}

std::vector<TypePtr> indexSelectRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0)), index = tensorInfo(n.input(2));
  auto dim = k.intValue(n.input(1));
  if (index.dtype && index.shape) checkIndexSelectIndex(*index.dtype, index.rank());
  if (!self.shape) return one(tensorType(self.dtype, std::nullopt));
  if (!dim) return one(tensorType(self.dtype, unknownShape(self.rank())));
  int64_t d = normalizeDim(*dim, self.rank());
  Dims out = *self.shape;
  if (!out.empty()) out[d] = index.numel();
  return one(tensorType(self.dtype, out));
}

std::vector<TypePtr> gatherRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0)), index = tensorInfo(n.input(2));
  auto dim = k.intValue(n.input(1));
  if (self.shape && index.shape && index.dtype && dim) {
    checkGatherIndex(*index.dtype, *self.shape, *index.shape, normalizeDim(*dim, self.rank()));
  }
  return one(tensorType(self.dtype, index.shape));
}

std::vector<TypePtr> toRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  const Constant* c = k.constant(n.input(1));
  std::optional<DType> dtype;
  if (c && c->isDType()) dtype = c->toDType();
  return one(tensorType(dtype, self.shape));
}

std::vector<TypePtr> repeatRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  auto repeats = sizeList(k, n.input(1));
  if (!repeats) return one(tensorType(self.dtype, std::nullopt));
  bool repeatsKnown = std::none_of(repeats->begin(), repeats->end(),
                                   [](int64_t r) { return r == kUnknownSize; });
  if (self.shape && repeatsKnown) return one(tensorType(self.dtype, repeatShape(*self.shape, *repeats)));
  return one(tensorType(self.dtype, unknownShape((int64_t)repeats->size())));
}

std::vector<TypePtr> flipRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  auto dims = knownIntList(k, n.input(1));
  if (self.shape && dims) checkFlipDims(*dims, self.rank());
  return one(tensorType(self));
}

std::vector<TypePtr> triangularRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  if (self.shape) checkTriangularRank(self.rank());
  return one(tensorType(self));
}

}  // namespace

void registerCopyTypeRules(OpRegistry& r) {
  r.setTypeRule("clone", [](const Node& n, const StaticValues&) -> std::vector<TypePtr> {
    return one(tensorType(tensorInfo(n.input(0))));
  });
  r.setTypeRule("cat", catRule);
  r.setTypeRule("stack", stackRule);
  r.setTypeRule("index_select", indexSelectRule);
  r.setTypeRule("gather", gatherRule);
  r.setTypeRule("to", toRule);
  r.setTypeRule("repeat", repeatRule);
  r.setTypeRule("flip", flipRule);
  r.setTypeRule("tril", triangularRule);
  r.setTypeRule("triu", triangularRule);
}

}  // namespace stitch
