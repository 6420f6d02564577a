#include "fusion/fusion.h"

#include <algorithm>

#include "fusion/block_deps.h"
#include "fusion/deep_fusion.h"
#include "fusion/fusion_groups.h"
#include "fusion/schedule_tuning.h"
#include "fusion/sibling_fusion.h"
#include "fusion/work_span.h"

namespace stitch {

namespace {

class Fuser {
 public:
  Fuser(const FusionOptions& options, FusionPlan& plan) : options_(options), plan_(plan) {}

  // Groups the block's kernel ops, then emits the groups in program order of
  // their last members, the groups of a loop / if body where its node stands.
  void fuseBlock(const Block* block) {
    BlockDeps deps = analyzeBlockDeps(block, options_.kernelOp);
    BlockGroups groups(deps, options_);
    if (options_.fuse) {
      WorkSpan layers = analyzeWorkSpan(deps, [&](const Node* n) { return groups.groupOf(n) >= 0; });
      bool merged = true;
      while (merged) {
        merged = fuseDeep(groups, layers);
        merged |= fuseSiblings(groups);
      }
    }
    for (const Node* n : deps.nodes) {
      for (const Block* sub : n->blocks()) fuseBlock(sub);
      int g = groups.groupOf(n);
      if (g >= 0 && groups.members(g).back() == n) emit(groups.members(g), deps);
    }
  }

 private:
  void emit(const std::vector<const Node*>& nodes, const BlockDeps& deps) {
    FusedGroup g;
    g.nodes = nodes;
    std::unordered_set<const Node*> in(nodes.begin(), nodes.end());
    g.roots = groupRoots(nodes, in, deps);
    g.candidates = rankSchedules(nodes, g.roots, TuningOptions{options_.threads});
    if (g.candidates.empty()) g.candidates.push_back(Schedule{});
    g.schedule = g.candidates.front();
    int index = (int)plan_.groups.size();
    for (const Node* n : nodes) plan_.groupOf[n] = index;
    plan_.groups.push_back(std::move(g));
  }

  const FusionOptions& options_;
  FusionPlan& plan_;
};

}  // namespace

FusionPlan fuseGraph(const Graph& graph, const FusionOptions& options) {
  FusionPlan plan;
  Fuser(options, plan).fuseBlock(graph.top());
  return plan;
}

}  // namespace stitch
