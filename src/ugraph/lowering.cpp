#include "ugraph/lowering.h"

#include <algorithm>

#include "common/error.h"
#include "ir/static_value.h"
#include "ir/view_shape.h"

namespace stitch {

namespace {

const LoweringTable& table() {
  static const LoweringTable t = [] {
    LoweringTable t;
    registerElementwiseLowerings(t);
    registerReductionLowerings(t);
    registerAccessLowerings(t);
    registerContractionLowerings(t);
    registerCreationLowerings(t);
    registerCopyLowerings(t);
    return t;
  }();
  return t;
}

}  // namespace

// Whether every tensor operand broadcasts into the node's static output
// shape. Not so only in a program that fails when it runs (an in-place op
// whose operand does not fit its destination, rewritten out of place keeps
// the destination's type): the host op then raises the error.
static bool operandsFitOutput(const Node& node) {
  const TypePtr& out = node.output()->type();
  if (!out->isTensor() || !out->shape()) return false;
  const Dims& shape = *out->shape();
  for (const Value* in : node.inputs()) {
    if (!in->type()->isTensor()) continue;
    if (!in->type()->shape()) return false;
    const Dims& s = *in->type()->shape();
    if (s.size() > shape.size()) return false;
    size_t lead = shape.size() - s.size();
    for (size_t d = 0; d < s.size(); ++d)
      if (s[d] != 1 && s[d] != shape[lead + d]) return false;
  }
  return true;
}

const LoweringRule* findLowering(const Node& node) {
  auto it = table().find(node.kind());
  if (it == table().end()) return nullptr;
  if (node.outputs().size() != 1) return nullptr;
  if (it->second.elementwise && !operandsFitOutput(node)) return nullptr;
  try {
    return it->second.accepts(node) ? &it->second : nullptr;
  } catch (const UserError&) {
    // The dtype helpers throw for programs the interpreter rejects at run
    // time; those stay host ops so the error is raised the same way.
    return nullptr;
  }
}

int LowerContext::inputSlot(const Value* v) {
  auto it = std::find(kernel_.inputs.begin(), kernel_.inputs.end(), v);
  if (it != kernel_.inputs.end()) return (int)(it - kernel_.inputs.begin());
  kernel_.inputs.push_back(v);
  return (int)kernel_.inputs.size() - 1;
}

int LowerContext::element(const Value* v, const std::vector<int>& idx) {
  const Dims& shape = lowering::shapeOf(v);
  STITCH_ASSERT(idx.size() == shape.size(), "element index rank ", idx.size(), " for a value of rank ",
                shape.size());
  if (!group_.count(v->node())) {
    // Size-1 dims hold one element: their index is 0 and drops out.
    Dims strides = rowMajorStrides(shape);
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] == 1) strides[d] = 0;
    return tg_.load(inputSlot(v), lowering::dtypeOf(v), tg_.stridedIndex(idx, strides, 0));
  }
  auto key = std::make_pair(v, idx);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  auto rec = recorded_.find(v);
  if (rec != recorded_.end()) rec->second.push_back(idx);
  int r = buffered_.count(v) ? bufferedElement(v, idx) : -1;
  if (r < 0) r = expand(v, idx);
  if (rec != recorded_.end()) recordedResults_.at(v).push_back(r);
  memo_.emplace(key, r);
  return r;
}

void LowerContext::bufferValue(const Value* v, std::vector<char> fixedDims, int localSlot) {
  STITCH_ASSERT(group_.count(v->node()), "buffering a value from outside the group");
  STITCH_ASSERT(fixedDims.size() == lowering::shapeOf(v).size(), "buffer dims of the wrong rank");
  Buffered& b = buffered_[v];
  b.fixed = std::move(fixedDims);
  b.slot = localSlot;
}

int LowerContext::newLocal(DType dtype, int64_t elements, const std::string& holds) {
  LocalBuffer lb;
  lb.name = "tile" + std::to_string(kernel_.block.locals.size());
  lb.dtype = dtype;
  lb.elements = elements;
  lb.holds = holds;
  kernel_.block.locals.push_back(lb);
  return (int)kernel_.block.locals.size() - 1;
}

int LowerContext::bufferedElement(const Value* v, const std::vector<int>& idx) {
  Buffered& b = buffered_.at(v);
  const Dims& shape = lowering::shapeOf(v);
  if (b.fill < 0) {
    std::vector<int> at(idx.size()), vars;
    for (size_t d = 0; d < idx.size(); ++d) {
      if (b.fixed[d]) {
        at[d] = idx[d];
        continue;
      }
      at[d] = tg_.newReduceVar(shape[d]);
      vars.push_back(at[d]);
    }
    b.fixedIdx = idx;
    b.fill = tg_.fill(b.slot, expand(v, at), vars);
  } else {
    for (size_t d = 0; d < idx.size(); ++d)
      if (b.fixed[d] && idx[d] != b.fixedIdx[d]) return -1;  // outside the tile: recompute
  }
  std::vector<int> tileIdx;
  Dims tileShape;
  for (size_t d = 0; d < idx.size(); ++d)
    if (!b.fixed[d]) {
      tileIdx.push_back(idx[d]);
      tileShape.push_back(shape[d]);
    }
  return tg_.localLoad(b.fill, tg_.flatIndex(tileIdx, tileShape));
}

int LowerContext::expand(const Value* v, const std::vector<int>& idx) {
  const Node& producer = *v->node();
  const LoweringRule* rule = findLowering(producer);
  STITCH_ASSERT(rule != nullptr, "no lowering for grouped node ", producer.kind());
  int r = rule->lower(*this, producer, idx);
  STITCH_ASSERT(tg_.node(r).dtype == lowering::dtypeOf(v), producer.kind(), " lowered to ",
                dtypeName(tg_.node(r).dtype), " but its output is ", dtypeName(lowering::dtypeOf(v)));
  return r;
}

int LowerContext::elementAtFlat(const Value* v, int flat) {
  if (!group_.count(v->node())) return tg_.load(inputSlot(v), lowering::dtypeOf(v), flat);
  return element(v, unflatten(flat, lowering::shapeOf(v)));
}

std::vector<int> LowerContext::unflatten(int flat, const Dims& shape) {
  std::vector<int> idx(shape.size());
  Dims strides = rowMajorStrides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      idx[d] = c(0);
      continue;
    }
    int q = strides[d] == 1 ? flat : tg_.alu(AluOp::Div, DType::i64, {flat, c(strides[d])});
    idx[d] = d == 0 ? q : tg_.alu(AluOp::Mod, DType::i64, {q, c(shape[d])});
  }
  return idx;
}

std::vector<int> LowerContext::reshapeIndex(const std::vector<int>& idx, const Dims& from, const Dims& to) {
  if (numelOfShape(from) == 0) return unflatten(tg_.flatIndex(idx, from), to);
  std::vector<size_t> f, t;  // the dims of size > 1
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1) f.push_back(d);
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d] != 1) t.push_back(d);
  std::vector<int> out(to.size(), -1);
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d] == 1) out[d] = c(0);
  size_t a = 0, b = 0;
  while (a < f.size() && b < t.size()) {
    size_t a1 = a + 1, b1 = b + 1;
    int64_t pf = from[f[a]], pt = to[t[b]];
    while (pf != pt) {
      if (pf < pt) pf *= from[f[a1++]];
      else pt *= to[t[b1++]];
    }
    std::vector<int> groupIdx;
    Dims groupFrom, groupTo;
    for (size_t k = a; k < a1; ++k) {
      groupIdx.push_back(idx[f[k]]);
      groupFrom.push_back(from[f[k]]);
    }
    for (size_t k = b; k < b1; ++k) groupTo.push_back(to[t[k]]);
    std::vector<int> groupOut = unflatten(tg_.flatIndex(groupIdx, groupFrom), groupTo);
    for (size_t k = b; k < b1; ++k) out[t[k]] = groupOut[k - b];
    a = a1;
    b = b1;
  }
  STITCH_ASSERT(a == f.size() && b == t.size(), "reshape of ", dimsToString(from), " to ", dimsToString(to),
                " with a different element count");
  return out;
}

int LowerContext::elementReshaped(const Value* v, const std::vector<int>& idx, const Dims& shape) {
  if (!group_.count(v->node())) return elementAtFlat(v, tg_.flatIndex(idx, shape));
  return element(v, reshapeIndex(idx, shape, lowering::shapeOf(v)));
}

int LowerContext::clampIndex(int x, int64_t lo, int64_t hi) {
  int up = tg_.alu(AluOp::Min, DType::i64, {x, c(hi)});
  return tg_.alu(AluOp::Max, DType::i64, {up, c(lo)});
}

int LowerContext::scalar(const Value* v) {
  if (const Constant* k = constantOf(v)) {
    if (k->isBool()) return tg_.constInt(k->toBool(), DType::b8);
    if (k->isInt()) return tg_.constInt(k->toInt(), DType::i64);
    if (k->isFloat()) return tg_.constFloat(k->toDouble(), DType::f64);
    STITCH_ASSERT(false, "scalar operand constant ", k->str());
  }
  auto it = std::find(kernel_.params.begin(), kernel_.params.end(), v);
  int slot = (int)(it - kernel_.params.begin());
  if (it == kernel_.params.end()) kernel_.params.push_back(v);
  return tg_.param(slot, kernelParamDType(v));
}

int LowerContext::scalarAs(const Value* v, DType dtype) {
  if (const Constant* k = constantOf(v)) {
    // Folded here as the interpreter converts a Python scalar (static_cast).
    if (isFloating(dtype)) {
      double d = k->isFloat() ? k->toDouble() : k->isBool() ? (double)k->toBool() : (double)k->toInt();
      if (k->isInt() && dtype == DType::f32) d = (double)(float)k->toInt();
      return tg_.constFloat(d, dtype);
    }
    int64_t i = 0;
    if (k->isFloat()) {
      double d = k->toDouble();
      if (dtype == DType::b8) i = d != 0;
      else if (dtype == DType::i32) i = (int32_t)d;
      else i = (int64_t)d;
    } else {
      i = k->isBool() ? (int64_t)k->toBool() : k->toInt();
      if (dtype == DType::i32) i = (int32_t)i;
    }
    return tg_.constInt(i, dtype);
  }
  return tg_.cast(scalar(v), dtype);
}

namespace lowering {

const Dims& shapeOf(const Value* v) {
  STITCH_ASSERT(v->type()->isTensor() && v->type()->shape(), "value without a static shape");
  return *v->type()->shape();
}

DType dtypeOf(const Value* v) {
  STITCH_ASSERT(v->type()->isTensor() && v->type()->dtype(), "value without a static dtype");
  return *v->type()->dtype();
}

bool isTensor(const Value* v) { return v->type()->isTensor(); }
bool isScalarValue(const Value* v) { return v->type()->isScalar(); }

std::optional<int64_t> constInt(const Value* v) { return staticInt(v); }

std::optional<double> constDouble(const Value* v) {
  const Constant* k = constantOf(v);
  if (k && (k->isInt() || k->isFloat() || k->isBool())) return k->toDouble();
  return std::nullopt;
}

std::optional<bool> constBool(const Value* v) {
  const Constant* k = constantOf(v);
  if (k && k->isBool()) return k->toBool();
  return std::nullopt;
}

std::optional<std::vector<int64_t>> constIntList(const Value* v) { return staticIntList(v); }

bool isNoneValue(const Value* v) { return isNoneConstant(v); }

bool isAssign(const Node& n) {
  const std::string& k = n.kind();
  return k.size() > 4 && k.compare(k.size() - 4, 4, "_rev") == 0;
}

std::optional<DType> constDType(const Value* v) {
  const Constant* k = constantOf(v);
  if (k && k->isDType()) return k->toDType();
  return std::nullopt;
}

std::vector<int> broadcastIndex(LowerContext& ctx, const std::vector<int>& idx, const Dims& operandShape) {
  STITCH_ASSERT(operandShape.size() <= idx.size(), "operand rank above the output's");
  size_t lead = idx.size() - operandShape.size();
  std::vector<int> out(operandShape.size());
  for (size_t d = 0; d < operandShape.size(); ++d)
    out[d] = operandShape[d] == 1 ? ctx.c(0) : idx[lead + d];
  return out;
}

int64_t numel(const Dims& shape) { return numelOfShape(shape); }

std::optional<std::pair<int64_t, int64_t>> intRange(const Value* v) {
  if (auto c = constInt(v)) return std::make_pair(*c, *c);
  // A counter plus or minus a constant (`w[l + 1]` in a loop whose first
  // iteration was peeled).
  const Node* def = v->node();
  if (!v->isBlockParam() && (def->is("scalar.add") || def->is("scalar.sub")) && def->inputs().size() == 2 &&
      v->type()->kind() == TypeKind::Int) {
    const bool sub = def->is("scalar.sub");
    auto a = intRange(def->input(0)), b = intRange(def->input(1));
    if (!a || !b || (!constInt(def->input(0)) && !constInt(def->input(1)))) return std::nullopt;
    constexpr int64_t kLimit = int64_t(1) << 40;  // far from overflow
    for (int64_t x : {a->first, a->second, b->first, b->second})
      if (x < -kLimit || x > kLimit) return std::nullopt;
    return sub ? std::make_pair(a->first - b->second, a->second - b->first)
               : std::make_pair(a->first + b->first, a->second + b->second);
  }
  if (!v->isBlockParam() || v->offset() != 0) return std::nullopt;
  const Block* body = v->node()->owningBlock();
  const Node* loop = body ? body->owningNode() : nullptr;
  if (!loop || !loop->is("prim.loop") || loop->block(0) != body) return std::nullopt;
  auto trips = constInt(loop->input(0));
  if (!trips || *trips < 1) return std::nullopt;
  return std::make_pair(int64_t(0), *trips - 1);
}

std::optional<std::vector<const Value*>> listElements(const Value* list) {
  if (list->type()->kind() != TypeKind::List || !list->node()->is("prim.list_construct")) return std::nullopt;
  std::vector<const Value*> out(list->node()->inputs().begin(), list->node()->inputs().end());
  if (out.empty()) return std::nullopt;
  for (const Value* v : out)
    if (!isTensor(v) || !v->type()->fullyKnown()) return std::nullopt;
  return out;
}

PromoteArg promoteArgOf(const Value* v) {
  if (isTensor(v)) return tensorArg(dtypeOf(v), (int64_t)shapeOf(v).size());
  switch (v->type()->kind()) {
    case TypeKind::Bool: return boolScalarArg();
    case TypeKind::Int: return intScalarArg();
    default: return floatScalarArg();
  }
}

}  // namespace lowering

}  // namespace stitch
