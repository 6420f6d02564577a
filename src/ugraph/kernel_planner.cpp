#include "ugraph/kernel_planner.h"

#include <algorithm>
#include <unordered_map>

#include "common/error.h"
#include "fusion/block_deps.h"
#include "fusion/fusion_groups.h"
#include "fusion/fusion_plan_verifier.h"
#include "fusion/fusion_rules.h"
#include "ir/op_registry.h"
#include "ugraph/block_graph_builder.h"
#include "ugraph/contraction_epilogue.h"
#include "ugraph/loop_kernels.h"
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

}  // namespace

bool canRunInKernel(const Node* n) {
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

namespace {

bool lowerable(const Node* n) { return canRunInKernel(n); }


class Planner {
 public:
  Planner(const PlanOptions& options, KernelGraph& out) : options_(options), out_(out) {}

  void planBlock(const Block* block) {
    std::unordered_map<const Node*, int> groupOf;
    std::vector<std::vector<const Node*>> groups;
    std::vector<const FusedGroup*> fused;  // per group, with a fusion plan
    std::vector<Node*> nodes = block->nodes();
    if (options_.fusion) groupsFromPlan(block, groupOf, groups, fused);
    for (auto it = nodes.rbegin(); it != nodes.rend() && !options_.fusion; ++it) {
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
    BlockDeps deps = analyzeBlockDeps(block, lowerable);
    for (const Node* n : nodes) {
      for (const Block* sub : n->blocks()) planBlock(sub);
      auto it = groupOf.find(n);
      if (it != groupOf.end() && groups[it->second].back() == n)
        emitKernel(groups[it->second], fused.empty() ? nullptr : fused[it->second], deps);
      else if (it == groupOf.end() && n->is("fused.attention"))
        emitPredefined(n, KernelKind::Attention);
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

  // The fusion plan's groups of this block (verifyFusionPlan has checked
  // them against the graph).
  void groupsFromPlan(const Block* block, std::unordered_map<const Node*, int>& groupOf,
                      std::vector<std::vector<const Node*>>& groups, std::vector<const FusedGroup*>& fused) {
    const FusionPlan& plan = *options_.fusion;
    std::unordered_map<int, int> local;  // plan group -> index in groups
    for (const Node* n : *block) {
      auto it = plan.groupOf.find(n);
      if (it == plan.groupOf.end()) continue;
      auto [at, isNew] = local.emplace(it->second, (int)groups.size());
      if (isNew) {
        groups.push_back(plan.groups.at(it->second).nodes);
        fused.push_back(&plan.groups.at(it->second));
      }
      groupOf[n] = at->second;
    }
  }

  void emitKernel(const std::vector<const Node*>& group, const FusedGroup* fusedGroup, const BlockDeps& deps) {
    Kernel k;
    k.name = "k" + std::to_string(out_.kernels.size());
    k.kind = KernelKind::GraphDefined;
    k.nodes = group;
    if (group.size() == 1 && isLargeContraction(group[0])) return emitPredefined(group[0], KernelKind::Contraction);
    if (mergeIntoContraction(group)) return;
    if (fusedGroup) {
      k.outputs = fusedGroup->roots;
      buildBlockGraph(k, fusedGroup);
      return addKernel(std::move(k));
    }
    std::unordered_set<const Node*> members(group.begin(), group.end());
    k.outputs = groupRoots(group, members, deps);
    buildBlockGraph(k);
    addKernel(std::move(k));
  }

  void addKernel(Kernel k) {
    out_.kernelAt[k.nodes.back()] = (int)out_.kernels.size();
    for (const Node* n : k.nodes) out_.inKernel.insert(n);
    out_.kernels.push_back(std::move(k));
  }

  // A group that is the bias and steps of the contraction planned just
  // before it becomes that kernel's epilogue (contraction_epilogue.h): the
  // product's tiles get them while in cache, and the product is never a
  // tensor of its own. The kernel now runs where the group did (a kernel
  // reads its inputs at its last node): the bias and the steps' operands
  // exist there, and the contraction's operands stay live until then.
  // Pure graphs only, as for chains (fuseChains): in an imperative one an
  // in-place write between the product and the group, a host op, would
  // reach the product's operands first.
  bool mergeIntoContraction(const std::vector<const Node*>& group) {
    if (!options_.fuseChains || out_.kernels.empty()) return false;
    Kernel& k = out_.kernels.back();
    if (k.kind != KernelKind::Contraction || k.nodes.size() != 1) return false;
    std::optional<ContractionEpilogue> epilogue = contractionEpilogue(k.nodes[0], group);
    if (!epilogue) return false;
    out_.kernelAt.erase(k.nodes[0]);
    for (const Node* n : group) {
      k.nodes.push_back(n);
      out_.inKernel.insert(n);
    }
    k.outputs = {epilogue->output};
    std::vector<const Value*> read = epilogue->operands;
    if (epilogue->bias) read.insert(read.begin(), epilogue->bias);
    for (const Value* v : read)
      if (std::find(k.inputs.begin(), k.inputs.end(), v) == k.inputs.end()) k.inputs.push_back(v);
    out_.kernelAt[k.nodes.back()] = (int)out_.kernels.size() - 1;
    absorbSibling();
    return true;
  }

  // The lone contraction planned just before the last kernel, when it is
  // the sibling of the last one's product (contraction_epilogue.h: the same
  // A, its result read by the epilogue alone), joins that kernel, which
  // computes both products tile by tile: SwiGLU's gate and up products and
  // their silu(g) * u become one kernel. It then runs later, where the
  // epilogue stood (a pure graph: nothing it reads changes in between).
  void absorbSibling() {
    if (out_.kernels.size() < 2) return;
    const Kernel& k = out_.kernels.back();
    const Kernel& p = out_.kernels[out_.kernels.size() - 2];
    if (p.kind != KernelKind::Contraction || p.nodes.size() != 1) return;
    std::vector<const Node*> group = {p.nodes[0]};
    group.insert(group.end(), k.nodes.begin() + 1, k.nodes.end());
    std::optional<ContractionEpilogue> epilogue = contractionEpilogue(k.nodes[0], group);
    if (!epilogue || epilogue->sibling != p.nodes[0]) return;
    Kernel merged = k;
    merged.name = p.name;
    merged.nodes.insert(merged.nodes.begin() + 1, p.nodes[0]);
    for (const Value* v : p.inputs)
      if (std::find(merged.inputs.begin(), merged.inputs.end(), v) == merged.inputs.end()) merged.inputs.push_back(v);
    out_.kernelAt.erase(p.nodes.back());
    out_.kernelAt.erase(k.nodes.back());
    out_.kernels.pop_back();
    out_.kernels.pop_back();
    addKernel(std::move(merged));
  }

  // One node run by a routine of the runtime; its tensor inputs are the
  // kernel's (a scalar input such as attention's scale is read at the call).
  void emitPredefined(const Node* n, KernelKind kind) {
    Kernel k;
    k.name = "k" + std::to_string(out_.kernels.size());
    k.kind = kind;
    k.nodes = {n};
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
  if (options.fusion) verifyFusionPlan(graph, *options.fusion, canRunInKernel);
  KernelGraph out;
  Planner(options, out).planBlock(graph.top());
  if (options.loopKernels) planLoopKernels(graph, out);
  return out;
}

}  // namespace stitch
