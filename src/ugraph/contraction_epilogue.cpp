#include "ugraph/contraction_epilogue.h"

#include <map>
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

std::optional<ContractionEpilogue> contractionEpilogue(const Node* product, const std::vector<const Node*>& group) {
  std::vector<const Node*> steps;
  for (const Node* n : group)
    if (!n->is("prim.constant")) steps.push_back(n);
  if (steps.empty() || steps.size() > 2 || product->outputs().size() != 1) return std::nullopt;
  const Value* value = product->output();
  const TypePtr& type = value->type();
  if (!type || !type->isTensor() || !type->fullyKnown() || type->dtype() != DType::f32 || type->shape()->empty())
    return std::nullopt;
  const std::vector<int64_t> shape = *type->shape();
  ContractionEpilogue e;
  size_t next = 0;
  const Node* add = steps[0];
  if (add->is("add") && add->inputs().size() == 3 && add->outputs().size() == 1) {
    const Value* other = add->input(0) == value ? add->input(1) : add->input(1) == value ? add->input(0) : nullptr;
    auto alpha = lowering::constDouble(add->input(2));
    if (!other || other == value || !alpha || *alpha != 1.0 || !isF32Of(other, {shape.back()})) return std::nullopt;
    if (!readByAlone(value, add) || !isF32Of(add->output(), shape)) return std::nullopt;
    e.bias = other;
    value = add->output();
    next = 1;
  }
  if (next < steps.size()) {
    const Node* act = steps[next];
    e.activation = epilogueActivation(act);
    if (!e.activation || act->input(0) != value || act->outputs().size() != 1 || !readByAlone(value, act) ||
        !isF32Of(act->output(), shape))
      return std::nullopt;
    value = act->output();
    ++next;
  }
  if (next != steps.size()) return std::nullopt;
  for (const Node* n : steps)
    if (n->owningBlock() != product->owningBlock()) return std::nullopt;
  e.output = value;
  return e;
}

}  // namespace stitch
