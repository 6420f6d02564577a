// Static types of the view ops, the size queries and FuncTs' immut.* ops.
// A view's dtype is its input's; its shape follows from the input's shape
// and the constant arguments, with unknown dims wherever those are unknown.
#include <algorithm>

#include "ir/type_rules/rule_args.h"
#include "ir/type_rules/type_rules.h"
#include "ir/view_shape.h"

namespace stitch {

namespace {

using namespace rules;

// A view rule reads self from input 0 and its other arguments from inputs
// [first, ...): 1 for the view op and its immut. Access twin, 2 for the
// Assign twin (which has `src` in between).
using ViewRule = TypePtr (*)(const Node& n, const StaticValues& k, size_t first);

TypePtr withShape(const TensorInfo& self, std::optional<Dims> shape) {
  return tensorType(self.dtype, std::move(shape));
}

TypePtr reshapeTo(const TensorInfo& self, const std::optional<std::vector<int64_t>>& requested) {
  if (!requested) return withShape(self, std::nullopt);
  bool allKnown = std::none_of(requested->begin(), requested->end(),
                               [](int64_t d) { return d == kUnknownSize; });
  if (allKnown) return withShape(self, inferViewShape(*requested, self.numel()));
  Dims out;
  for (int64_t d : *requested) out.push_back(d >= 0 ? d : -1);
  return withShape(self, out);
}

// Static dims of another tensor used as a requested size (-1 there is unknown,
// not "infer").
std::optional<std::vector<int64_t>> shapeAsRequest(const TensorInfo& other) {
  if (!other.shape) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t d : *other.shape) out.push_back(d >= 0 ? d : kUnknownSize);
  return out;
}

TypePtr viewRule(const Node& n, const StaticValues& k, size_t first) {
  return reshapeTo(tensorInfo(n.input(0)), sizeList(k, n.input(first)));
}

TypePtr viewAsRule(const Node& n, const StaticValues& k, size_t first) {
  return reshapeTo(tensorInfo(n.input(0)), shapeAsRequest(tensorInfo(n.input(first))));
}

TypePtr permuteRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto dims = knownIntList(k, n.input(first));
  if (!self.shape) {
    auto l = sizeList(k, n.input(first));
    return withShape(self, unknownShape(l ? (int64_t)l->size() : -1));
  }
  if (!dims) return withShape(self, unknownShape(self.rank()));
  std::vector<int64_t> perm = checkPermutation(*dims, self.rank());
  Dims out;
  for (int64_t p : perm) out.push_back((*self.shape)[p]);
  return withShape(self, out);
}

TypePtr transposeRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto d0 = k.intValue(n.input(first)), d1 = k.intValue(n.input(first + 1));
  if (!self.shape) return withShape(self, std::nullopt);
  if (!d0 || !d1) return withShape(self, unknownShape(self.rank()));
  int64_t a = normalizeDim(*d0, self.rank()), b = normalizeDim(*d1, self.rank());
  Dims out = *self.shape;
  if (!out.empty()) std::swap(out[a], out[b]);
  return withShape(self, out);
}

TypePtr tRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  if (!self.shape) return withShape(self, std::nullopt);
  checkTransposeRank(self.rank());
  Dims out = *self.shape;
  std::reverse(out.begin(), out.end());
  return withShape(self, out);
}

TypePtr unsqueezeRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto dim = k.intValue(n.input(first));
  if (!self.shape) return withShape(self, std::nullopt);
  if (!dim) return withShape(self, unknownShape(self.rank() + 1));
  int64_t d = normalizeDim(*dim, self.rank() + 1);
  Dims out = *self.shape;
  out.insert(out.begin() + d, 1);
  return withShape(self, out);
}

TypePtr squeezeAll(const TensorInfo& self) {
  // An unknown dim might be 1, so the rank is unknown too.
  if (!self.shapeKnown()) return withShape(self, std::nullopt);
  Dims out;
  for (int64_t d : *self.shape)
    if (d != 1) out.push_back(d);
  return withShape(self, out);
}

TypePtr squeezeRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  if (n.inputs().size() <= first) return squeezeAll(self);
  OptionalInt dim = optionalInt(k, n.input(first));
  if (!dim.value && !dim.unknown) return squeezeAll(self);
  if (!self.shape || dim.unknown) return withShape(self, std::nullopt);
  int64_t d = normalizeDim(*dim.value, self.rank());
  Dims out = *self.shape;
  if (out.empty()) return withShape(self, out);
  if (out[d] < 0) return withShape(self, std::nullopt);
  if (out[d] == 1) out.erase(out.begin() + d);
  return withShape(self, out);
}

TypePtr expandTo(const TensorInfo& self, const std::optional<std::vector<int64_t>>& requested) {
  if (!requested) return withShape(self, std::nullopt);
  if (self.shape) return withShape(self, expandShape(*self.shape, *requested, self.dtype));
  Dims out;
  for (int64_t d : *requested) out.push_back(d >= 0 ? d : -1);
  return withShape(self, out);
}

TypePtr expandRule(const Node& n, const StaticValues& k, size_t first) {
  return expandTo(tensorInfo(n.input(0)), sizeList(k, n.input(first)));
}

TypePtr expandAsRule(const Node& n, const StaticValues& k, size_t first) {
  return expandTo(tensorInfo(n.input(0)), shapeAsRequest(tensorInfo(n.input(first))));
}

TypePtr flattenRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto start = k.intValue(n.input(first)), end = k.intValue(n.input(first + 1));
  if (!self.shape || !start || !end) return withShape(self, std::nullopt);
  FlattenDims range = checkFlatten(*start, *end, self.rank());
  return withShape(self, flattenShape(*self.shape, range));
}

TypePtr setitemValueRule(const Node& n, const StaticValues&, size_t) {
  TensorInfo self = tensorInfo(n.input(0));
  if (!self.shape) return withShape(self, std::nullopt);
  std::optional<size_t> dropped = setitemDroppedDims(*self.shape);
  if (!dropped) return withShape(self, std::nullopt);
  return withShape(self, Dims(self.shape->begin() + (long)*dropped, self.shape->end()));
}

TypePtr sameTypeRule(const Node& n, const StaticValues& k, size_t first) {
  return tensorType(tensorInfo(n.input(0)));
}

TypePtr selectRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto dim = k.intValue(n.input(first)), index = k.intValue(n.input(first + 1));
  if (!self.shape) return withShape(self, std::nullopt);
  checkNotZeroDim(self.rank(), "select");
  if (!dim) return withShape(self, unknownShape(self.rank() - 1));
  int64_t d = normalizeDim(*dim, self.rank());
  Dims out = *self.shape;
  if (index && out[d] >= 0) checkSelectIndex(*index, d, out[d]);
  out.erase(out.begin() + d);
  return withShape(self, out);
}

TypePtr sliceRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto dim = k.intValue(n.input(first));
  OptionalInt start = optionalInt(k, n.input(first + 1));
  OptionalInt end = optionalInt(k, n.input(first + 2));
  auto step = k.intValue(n.input(first + 3));
  auto checkStep = [&] {
    if (step && *step <= 0) sliceRange(std::nullopt, std::nullopt, *step, 0);  // throws
  };
  if (!self.shape) {
    checkStep();
    return withShape(self, std::nullopt);
  }
  checkNotZeroDim(self.rank(), "slice");
  if (!dim) {
    checkStep();
    return withShape(self, unknownShape(self.rank()));
  }
  int64_t d = normalizeDim(*dim, self.rank());
  checkStep();
  Dims out = *self.shape;
  bool lengthKnown = step && !start.unknown && !end.unknown && out[d] >= 0;
  out[d] = lengthKnown ? sliceRange(start.value, end.value, *step, out[d]).length : -1;
  return withShape(self, out);
}

TypePtr narrowRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto dim = k.intValue(n.input(first));
  auto start = k.intValue(n.input(first + 1)), length = k.intValue(n.input(first + 2));
  if (!self.shape) return withShape(self, std::nullopt);
  checkNotZeroDim(self.rank(), "narrow");
  if (!dim) return withShape(self, unknownShape(self.rank()));
  int64_t d = normalizeDim(*dim, self.rank());
  Dims out = *self.shape;
  if (start && length && out[d] >= 0) checkNarrow(*start, *length, out[d]);
  out[d] = length ? *length : -1;
  return withShape(self, out);
}

TypePtr movedimRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto src = k.intValue(n.input(first)), dst = k.intValue(n.input(first + 1));
  if (!self.shape) return withShape(self, std::nullopt);
  if (!src || !dst) return withShape(self, unknownShape(self.rank()));
  Dims out;
  for (int64_t p : movedimPermutation(*src, *dst, self.rank())) out.push_back((*self.shape)[p]);
  return withShape(self, out);
}

// What a chunk / split / unbind node's pieces are known to be: the tensor
// cut, the dim (normalized) and each piece's length along it (unknown
// when the dim's size or the sizes asked for are). Null with self's shape
// or the dim unknown, after the checks that need neither.
struct Pieces {
  TensorInfo self;
  int64_t dim = 0;
  std::optional<std::vector<int64_t>> lengths;
};

std::optional<Pieces> chunkPieces(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto chunks = k.intValue(n.input(first)), dim = k.intValue(n.input(first + 1));
  // The checks in PyTorch's order: rank, dim, then chunks.
  std::optional<int64_t> d;
  if (self.shape) checkAtLeastOneDim(self.rank(), "chunk");
  if (self.shape && dim) d = normalizeDim(*dim, self.rank());
  if (chunks) checkChunks(*chunks);
  if (!d) return std::nullopt;
  Pieces p{self, *d, std::nullopt};
  int64_t size = (*self.shape)[p.dim];
  if (chunks && size >= 0) p.lengths = chunkLengths(size, *chunks);
  return p;
}

std::optional<Pieces> splitPieces(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  const Value* sizeArg = n.input(first);
  bool withSizes = n.schema().args.at(first).isList;
  auto dim = k.intValue(n.input(first + 1));
  if (!self.shape) return std::nullopt;
  checkAtLeastOneDim(self.rank(), "split");
  if (!dim) return std::nullopt;
  Pieces p{self, normalizeDim(*dim, self.rank()), std::nullopt};
  int64_t dimSize = (*self.shape)[p.dim];
  if (withSizes) {
    p.lengths = knownIntList(k, sizeArg);
    if (p.lengths) checkSplitWithSizes(*p.lengths, dimSize, p.dim);
  } else if (auto splitSize = k.intValue(sizeArg)) {
    checkSplitSize(*splitSize);
    if (dimSize >= 0) p.lengths = splitLengths(dimSize, *splitSize);
  }
  return p;
}

// The pieces of chunk / split as one list type: dims that differ between
// pieces are unknown.
TypePtr pieceListType(const Pieces& p) {
  Dims piece = *p.self.shape;
  if (!p.lengths || p.lengths->empty()) {
    piece[p.dim] = -1;
    return Type::list(withShape(p.self, piece));
  }
  piece[p.dim] = (*p.lengths)[0];
  for (int64_t len : *p.lengths)
    if (len != piece[p.dim]) piece[p.dim] = -1;
  return Type::list(withShape(p.self, piece));
}

// The list type of chunk / split when the pieces are not known.
TypePtr unknownPieces(const TensorInfo& self) {
  if (!self.shape) return Type::list(withShape(self, std::nullopt));
  return Type::list(withShape(self, unknownShape(self.rank())));
}

TypePtr chunkRule(const Node& n, const StaticValues& k, size_t first) {
  std::optional<Pieces> p = chunkPieces(n, k, first);
  return p ? pieceListType(*p) : unknownPieces(tensorInfo(n.input(0)));
}

TypePtr splitRule(const Node& n, const StaticValues& k, size_t first) {
  std::optional<Pieces> p = splitPieces(n, k, first);
  return p ? pieceListType(*p) : unknownPieces(tensorInfo(n.input(0)));
}

TypePtr unbindRule(const Node& n, const StaticValues& k, size_t first) {
  TensorInfo self = tensorInfo(n.input(0));
  auto dim = k.intValue(n.input(first));
  if (!self.shape) return Type::list(withShape(self, std::nullopt));
  if (self.rank() == 0) throw UserError("Dimension specified as 0 but tensor has no dimensions");
  if (!dim) return Type::list(withShape(self, unknownShape(self.rank() - 1)));
  Dims out = *self.shape;
  out.erase(out.begin() + normalizeDim(*dim, self.rank()));
  return Type::list(withShape(self, out));
}

TypeRule asTypeRule(ViewRule rule) {
  return [rule](const Node& n, const StaticValues& k) -> std::vector<TypePtr> {
    return {rule(n, k, 1)};
  };
}

// The shape `src` must broadcast to when written into a region of `target`.
void checkWritable(const TypePtr& target, const TensorInfo& src) {
  if (!target->shape() || !src.shape) return;
  Dims broadcast = broadcastShapes(*src.shape, *target->shape());
  bool allKnown = std::all_of(broadcast.begin(), broadcast.end(), [](int64_t d) { return d >= 0; }) &&
                  std::all_of(target->shape()->begin(), target->shape()->end(),
                              [](int64_t d) { return d >= 0; });
  if (allKnown && broadcast != *target->shape()) {
    throw UserError(errorMessage("output with shape ", dimsToString(*target->shape()),
                                 " doesn't match the broadcast shape ", dimsToString(broadcast)));
  }
}

// immut.X_rev(self, src, ...): checks the region and src; the result is a
// new self.
TypeRule assignTypeRule(ViewRule rule) {
  return [rule](const Node& n, const StaticValues& k) -> std::vector<TypePtr> {
    checkWritable(rule(n, k, 2), tensorInfo(n.input(1)));
    return {tensorType(tensorInfo(n.input(0)))};
  };
}

struct NamedViewRule {
  const char* name;
  ViewRule rule;
};

// Views that have immut. Access / Assign twins.
const NamedViewRule kFunctionalViews[] = {
    {"select", selectRule},       {"slice", sliceRule},         {"view", viewRule},
    {"permute", permuteRule},     {"transpose", transposeRule}, {"unsqueeze", unsqueezeRule},
    {"squeeze", squeezeRule},     {"expand", expandRule},
};

const NamedViewRule kOtherViews[] = {
    {"reshape", viewRule},          {"view_as", viewAsRule},   {"reshape_as", viewAsRule},
    {"t", tRule},                   {"expand_as", expandAsRule}, {"flatten", flattenRule},
    {"contiguous", sameTypeRule},   {"narrow", narrowRule},    {"movedim", movedimRule},
    {"chunk", chunkRule},           {"split", splitRule},      {"unbind", unbindRule},
    {"prim.setitem_value", setitemValueRule}, {"immut.setitem_value", setitemValueRule},
};

std::vector<TypePtr> sizeRule(const Node& n, const StaticValues& k) {
  if (n.inputs().size() == 1) return {Type::list(Type::intT())};
  TensorInfo self = tensorInfo(n.input(0));
  auto dim = k.intValue(n.input(1));
  if (self.shape && dim) {
    if (self.rank() == 0) throw UserError("Dimension specified as 0 but tensor has no dimensions");
    normalizeDim(*dim, self.rank());
  }
  return {Type::intT()};
}

std::vector<TypePtr> intRule(const Node&, const StaticValues&) { return {Type::intT()}; }

}  // namespace

std::optional<std::vector<TypePtr>> viewPieceTypes(const Node& n, const StaticValues& k) {
  std::optional<Pieces> p;
  if (n.is("chunk")) p = chunkPieces(n, k, 1);
  if (n.is("split")) p = splitPieces(n, k, 1);
  if (n.is("unbind")) {
    TensorInfo self = tensorInfo(n.input(0));
    auto dim = k.intValue(n.input(1));
    if (!self.shape || self.rank() == 0 || !dim) return std::nullopt;
    int64_t count = (*self.shape)[normalizeDim(*dim, self.rank())];
    if (count < 0) return std::nullopt;
    return std::vector<TypePtr>((size_t)count, unbindRule(n, k, 1)->elem());
  }
  if (!p || !p->lengths) return std::nullopt;
  std::vector<TypePtr> types;
  for (int64_t len : *p->lengths) {
    Dims piece = *p->self.shape;
    piece[p->dim] = len;
    types.push_back(withShape(p->self, piece));
  }
  return types;
}

void registerViewTypeRules(OpRegistry& r) {
  for (const NamedViewRule& v : kFunctionalViews) {
    r.setTypeRule(v.name, asTypeRule(v.rule));
    r.setTypeRule(std::string("immut.") + v.name, asTypeRule(v.rule));
    r.setTypeRule(std::string("immut.") + v.name + "_rev", assignTypeRule(v.rule));
  }
  for (const NamedViewRule& v : kOtherViews) r.setTypeRule(v.name, asTypeRule(v.rule));
  r.setTypeRule("immut.assign", [](const Node& n, const StaticValues&) -> std::vector<TypePtr> {
    TypePtr self = tensorType(tensorInfo(n.input(0)));
    checkWritable(self, tensorInfo(n.input(1)));
    return {self};
  });
  r.setTypeRule("size", sizeRule);
  r.setTypeRule("dim", intRule);
  r.setTypeRule("numel", intRule);
}

}  // namespace stitch
