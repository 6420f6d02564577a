#include "fusion/fusion_rules.h"

#include <algorithm>

#include "ir/op_registry.h"

namespace stitch {

namespace {

// Multiply-adds above which a contraction is a predefined kernel (the
// tensor-operation backend's GEMM) rather than a generated loop nest, whose
// serial double accumulation with a strided second operand runs about 6x
// slower than even a tiled routine at sizes like 258x387x1935.
constexpr int64_t kPredefinedContractionMacs = int64_t(1) << 18;

bool endsWith(const std::string& s, const char* suffix) {
  std::string t(suffix);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

int64_t numelOf(const Value* v) {
  const TypePtr& t = v->type();
  if (!t->isTensor() || !t->shape()) return -1;
  int64_t n = 1;
  for (int64_t d : *t->shape()) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

// The base of an Assign op comes from a member of the group.
bool baseInside(const Node* assign, const std::unordered_set<const Node*>& inGroup) {
  return inGroup.count(assign->input(0)->node()) != 0;
}

bool usedInside(const Node* n, const std::unordered_set<const Node*>& inGroup, const BlockDeps& deps) {
  const auto& users = deps.usersOf(n);
  return std::any_of(users.begin(), users.end(), [&](const Node* u) { return inGroup.count(u) != 0; });
}

bool usedOutside(const Node* n, const std::unordered_set<const Node*>& inGroup, const BlockDeps& deps) {
  if (deps.isReturned(n)) return true;
  const auto& users = deps.usersOf(n);
  return std::any_of(users.begin(), users.end(), [&](const Node* u) { return inGroup.count(u) == 0; });
}

// Index arithmetic only: an access op (view or Assign form) or a copy.
bool accessOp(const Node* n) { return n->kind().rfind("immut.", 0) == 0 || n->is("clone"); }

// Whether a contraction of the group computes an operand inside the group
// (beyond index arithmetic on values from outside).
bool computesOperand(const Node* n, const std::unordered_set<const Node*>& inGroup, const BlockDeps& deps) {
  std::vector<const Node*> stack(deps.producersOf(n).begin(), deps.producersOf(n).end());
  std::unordered_set<const Node*> seen;
  while (!stack.empty()) {
    const Node* p = stack.back();
    stack.pop_back();
    if (!inGroup.count(p) || !seen.insert(p).second) continue;
    if (!accessOp(p)) return true;
    stack.insert(stack.end(), deps.producersOf(p).begin(), deps.producersOf(p).end());
  }
  return false;
}

}  // namespace

bool isAssignOp(const Node* n) {
  const std::string& k = n->kind();
  return k == "immut.assign" || (k.rfind("immut.", 0) == 0 && endsWith(k, "_rev"));
}

bool isLargeContraction(const Node* n) {
  static const char* const kOps[] = {"mm", "bmm", "matmul", "linear"};
  if (std::none_of(std::begin(kOps), std::end(kOps), [&](const char* op) { return n->is(op); })) return false;
  if (n->inputs().empty() || n->outputs().size() != 1) return false;
  const TypePtr& a = n->input(0)->type();
  if (!a->isTensor() || !a->shape() || a->shape()->empty()) return false;
  int64_t k = a->shape()->back();  // the contracted extent of every op above
  int64_t outputs = numelOf(n->output());
  if (k < 0 || outputs < 0) return true;  // unknown sizes: leave it to the library
  return outputs * k > kPredefinedContractionMacs;
}

bool mayFuse(const Node* n, const FusionOptions& options) {
  const OpSchema& s = n->schema();
  if (!s.isPure() || s.has(kControl) || !n->blocks().empty()) return false;  // side effects, control flow
  if (!options.kernelOp || !options.kernelOp(n)) return false;
  return options.predefinedKernel ? !options.predefinedKernel(n) : !isLargeContraction(n);
}

const char* neverFuseReason(const std::vector<const Node*>& members, const std::unordered_set<const Node*>& inGroup,
                            const BlockDeps& deps, const FusionOptions& options) {
  if (members.size() <= 1) return nullptr;
  for (const Node* n : members) {
    if (!mayFuse(n, options)) return "a member runs alone";
    if (isAssignOp(n) && !baseInside(n, inGroup)) return "an Assign op's base comes from outside";
    if (n->schema().has(kExpensive) && usedInside(n, inGroup, deps) && usedOutside(n, inGroup, deps))
      return "an expensive producer is also used outside";
    if (n->schema().has(kExpensive) && computesOperand(n, inGroup, deps))
      return "a contraction would compute an operand again per output";
  }
  return nullptr;
}

}  // namespace stitch
