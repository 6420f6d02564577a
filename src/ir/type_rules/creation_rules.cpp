// Static types of the creation ops: the dtype from the dtype argument or
// PyTorch's defaults (ir/creation_dtypes.h), the shape from the size list
// (unknown entries stay unknown) or from the `like` tensor.
#include "ir/creation_dtypes.h"
#include "ir/type_rules/rule_args.h"
#include "ir/type_rules/type_rules.h"
#include "ir/view_shape.h"

namespace stitch {

namespace {

using namespace rules;
using Types = std::vector<TypePtr>;

// The dtype argument: nullopt with `unknown` set when it is not constant.
struct DTypeArg {
  std::optional<DType> value;
  bool unknown = false;
};

DTypeArg dtypeArg(const Value* v, const StaticValues& k) {
  DTypeArg r;
  if (k.isNone(v) || (v->type() && v->type()->kind() == TypeKind::None)) return r;
  const Constant* c = k.constant(v);
  if (c && c->isDType()) r.value = c->toDType();
  else r.unknown = true;
  return r;
}

std::optional<ScalarKind> scalarKindOf(const Value* v) {
  const TypePtr& t = v->type();
  if (!t) return std::nullopt;
  if (t->kind() == TypeKind::Bool) return ScalarKind::Bool;
  if (t->kind() == TypeKind::Int) return ScalarKind::Int;
  if (t->kind() == TypeKind::Float) return ScalarKind::Float;
  return std::nullopt;
}

// PyTorch prints the requested sizes as given ("[2, -1]"); unknown ones as "?".
std::string negativeDimensionMessage(int64_t d, const std::vector<int64_t>& sizes) {
  std::string list = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    list += i ? ", " : "";
    list += sizes[i] == kUnknownSize ? std::string("?") : std::to_string(sizes[i]);
  }
  return errorMessage("Trying to create tensor with negative dimension ", d, ": ", list, "]");
}

std::optional<Dims> sizeArg(const Value* v, const StaticValues& k) {
  auto sizes = sizeList(k, v);
  if (!sizes) return std::nullopt;
  Dims out;
  for (int64_t d : *sizes) {
    if (d == kUnknownSize) {
      out.push_back(-1);
      continue;
    }
    if (d < 0) throw UserError(negativeDimensionMessage(d, *sizes));
    out.push_back(d);
  }
  return out;
}

Types sizedRule(const Node& n, const StaticValues& k) {
  DTypeArg dt = dtypeArg(n.input(1), k);
  std::optional<DType> dtype;
  if (!dt.unknown) dtype = creationDType(dt.value);
  return {tensorType(dtype, sizeArg(n.input(0), k))};
}

Types fullRule(const Node& n, const StaticValues& k) {
  DTypeArg dt = dtypeArg(n.input(2), k);
  std::optional<DType> dtype = dt.value;
  auto fill = scalarKindOf(n.input(1));
  if (!dt.unknown && !dt.value && fill) dtype = fullDType(*fill, std::nullopt);
  return {tensorType(dtype, sizeArg(n.input(0), k))};
}

Types arangeRule(const Node& n, const StaticValues& k) {
  bool full = n.inputs().size() == 4;
  std::vector<const Value*> bounds;
  if (full) bounds = {n.input(0), n.input(1), n.input(2)};
  else bounds = {n.input(0)};
  DTypeArg dt = dtypeArg(n.input(full ? 3 : 1), k);
  std::vector<ScalarKind> kinds;
  bool kindsKnown = true;
  for (const Value* b : bounds) {
    auto kind = scalarKindOf(b);
    if (kind) kinds.push_back(*kind);
    else kindsKnown = false;
  }
  std::optional<DType> dtype = dt.value;
  if (!dt.unknown && (kindsKnown || dt.value)) dtype = arangeDType(kinds, dt.value);
  int64_t length = -1;
  std::optional<double> start = full ? k.doubleValue(n.input(0)) : std::optional<double>(0.0);
  std::optional<double> end = k.doubleValue(full ? n.input(1) : n.input(0));
  std::optional<double> step = full ? k.doubleValue(n.input(2)) : std::optional<double>(1.0);
  if (dtype && start && end && step) length = arangeLength(*start, *end, *step, *dtype);
  return {tensorType(dtype, Dims{length})};
}

Types likeRule(const Node& n, const StaticValues& k) {
  TensorInfo self = tensorInfo(n.input(0));
  size_t dtypeIndex = n.is("full_like") ? 2 : 1;
  DTypeArg dt = dtypeArg(n.input(dtypeIndex), k);
  std::optional<DType> dtype = dt.unknown ? std::nullopt : dt.value ? dt.value : self.dtype;
  if (n.is("rand_like") && dtype) checkRandDType(*dtype);
  return {tensorType(dtype, self.shape)};
}

Types scalarTensorRule(const Node& n, const StaticValues& k) {
  DTypeArg dt = dtypeArg(n.input(1), k);
  std::optional<DType> dtype;
  if (!dt.unknown) dtype = creationDType(dt.value);
  return {tensorType(dtype, Dims{})};
}

}  // namespace

void registerCreationTypeRules(OpRegistry& r) {
  for (const char* op : {"zeros", "ones", "empty"}) r.setTypeRule(op, sizedRule);
  r.setTypeRule("full", fullRule);
  r.setTypeRule("arange", arangeRule);
  for (const char* op : {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like"})
    r.setTypeRule(op, likeRule);
  r.setTypeRule("scalar_tensor", scalarTensorRule);
}

}  // namespace stitch
