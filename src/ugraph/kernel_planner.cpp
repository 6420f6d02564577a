#include "ugraph/kernel_planner.h"

#include <algorithm>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ugraph/block_graph_builder.h"
#include "ugraph/lowering.h"

namespace stitch {

namespace {

bool knownTensor(const TypePtr& t) { return t->isTensor() && t->fullyKnown(); }

// Tensors inside a list argument of `user` (cat's Tensor[] built by a
// prim.list_construct of the user's block; the kernel reads its tensors).
bool listElementsKnown(const Value* v, const Node* user) {
  if (!v->type()->elem()->isTensor()) return true;
  if (!v->node()->is("prim.list_construct") || v->node()->owningBlock() != user->owningBlock()) return false;
  for (const Value* e : v->node()->inputs())
    if (!knownTensor(e->type())) return false;
  return true;
}

bool lowerable(const Node* n) {
  const OpSchema& s = n->schema();
  if (!s.isPure() || s.isView() || s.isInPlace() || !n->blocks().empty()) return false;
  if (n->outputs().size() != 1 || !knownTensor(n->output()->type())) return false;
  if (lowering::numel(*n->output()->type()->shape()) == 0) return false;
  for (const Value* in : n->inputs()) {
    const TypePtr& t = in->type();
    if (t->isTensor() && !t->fullyKnown()) return false;
    if (t->kind() == TypeKind::List && !listElementsKnown(in, n)) return false;
    if (t->kind() == TypeKind::Tuple) return false;
  }
  return findLowering(*n) != nullptr;
}

// Multiply-adds above which a contraction is a predefined kernel (the
// library routine: a tiled loop nest that reads both operands in order)
// rather than a generated loop nest, whose serial double accumulation with
// a strided second operand runs about 6x slower at sizes like 258x387x1935.
constexpr int64_t kPredefinedContractionMacs = int64_t(1) << 18;

bool isLargeContraction(const Node* n) {
  static const char* const kOps[] = {"mm", "bmm", "matmul", "linear"};
  if (std::none_of(std::begin(kOps), std::end(kOps), [&](const char* op) { return n->is(op); }))
    return false;
  const std::vector<int64_t>& a = *n->input(0)->type()->shape();
  if (a.empty()) return false;
  int64_t k = a.back();  // the contracted extent of every op above
  return lowering::numel(*n->output()->type()->shape()) * k > kPredefinedContractionMacs;
}

class Planner {
 public:
  Planner(const PlanOptions& options, KernelGraph& out) : options_(options), out_(out) {}

  void planBlock(const Block* block) {
    std::unordered_map<const Node*, int> groupOf;
    std::vector<std::vector<const Node*>> groups;
    std::vector<Node*> nodes = block->nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      const Node* n = *it;
      if (!lowerable(n)) continue;
      int join = options_.fuseChains ? consumerGroup(n, block, groupOf) : -1;
      if (join < 0) {
        join = (int)groups.size();
        groups.emplace_back();
      }
      groups[join].push_back(n);
      groupOf[n] = join;
    }
    // A Tensor[] built for one lowered node (cat, stack, einsum) and used
    // by nothing else joins its group: the list is never built. A list with
    // other users stays a host op; either way its tensors are kernel inputs.
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      std::vector<const Node*> lists;
      for (const Node* n : groups[gi])
        for (const Value* in : n->inputs())
          if (in->node()->is("prim.list_construct") && in->uses().size() == 1 &&
              in->node()->owningBlock() == block && !groupOf.count(in->node()))
            lists.push_back(in->node());
      for (const Node* l : lists) {
        groups[gi].push_back(l);
        groupOf[l] = (int)gi;
      }
    }
    std::unordered_map<const Node*, size_t> position;
    for (size_t i = 0; i < nodes.size(); ++i) position[nodes[i]] = i;
    for (auto& g : groups)  // program order
      std::sort(g.begin(), g.end(), [&](const Node* a, const Node* b) { return position.at(a) < position.at(b); });
    // Kernels in program order: a group is emitted at its last node, loop
    // and branch bodies where their node stands.
    for (const Node* n : nodes) {
      for (const Block* sub : n->blocks()) planBlock(sub);
      auto it = groupOf.find(n);
      if (it != groupOf.end() && groups[it->second].back() == n) emitKernel(groups[it->second]);
    }
  }

 private:
  // The group n joins: that of the one lowerable elementwise node using it.
  int consumerGroup(const Node* n, const Block* block,
                    const std::unordered_map<const Node*, int>& groupOf) const {
    const LoweringRule* rule = findLowering(*n);
    if (!rule->elementwise) return -1;
    const auto& uses = n->output()->uses();
    if (uses.empty()) return -1;
    const Node* user = uses.front().user;
    for (const Use& u : uses)
      if (u.user != user) return -1;
    if (user->owningBlock() != block) return -1;
    auto it = groupOf.find(user);
    if (it == groupOf.end()) return -1;
    const LoweringRule* userRule = findLowering(*user);
    if (!userRule || !userRule->elementwise) return -1;
    return it->second;
  }

  void emitKernel(const std::vector<const Node*>& group) {
    Kernel k;
    k.name = "k" + std::to_string(out_.kernels.size());
    k.kind = KernelKind::GraphDefined;
    k.nodes = group;
    if (group.size() == 1 && isLargeContraction(group[0])) return emitContraction(std::move(k));
    std::unordered_set<const Node*> members(group.begin(), group.end());
    for (const Node* n : group) {
      if (n->is("prim.list_construct")) continue;  // consumed inside the kernel
      const Value* v = n->output();
      bool usedOutside = std::any_of(v->uses().begin(), v->uses().end(),
                                     [&](const Use& u) { return !members.count(u.user); });
      if (usedOutside) k.outputs.push_back(v);
    }
    if (k.outputs.empty()) k.outputs.push_back(group.back()->output());
    buildBlockGraph(k);
    int index = (int)out_.kernels.size();
    out_.kernelAt[group.back()] = index;
    for (const Node* n : group) out_.inKernel.insert(n);
    out_.kernels.push_back(std::move(k));
  }

  void emitContraction(Kernel k) {
    const Node* n = k.nodes[0];
    k.kind = KernelKind::Contraction;
    k.outputs = {n->output()};
    for (const Value* in : n->inputs())
      if (in->type()->isTensor() && std::find(k.inputs.begin(), k.inputs.end(), in) == k.inputs.end())
        k.inputs.push_back(in);
    out_.kernelAt[n] = (int)out_.kernels.size();
    out_.inKernel.insert(n);
    out_.kernels.push_back(std::move(k));
  }

  const PlanOptions& options_;
  KernelGraph& out_;
};

}  // namespace

KernelGraph planKernels(const Graph& graph, const PlanOptions& options) {
  KernelGraph out;
  Planner(options, out).planBlock(graph.top());
  return out;
}

}  // namespace stitch
