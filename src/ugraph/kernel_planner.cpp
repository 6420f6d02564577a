#include "ugraph/kernel_planner.h"

#include <algorithm>
#include <unordered_map>

#include "common/error.h"
#include "fusion/fusion_rules.h"
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
    for (const Node* n : nodes) {
      for (const Block* sub : n->blocks()) planBlock(sub);
      auto it = groupOf.find(n);
      if (it != groupOf.end() && groups[it->second].back() == n)
        emitKernel(groups[it->second], fused.empty() ? nullptr : fused[it->second]);
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

  // A Tensor[] built in `block` for members only: the kernel absorbs it
  // (see planBlock), so its element uses are inside the group.
  static bool absorbedList(const Node* n, const Block* block, const std::unordered_set<const Node*>& members) {
    if (!n->is("prim.list_construct") || n->owningBlock() != block) return false;
    const auto& uses = n->output()->uses();
    return uses.size() == 1 && members.count(uses.front().user);
  }

  // The fusion plan's groups of this block, checked against the invariants
  // fusion guarantees (fusion_plan.h): one block, kernel ops only, roots of
  // one shape covering every use outside the group, and no use by a
  // non-member before the kernel's position.
  void groupsFromPlan(const Block* block, std::unordered_map<const Node*, int>& groupOf,
                      std::vector<std::vector<const Node*>>& groups, std::vector<const FusedGroup*>& fused) {
    const FusionPlan& plan = *options_.fusion;
    std::unordered_map<const Node*, size_t> position;
    size_t pos = 0;
    for (const Node* n : *block) position[n] = pos++;
    std::unordered_map<int, int> local;  // plan group -> index in groups
    for (const Node* n : *block) {
      auto it = plan.groupOf.find(n);
      if (it == plan.groupOf.end()) continue;
      auto [at, fresh] = local.emplace(it->second, (int)groups.size());
      if (fresh) {
        groups.push_back(plan.groups.at(it->second).nodes);
        fused.push_back(&plan.groups.at(it->second));
      }
      groupOf[n] = at->second;
    }
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const FusedGroup& g = *fused[gi];
      STITCH_ASSERT(!g.nodes.empty(), "fused group without nodes");
      std::unordered_set<const Node*> members(g.nodes.begin(), g.nodes.end());
      const size_t last = position.count(g.nodes.back()) ? position.at(g.nodes.back()) : 0;
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node* n = g.nodes[i];
        STITCH_ASSERT(n->owningBlock() == block, "fused group spans blocks at ", n->kind());
        STITCH_ASSERT(lowerable(n), "fused group member ", n->kind(), " cannot run in a kernel");
        STITCH_ASSERT(i == 0 || position.at(g.nodes[i - 1]) < position.at(n), "fused group not in program order");
        bool outside = std::find(block->returns().begin(), block->returns().end(), n->output()) != block->returns().end();
        for (const Use& u : n->output()->uses()) {
          if (members.count(u.user) || absorbedList(u.user, block, members)) continue;
          outside = true;
          const Node* user = u.user;  // the use's node in this block
          while (user && user->owningBlock() != block) user = user->owningBlock()->owningNode();
          if (user && !position.count(user)) continue;  // the block's return
          STITCH_ASSERT(user && position.at(user) > last, "fused group member ", n->kind(),
                        " is used before the group's kernel runs");
        }
        bool isRoot = std::find(g.roots.begin(), g.roots.end(), n->output()) != g.roots.end();
        STITCH_ASSERT(outside == isRoot, "fused group roots do not match the uses of ", n->kind());
      }
      for (const Value* r : g.roots)
        STITCH_ASSERT(*r->type()->shape() == *g.roots.back()->type()->shape(), "fused group roots of different shapes");
    }
  }

  void emitKernel(const std::vector<const Node*>& group, const FusedGroup* fusedGroup) {
    Kernel k;
    k.name = "k" + std::to_string(out_.kernels.size());
    k.kind = KernelKind::GraphDefined;
    k.nodes = group;
    if (group.size() == 1 && isLargeContraction(group[0])) return emitContraction(std::move(k));
    std::unordered_set<const Node*> members(group.begin(), group.end());
    if (fusedGroup) {
      k.outputs = fusedGroup->roots;
      if (k.outputs.empty()) k.outputs.push_back(fusedGroup->nodes.back()->output());
      buildBlockGraph(k, fusedGroup);
      return addKernel(std::move(k));
    }
    for (const Node* n : group) {
      if (n->is("prim.list_construct")) continue;  // consumed inside the kernel
      const Value* v = n->output();
      bool usedOutside = std::any_of(v->uses().begin(), v->uses().end(),
                                     [&](const Use& u) { return !members.count(u.user); });
      if (usedOutside) k.outputs.push_back(v);
    }
    if (k.outputs.empty()) k.outputs.push_back(group.back()->output());
    buildBlockGraph(k);
    addKernel(std::move(k));
  }

  void addKernel(Kernel k) {
    out_.kernelAt[k.nodes.back()] = (int)out_.kernels.size();
    for (const Node* n : k.nodes) out_.inKernel.insert(n);
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
