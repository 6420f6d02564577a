#include "fusion/fusion.h"

#include <algorithm>

#include "fusion/block_deps.h"
#include "fusion/deep_fusion.h"
#include "fusion/fusion_groups.h"
#include "fusion/fusion_rules.h"
#include "fusion/schedule_ops.h"
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
  void emit(std::vector<const Node*> nodes, const BlockDeps& deps) {
    if (viewsReadInPlace(nodes)) {
      plan_.hostViews.insert(plan_.hostViews.end(), nodes.begin(), nodes.end());
      return;
    }
    FusedGroup g;
    std::unordered_set<const Node*> in(nodes.begin(), nodes.end());
    g.roots = groupRoots(nodes, in, deps);
    const TuningOptions tuning{options_.threads};
    g.candidates = rankSchedules(nodes, g.roots, tuning);
    if (const Node* reshape = rootReshape(nodes, g.roots)) {
      // The reshape runs on the host instead (a view of the dense kernel
      // output, no copy) when the group without it has a cheaper schedule:
      // YOLO's [1, 3, 40, 40, 85] -> [1, 4800, 85] leaves only the 3
      // anchors to split, the 5-d result splits its 40 grid rows.
      std::vector<const Node*> inner(nodes.begin(), nodes.end() - 1);
      in.erase(reshape);
      std::vector<const Value*> innerRoots = groupRoots(inner, in, deps);
      std::vector<Schedule> innerCandidates = rankSchedules(inner, innerRoots, tuning);
      double whole = scheduleCost(nodes, g.roots, g.candidates.front(), tuning);
      double without = scheduleCost(inner, innerRoots, innerCandidates.front(), tuning);
      if (without < kReshapeOutGain * whole) {
        g.hostReshape = reshape;
        nodes = std::move(inner);
        g.roots = std::move(innerRoots);
        g.candidates = std::move(innerCandidates);
      } else {
        in.insert(reshape);
      }
    }
    g.nodes = nodes;
    if (g.candidates.empty()) g.candidates.push_back(Schedule{});
    g.schedule = g.candidates.front();
    int index = (int)plan_.groups.size();
    for (const Node* n : nodes) plan_.groupOf[n] = index;
    plan_.groups.push_back(std::move(g));
  }

  // The group's last member when it is its only root and a reshape (view,
  // reshape, flatten) of a value the group computes; null otherwise.
  static const Node* rootReshape(const std::vector<const Node*>& nodes, const std::vector<const Value*>& roots) {
    if (nodes.size() < 2 || roots.size() != 1) return nullptr;
    const Node* last = nodes.back();
    if (roots[0] != last->output() || scheduleOpClass(*last) != OpClass::Access ||
        !schedule_ops::isReshape(schedule_ops::accessName(*last)))
      return nullptr;
    const Node* producer = last->input(0)->node();
    return std::find(nodes.begin(), nodes.end(), producer) != nodes.end() ? last : nullptr;
  }

  // Whether the group is views alone whose every use outside it reads
  // them where they are: an Assign op's source (the runtime writes it into
  // the base), fused.attention's operands (read through their strides) or
  // a predefined kernel's (a product's operand hoisted out of a loop);
  // or, for views of a buffer the program made itself (a kernel's or the
  // attention kernel's output), a list element (stack / cat copy it; the
  // view keeps the buffer from being reused). A view of an input may not go
  // into a list: the input's write-back after the run would change it.
  // Attention decode's q[t].unsqueeze(2), k[t] written into the cache and
  // the step's output squeezed into the list were a copy kernel each per
  // step.
  bool viewsReadInPlace(const std::vector<const Node*>& nodes) const {
    static const char* const kViews[] = {"immut.select",  "immut.slice",   "immut.unsqueeze",
                                         "immut.squeeze", "immut.transpose", "immut.permute",
                                         "immut.expand",  "immut.view"};
    std::unordered_set<const Node*> in(nodes.begin(), nodes.end());
    bool fresh = true;  // every view's base is a buffer the program made
    for (const Node* n : nodes) {
      const Value* base = n->input(0);
      if (base->isBlockParam()) fresh = false;
      else if (!in.count(base->node()) && !base->node()->is("fused.attention") && !plan_.groupOf.count(base->node()))
        fresh = false;
    }
    for (const Node* n : nodes) {
      if (std::none_of(std::begin(kViews), std::end(kViews), [&](const char* k) { return n->is(k); })) return false;
      for (const Use& u : n->output()->uses()) {
        if (in.count(u.user)) continue;
        const bool assignSource = isAssignOp(u.user) && u.index == 1;
        // A library routine reads its operands from memory (dense; the
        // runtime copies a strided one first): the view costs nothing more.
        if (predefined(u.user)) continue;
        const bool listElement = fresh && (u.user->is("prim.list_construct") ||
                                           (u.user->is("list.append") && u.index == 1));
        if (!assignSource && !listElement && !u.user->is("fused.attention")) return false;
      }
    }
    return true;
  }

  bool predefined(const Node* n) const {
    return options_.predefinedKernel ? options_.predefinedKernel(n) : isLargeContraction(n);
  }

  // How much cheaper (cost model) the group must get to leave its root
  // reshape to the host, which costs a host op per call.
  static constexpr double kReshapeOutGain = 0.8;

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
