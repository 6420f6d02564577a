#include "ugraph/contraction_epilogue.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "ugraph/lowering.h"

namespace stitch {

namespace {

// An f32 tensor of fully known shape `shape`.
bool isF32Of(const Value* v, const std::vector<int64_t>& shape) {
  const TypePtr& t = v->type();
  return t && t->isTensor() && t->fullyKnown() && t->dtype() == DType::f32 && *t->shape() == shape;
}

bool readByAlone(const Value* v, const Node* reader) {
  for (const Use& u : v->uses())
    if (u.user != reader) return false;
  return !v->uses().empty();
}

// The activations of one tensor operand, by op; gelu's two forms apart.
const std::map<std::string, AluOp>& unaryActivations() {
  static const std::map<std::string, AluOp> ops = {
      {"relu", AluOp::Relu}, {"sigmoid", AluOp::Sigmoid}, {"tanh", AluOp::Tanh}, {"silu", AluOp::Silu}};
  return ops;
}

}  // namespace

std::optional<AluOp> epilogueActivation(const Node* n) {
  const std::map<std::string, AluOp>& ops = unaryActivations();
  if (n->is("gelu") && n->inputs().size() == 2) {
    const Constant* form = constantOf(n->input(1));
    if (!form || !form->isStr()) return std::nullopt;
    if (form->toStr() == "none") return AluOp::GeluErf;
    if (form->toStr() == "tanh") return AluOp::GeluTanh;
    return std::nullopt;
  }
  auto at = ops.find(n->kind());
  if (at == ops.end() || n->inputs().size() != 1) return std::nullopt;
  return at->second;
}

const std::vector<AluOp>& epilogueActivations() {
  static const std::vector<AluOp> ops = [] {
    std::vector<AluOp> all = {AluOp::GeluErf, AluOp::GeluTanh};
    for (const auto& [name, op] : unaryActivations()) all.push_back(op);
    return all;
  }();
  return ops;
}

bool compiledSteps(const std::vector<EpilogueStep>& steps) {
  return !steps.empty() && !(steps.size() == 1 && steps[0].activation == AluOp::Relu);
}

namespace {

// The tensor `n` combines with `value`, and how, if `n` is value + t (alpha
// 1, either side) or value * t; nullptr otherwise.
const Value* combinedWith(const Node* n, const Value* value, AluOp& combine) {
  if (n->is("add") && n->inputs().size() == 3) {
    auto alpha = lowering::constDouble(n->input(2));
    if (!alpha || *alpha != 1.0) return nullptr;
    combine = AluOp::Add;
  } else if (n->is("mul") && n->inputs().size() == 2) {
    combine = AluOp::Mul;
  } else {
    return nullptr;
  }
  const Value* other = n->input(0) == value ? n->input(1) : n->input(1) == value ? n->input(0) : nullptr;
  return other == value ? nullptr : other;
}

// Whether `n` is a product of the same kind as `product`, of the same A and
// of operands and a result of the same types, whose result only `group`
// reads.
bool siblingOf(const Node* product, const Node* n, const std::vector<const Node*>& group) {
  static const std::set<std::string> kinds = {"matmul", "mm", "linear"};
  if (n == product || !kinds.count(product->kind()) || n->kind() != product->kind() ||
      n->inputs().size() != product->inputs().size() || n->outputs().size() != 1 ||
      n->input(0) != product->input(0) || n->owningBlock() != product->owningBlock())
    return false;
  for (size_t i = 1; i < n->inputs().size(); ++i) {
    const TypePtr& a = n->input(i)->type();
    const TypePtr& b = product->input(i)->type();
    if (!a || !b || !(*a == *b)) return false;
  }
  const TypePtr& out = n->output()->type();
  if (!out || !(*out == *product->output()->type())) return false;
  for (const Use& u : n->output()->uses())
    if (std::find(group.begin(), group.end(), u.user) == group.end()) return false;
  return !n->output()->uses().empty();
}

}  // namespace

std::optional<ContractionEpilogue> contractionEpilogue(const Node* product, const std::vector<const Node*>& group) {
  std::vector<const Node*> steps;
  for (const Node* n : group)
    if (!n->is("prim.constant")) steps.push_back(n);
  if (steps.empty() || product->outputs().size() != 1) return std::nullopt;
  const Value* value = product->output();
  const TypePtr& type = value->type();
  if (!type || !type->isTensor() || !type->fullyKnown() || type->dtype() != DType::f32 || type->shape()->empty())
    return std::nullopt;
  const std::vector<int64_t> shape = *type->shape();
  ContractionEpilogue e;
  if (siblingOf(product, steps[0], group)) {
    e.sibling = steps[0];
    steps.erase(steps.begin());
    if (steps.empty()) return std::nullopt;
  }
  // Values the kernel computes: an operand must come from outside, or be
  // the sibling's product.
  std::set<const Value*> computed{value};
  for (const Node* n : steps) {
    if (n->outputs().size() != 1 || n->owningBlock() != product->owningBlock()) return std::nullopt;
    computed.insert(n->output());
  }
  size_t next = 0;
  AluOp combine;
  const Value* row = combinedWith(steps[0], value, combine);
  if (row && combine == AluOp::Add && !isF32Of(row, shape) && isF32Of(row, {shape.back()})) {
    if (!readByAlone(value, steps[0]) || !isF32Of(steps[0]->output(), shape)) return std::nullopt;
    e.bias = row;
    value = steps[0]->output();
    next = 1;
  }
  // An operand's activation, by its result: the operand and the activation.
  std::map<const Value*, std::pair<const Value*, AluOp>> activatedOperands;
  for (; next < steps.size(); ++next) {
    const Node* n = steps[next];
    if (!isF32Of(n->output(), shape)) return std::nullopt;
    if (std::optional<AluOp> act = epilogueActivation(n)) {
      const Value* in = n->input(0);
      if (in == value) {
        if (!readByAlone(value, n)) return std::nullopt;
        e.steps.push_back({act, AluOp::Add, std::nullopt});
      } else {
        if (!isF32Of(in, shape) || computed.count(in)) return std::nullopt;
        activatedOperands[n->output()] = {in, *act};
        continue;
      }
    } else {
      EpilogueStep step;
      const Value* other = combinedWith(n, value, step.combine);
      if (!other || !readByAlone(value, n)) return std::nullopt;
      auto activated = activatedOperands.find(other);
      if (activated != activatedOperands.end()) {
        if (!readByAlone(other, n)) return std::nullopt;
        step.operandActivation = activated->second.second;
        other = activated->second.first;
        activatedOperands.erase(activated);
      } else if (!isF32Of(other, shape) || computed.count(other)) {
        return std::nullopt;
      }
      e.steps.push_back(step);
      e.operands.push_back(other);
    }
    value = n->output();
  }
  if (!activatedOperands.empty() || e.steps.size() > kMaxEpilogueSteps) return std::nullopt;
  if (e.sibling && std::find(e.operands.begin(), e.operands.end(), e.sibling->output()) == e.operands.end())
    return std::nullopt;
  e.output = value;
  return e;
}

}  // namespace stitch
