#include "fusion/schedule_ops.h"

#include <algorithm>
#include <set>

#include "common/error.h"
#include "ir/op_registry.h"
#include "ir/shape_util.h"
#include "ir/static_value.h"

namespace stitch {

namespace {

const std::set<std::string>& elementwiseOps() {
  static const std::set<std::string> ops = {
      "add", "sub", "rsub", "mul", "div", "floor_divide", "remainder", "pow", "atan2", "rdiv", "rpow",
      "rfloor_divide", "rremainder", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
      "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
      "bitwise_xor", "bitwise_not", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
      "silu", "erf", "reciprocal", "log1p", "expm1", "log2", "exp2", "tan", "asin", "acos", "atan",
      "sinh", "cosh", "neg", "abs", "relu", "floor", "ceil", "sign", "round", "trunc", "square",
      "gelu", "clamp", "where", "masked_fill", "lerp", "isnan", "to", "clone", "contiguous",
      "immut.assign", "expand_as"};
  return ops;
}

const std::set<std::string>& expensiveOps() {
  static const std::set<std::string> ops = {
      "exp", "log", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "silu", "gelu", "erf",
      "log1p", "expm1", "log2", "exp2", "asin", "acos", "atan", "sinh", "cosh", "pow", "rpow",
      "atan2", "softmax", "log_softmax", "logsumexp"};
  return ops;
}

bool endsWith(const std::string& s, const char* tail) {
  std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

bool startsWith(const std::string& s, const char* head) { return s.rfind(head, 0) == 0; }

}  // namespace

OpClass scheduleOpClass(const Node& n) {
  const std::string& k = n.kind();
  if (elementwiseOps().count(k)) return OpClass::Elementwise;
  if ((k == "max" || k == "min") && n.inputs().size() == 2) return OpClass::Elementwise;
  static const std::set<std::string> creation = {"zeros", "ones", "empty", "full", "arange",
                                                 "zeros_like", "ones_like", "empty_like", "full_like",
                                                 "scalar_tensor", "rand_like"};
  if (creation.count(k)) return OpClass::Creation;
  static const std::set<std::string> reduce = {"sum", "mean", "prod", "amax", "amin", "max", "min", "all",
                                               "any", "logsumexp", "argmax", "argmin", "var", "std", "norm"};
  if (reduce.count(k)) return OpClass::Reduce;
  if (k == "softmax" || k == "log_softmax" || k == "cumsum" || k == "cumprod") return OpClass::AlongDim;
  if (k == "mm" || k == "bmm" || k == "matmul" || k == "linear") return OpClass::Product;
  if (k == "cat" || k == "stack" || k == "einsum") return OpClass::ListOp;
  if (k == "flip" || k == "repeat" || k == "tril" || k == "triu") return OpClass::PerDim;
  static const std::set<std::string> views = {"select", "slice", "narrow", "view", "reshape", "view_as",
                                              "reshape_as", "flatten", "permute", "transpose", "t",
                                              "unsqueeze", "squeeze", "expand"};
  if (startsWith(k, "immut.")) {
    std::string base = schedule_ops::accessName(n);
    if (!views.count(base)) return OpClass::Unknown;
    return endsWith(k, "_rev") ? OpClass::Assign : OpClass::Access;
  }
  if (views.count(k)) return OpClass::Access;
  return OpClass::Unknown;
}

namespace schedule_ops {

bool knownTensor(const Value* v) { return v->type()->isTensor() && v->type()->shape().has_value(); }

const Dims& shapeOf(const Value* v) { return *v->type()->shape(); }

int64_t numel(const Dims& shape) { return numelOfShape(shape); }

std::optional<int64_t> constInt(const Value* v) {
  if (std::optional<int64_t> i = staticInt(v)) return i;
  const Constant* c = constantOf(v);
  if (c && c->isBool()) return (int64_t)c->toBool();
  return std::nullopt;
}

bool isNone(const Value* v) { return isNoneConstant(v); }

std::optional<std::vector<int64_t>> constIntList(const Value* v) { return staticIntList(v); }

std::optional<std::vector<const Value*>> listTensors(const Value* list) {
  if (!list->node() || !list->node()->is("prim.list_construct")) return std::nullopt;
  std::vector<const Value*> out;
  for (const Value* e : list->node()->inputs()) {
    if (!knownTensor(e)) return std::nullopt;
    out.push_back(e);
  }
  return out;
}

std::string accessName(const Node& n) {
  std::string k = n.kind();
  if (startsWith(k, "immut.")) k = k.substr(6);
  if (endsWith(k, "_rev")) k = k.substr(0, k.size() - 4);
  return k;
}

bool isReshape(const std::string& op) {
  return op == "view" || op == "reshape" || op == "view_as" || op == "reshape_as" || op == "flatten";
}

std::optional<ReduceInfo> reduceInfo(const Node& n) {
  if (scheduleOpClass(n) != OpClass::Reduce || n.inputs().empty() || n.outputs().size() != 1) return std::nullopt;
  const Value* self = n.input(0);
  if (!knownTensor(self) || !knownTensor(n.output())) return std::nullopt;
  const std::string& op = n.kind();
  size_t count = n.inputs().size();
  int64_t rank = (int64_t)shapeOf(self).size();
  std::vector<int64_t> dims;  // empty: all
  bool keepdim = false;
  auto readKeep = [&](size_t i) {
    if (i >= count) return true;
    auto k = constInt(n.input(i));
    if (!k) return false;
    keepdim = *k != 0;
    return true;
  };
  auto readDims = [&](size_t i) {
    if (isNone(n.input(i))) return true;
    auto l = constIntList(n.input(i));
    if (!l) return false;
    dims = *l;
    return true;
  };
  bool ok = true;
  if (op == "norm" || count == 1) {
  } else if (op == "var" || op == "std") {
    if (count >= 4) ok = readDims(1) && readKeep(3);
  } else if (op == "sum" || op == "mean" || op == "prod") {
    if (count >= 3) ok = readDims(1) && readKeep(2);
  } else if (count >= 2) {
    ok = readDims(1) && readKeep(2);
  }
  if (!ok) return std::nullopt;
  try {
    ReduceInfo r;
    r.dims = normalizeReduceDims(dims, rank);
    r.keepdim = keepdim;
    if (reduceShape(shapeOf(self), dims, keepdim) != shapeOf(n.output())) return std::nullopt;
    return r;
  } catch (const UserError&) {
    return std::nullopt;
  }
}

bool keepsDim(const Node& n, int64_t d) {
  const Dims& os = shapeOf(n.output());
  if (n.is("tril") || n.is("triu")) return true;  // the mask depends on the index only
  if (n.is("flip")) {
    auto dims = constIntList(n.input(1));
    if (!dims) return false;
    for (int64_t f : *dims)
      if (normalizeDim(f, (int64_t)os.size()) == d) return false;
    return true;
  }
  if (n.is("repeat")) {
    auto reps = constIntList(n.input(1));
    return reps && d < (int64_t)reps->size() && (*reps)[d] == 1;
  }
  return false;
}

bool isExpensive(const Node& n) { return n.schema().has(kExpensive) || expensiveOps().count(n.kind()); }

bool isWhole(const Partition& p) { return p.splitDim == kWhole || p.sword <= 1; }

Partition normalized(const Partition& p) { return isWhole(p) && p.type == SchedType::Row ? Partition{} : p; }

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t i = 1; i * i <= n; ++i) {
    if (n % i != 0) continue;
    small.push_back(i);
    if (i != n / i) large.push_back(n / i);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

}  // namespace schedule_ops
}  // namespace stitch
