// Static shape/dtype rules of the reduction family. They share their dtype
// rules and messages with the interpreter's kernels (ir/reduction_dtypes.h)
// and degrade to unknown dims or rank where arguments are not constants.
#include "ir/reduction_dtypes.h"
#include "ir/type_rules/rule_args.h"
#include "ir/type_rules/type_rules.h"

namespace stitch {

namespace {

using rules::TensorInfo;
using rules::tensorInfo;
using rules::tensorType;

// What is statically known of a reduction's dims argument.
struct DimsArg {
  bool all = false;  // None or [] (or no dim argument): every dim
  std::optional<std::vector<std::optional<int64_t>>> list;  // nullopt: length unknown
};

DimsArg dimsArg(const StaticValues& known, const Value* v) {
  DimsArg d;
  if (!v || known.isNone(v)) {
    d.all = true;
    return d;
  }
  d.list = known.intList(v);
  if (d.list && d.list->empty()) d.all = true;
  return d;
}

std::optional<DType> dtypeArg(const StaticValues& known, const Value* v, bool& unknown) {
  unknown = false;
  if (known.isNone(v)) return std::nullopt;
  const Constant* c = known.constant(v);
  if (c && c->isDType()) return c->toDType();
  unknown = true;
  return std::nullopt;
}

// The reduced shape; nullopt when even the rank is unknown. Validates every
// known dim against a known rank (range and duplicates).
std::optional<Dims> reducedShape(const TensorInfo& in, const DimsArg& dims,
                                 std::optional<bool> keepdim) {
  if (!keepdim) return std::nullopt;
  if (dims.all) {
    if (!*keepdim) return Dims{};
    if (!in.shape) return std::nullopt;
    return Dims(in.rank(), 1);
  }
  if (!dims.list || !in.shape) return std::nullopt;
  std::vector<int64_t> knownDims;
  bool allKnown = true;
  for (const auto& d : *dims.list) {
    if (d) knownDims.push_back(*d);
    allKnown = allKnown && d.has_value();
  }
  normalizeReduceDims(knownDims, in.rank());  // range and duplicate checks
  if (allKnown) return reduceShape(*in.shape, knownDims, *keepdim);
  if (*keepdim) return rules::unknownShape(in.rank());
  int64_t rank = std::max<int64_t>(0, in.rank() - (int64_t)dims.list->size());
  return rules::unknownShape(rank);
}

// Normalized reduced dims when everything is known (for the empty checks).
std::optional<std::vector<int64_t>> knownReducedDims(const TensorInfo& in, const DimsArg& dims) {
  if (!in.shape) return std::nullopt;
  if (dims.all) return normalizeReduceDims({}, in.rank());
  if (!dims.list) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& d : *dims.list) {
    if (!d) return std::nullopt;
    out.push_back(*d);
  }
  return normalizeReduceDims(out, in.rank());
}

using TypeList = std::vector<TypePtr>;

// dtype of sum/mean/prod style ops from the input and an optional dtype arg.
template <typename F>
std::optional<DType> reductionDType(const TensorInfo& in, const StaticValues& known,
                                    const Value* dtypeValue, F rule) {
  bool unknownArg = false;
  std::optional<DType> requested =
      dtypeValue ? dtypeArg(known, dtypeValue, unknownArg) : std::nullopt;
  if (unknownArg) return std::nullopt;
  if (requested) return rule(in.dtype.value_or(*requested), requested);
  if (!in.dtype) return std::nullopt;
  return rule(*in.dtype, requested);
}

// sum / mean / prod / all / any: (self, dtype) or (self, dim(s), keepdim, dtype).
template <typename F>
TypeList sumLikeRule(const Node& n, const StaticValues& known, F dtypeRule, bool hasDTypeArg) {
  TensorInfo in = tensorInfo(n.input(0));
  size_t count = n.inputs().size();
  bool allOverload = count <= 2;
  const Value* dtypeValue = hasDTypeArg ? n.input(count - 1) : nullptr;
  std::optional<DType> dtype = reductionDType(in, known, dtypeValue, dtypeRule);
  DimsArg dims = allOverload ? DimsArg{true, {}} : dimsArg(known, n.input(1));
  std::optional<bool> keepdim =
      allOverload ? std::optional<bool>(false) : known.boolValue(n.input(2));
  return {tensorType(dtype, reducedShape(in, dims, keepdim))};
}

void addSumMeanProd(OpRegistry& r) {
  r.setTypeRule("sum", [](const Node& n, const StaticValues& k) {
    return sumLikeRule(n, k, sumLikeDType, true);
  });
  r.setTypeRule("prod", [](const Node& n, const StaticValues& k) {
    return sumLikeRule(n, k, sumLikeDType, true);
  });
  r.setTypeRule("mean", [](const Node& n, const StaticValues& k) {
    return sumLikeRule(n, k, meanDType, true);
  });
  for (const char* name : {"all", "any"}) {
    r.setTypeRule(name, [](const Node& n, const StaticValues& k) {
      return sumLikeRule(
          n, k, [](DType, std::optional<DType>) { return DType::b8; }, false);
    });
  }
}

TypeList extremumRule(const Node& n, const StaticValues& known, bool isMax, bool isAmax) {
  TensorInfo in = tensorInfo(n.input(0));
  if (!isAmax && n.inputs().size() == 2) {
    TensorInfo other = tensorInfo(n.input(1));
    std::optional<DType> dtype;
    if (in.dtype && other.dtype)
      dtype = resultType({tensorArg(*in.dtype, in.rank()), tensorArg(*other.dtype, other.rank())});
    std::optional<Dims> shape;
    if (in.shape && other.shape) shape = broadcastShapes(*in.shape, *other.shape);
    return {tensorType(dtype, shape)};
  }
  const char* name = isAmax ? (isMax ? "amax" : "amin") : (isMax ? "max" : "min");
  bool allOverload = n.inputs().size() == 1;
  DimsArg dims = allOverload ? DimsArg{true, {}} : dimsArg(known, n.input(1));
  std::optional<bool> keepdim =
      allOverload ? std::optional<bool>(false) : known.boolValue(n.input(2));
  std::optional<Dims> shape = reducedShape(in, dims, keepdim);
  if (auto reduced = knownReducedDims(in, dims))
    checkReductionHasIdentityOrElements(name, *in.shape, *reduced, dims.all);
  if (isAmax || allOverload) return {tensorType(in.dtype, shape)};
  return {tensorType(in.dtype, shape), tensorType(DType::i64, shape)};
}

TypeList argExtremumRule(const Node& n, const StaticValues& known, const char* name) {
  TensorInfo in = tensorInfo(n.input(0));
  if (in.dtype) checkArgReduceDType(*in.dtype, name);
  DimsArg dims = dimsArg(known, n.input(1));
  std::optional<bool> keepdim = known.boolValue(n.input(2));
  std::optional<Dims> shape = reducedShape(in, dims, keepdim);
  if (auto reduced = knownReducedDims(in, dims))
    checkReductionHasIdentityOrElements(name, *in.shape, *reduced, dims.all);
  return {tensorType(DType::i64, shape)};
}

void addExtrema(OpRegistry& r) {
  for (bool isMax : {true, false}) {
    r.setTypeRule(isMax ? "max" : "min", [isMax](const Node& n, const StaticValues& k) {
      return extremumRule(n, k, isMax, false);
    });
    r.setTypeRule(isMax ? "amax" : "amin", [isMax](const Node& n, const StaticValues& k) {
      return extremumRule(n, k, isMax, true);
    });
    const char* arg = isMax ? "argmax" : "argmin";
    r.setTypeRule(
        arg, [arg](const Node& n, const StaticValues& k) { return argExtremumRule(n, k, arg); });
  }
}

// var / std: (self, unbiased) or (self, dim?, unbiased, keepdim).
TypeList varianceRule(const Node& n, const StaticValues& known) {
  TensorInfo in = tensorInfo(n.input(0));
  std::optional<DType> dtype;
  if (in.dtype) dtype = varianceDType(*in.dtype);
  bool allOverload = n.inputs().size() == 2;
  DimsArg dims = allOverload ? DimsArg{true, {}} : dimsArg(known, n.input(1));
  std::optional<bool> keepdim =
      allOverload ? std::optional<bool>(false) : known.boolValue(n.input(3));
  return {tensorType(dtype, reducedShape(in, dims, keepdim))};
}

TypeList logSumExpRule(const Node& n, const StaticValues& known) {
  TensorInfo in = tensorInfo(n.input(0));
  std::optional<DType> dtype;
  if (in.dtype) dtype = floatResultType(*in.dtype);
  return {
      tensorType(dtype, reducedShape(in, dimsArg(known, n.input(1)), known.boolValue(n.input(2))))};
}

TypeList normRule(const Node& n, const StaticValues&) {
  TensorInfo in = tensorInfo(n.input(0));
  std::optional<DType> dtype;
  if (in.dtype) dtype = normDType(*in.dtype);
  return {tensorType(dtype, Dims{})};
}

// softmax / log_softmax / cumsum / cumprod: (self, dim, dtype?), same shape.
TypeList alongDimRule(const Node& n, const StaticValues& known, bool isSoftmax, bool isLog) {
  TensorInfo in = tensorInfo(n.input(0));
  std::optional<int64_t> dim = known.intValue(n.input(1));
  bool lastDim = false;
  if (dim && in.shape) {
    int64_t d = normalizeDim(*dim, in.rank());
    lastDim = in.rank() == 0 || d == in.rank() - 1;
  }
  auto rule = [&](DType t, std::optional<DType> requested) {
    return isSoftmax ? softmaxDType(t, requested, isLog, lastDim) : sumLikeDType(t, requested);
  };
  std::optional<DType> dtype = reductionDType(in, known, n.input(2), rule);
  return {tensorType(dtype, in.shape)};
}

void addStatisticsAndAlongDim(OpRegistry& r) {
  r.setTypeRule("var", varianceRule);
  r.setTypeRule("std", varianceRule);
  r.setTypeRule("logsumexp", logSumExpRule);
  r.setTypeRule("norm", normRule);
  r.setTypeRule("softmax", [](const Node& n, const StaticValues& k) {
    return alongDimRule(n, k, true, false);
  });
  r.setTypeRule("log_softmax", [](const Node& n, const StaticValues& k) {
    return alongDimRule(n, k, true, true);
  });
  r.setTypeRule("cumsum", [](const Node& n, const StaticValues& k) {
    return alongDimRule(n, k, false, false);
  });
  r.setTypeRule("cumprod", [](const Node& n, const StaticValues& k) {
    return alongDimRule(n, k, false, false);
  });
}

}  // namespace

void registerReductionTypeRules(OpRegistry& r) {
  addSumMeanProd(r);
  addExtrema(r);
  addStatisticsAndAlongDim(r);
}

}  // namespace stitch
