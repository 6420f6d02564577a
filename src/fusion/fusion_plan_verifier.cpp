#include "fusion/fusion_plan_verifier.h"

#include <algorithm>
#include <unordered_set>

#include "common/error.h"
#include "fusion/block_deps.h"
#include "fusion/fusion_groups.h"

namespace stitch {

namespace {

class PlanVerifier {
 public:
  PlanVerifier(const FusionPlan& plan, const std::function<bool(const Node*)>& kernelOp)
      : plan_(plan), kernelOp_(kernelOp) {}

  void block(const Block* b) {
    BlockDeps deps = analyzeBlockDeps(b, kernelOp_);
    std::unordered_set<int> seen;
    for (const Node* n : deps.nodes) {
      for (const Block* sub : n->blocks()) block(sub);
      auto it = plan_.groupOf.find(n);
      if (it == plan_.groupOf.end() || !seen.insert(it->second).second) continue;
      group(plan_.groups.at(it->second), deps);
    }
  }

  size_t verified() const { return verified_; }

 private:
  void group(const FusedGroup& g, const BlockDeps& deps) {
    ++verified_;
    STITCH_ASSERT(!g.nodes.empty(), "fused group without nodes");
    std::unordered_set<const Node*> members(g.nodes.begin(), g.nodes.end());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node* n = g.nodes[i];
      STITCH_ASSERT(n->owningBlock() == deps.block, "fused group spans blocks at ", n->kind());
      STITCH_ASSERT(kernelOp_(n), "fused group member ", n->kind(), " cannot run in a kernel");
      STITCH_ASSERT(plan_.groupOf.at(n) == plan_.groupOf.at(g.nodes.front()), "node ", n->kind(),
                    " is in two fused groups");
      STITCH_ASSERT(i == 0 || deps.pos(g.nodes[i - 1]) < deps.pos(n), "fused group not in program order");
    }
    int last = deps.pos(g.nodes.back());
    for (const Node* n : g.nodes)
      for (const auto& [user, site] : deps.useSitesOf(n))
        STITCH_ASSERT(members.count(user) || site > last, "fused group member ", n->kind(),
                      " is used before the group's kernel runs");
    std::vector<const Value*> roots = groupRoots(g.nodes, members, deps);
    STITCH_ASSERT(roots == g.roots, "fused group roots do not match the uses of its members (group ending at ",
                  g.nodes.back()->kind(), ")");
    for (const Value* r : g.roots)
      STITCH_ASSERT(*r->type()->shape() == *g.roots.back()->type()->shape(), "fused group roots of different shapes");
    if (const Node* h = g.hostReshape) {
      STITCH_ASSERT(h->owningBlock() == deps.block && !plan_.groupOf.count(h) && !h->inputs().empty() &&
                        std::find(g.roots.begin(), g.roots.end(), h->input(0)) != g.roots.end(),
                    "host reshape ", h->kind(), " is not an ungrouped reshape of its group's root");
    }
  }

  const FusionPlan& plan_;
  const std::function<bool(const Node*)>& kernelOp_;
  size_t verified_ = 0;
};

}  // namespace

void verifyFusionPlan(const Graph& graph, const FusionPlan& plan, const std::function<bool(const Node*)>& kernelOp) {
  PlanVerifier verifier(plan, kernelOp);
  verifier.block(graph.top());
  STITCH_ASSERT(verifier.verified() == plan.groups.size(), "fusion plan has ", plan.groups.size(),
                " groups but ", verifier.verified(), " stand in the graph's blocks");
  for (const Node* n : plan.hostViews)
    STITCH_ASSERT(!plan.groupOf.count(n) && kernelOp(n) && n->graph() == &graph, "host view ", n->kind(),
                  " is grouped or not a kernel op of this graph");
}

}  // namespace stitch
