// The result of fusion: groups of pure graph nodes that each become one
// kernel, with the schedule every group's kernel runs under. Produced by
// fuseGraph (fusion.h), printed by `stitch dump --stage fused`, consumed by
// the kernel planner (ugraph/kernel_planner.h).
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "fusion/schedule.h"
#include "ir/graph.h"

namespace stitch {

struct FusedGroup {
  // Members in program order, all in one Block. A kernel runs at the
  // position of nodes.back().
  std::vector<const Node*> nodes;
  // The values the group produces for the rest of the program (used outside
  // the group or returned), in program order; roots.back() is the schedule's
  // root. All roots have the root's shape.
  std::vector<const Value*> roots;
  Schedule schedule;
  // Candidate schedules the tuner may measure (legal for every root,
  // cheapest first by the cost model; schedule == candidates.front()).
  std::vector<Schedule> candidates;
  // A reshape of the group's root that fusion left to the host because it
  // would have limited the schedule (a view of the dense kernel output, no
  // copy); null when none. It and the members are the only kernel ops
  // fusion gives a group.
  const Node* hostReshape = nullptr;
};

struct FusionPlan {
  std::vector<FusedGroup> groups;                // program order of their last node, blocks nested
  std::unordered_map<const Node*, int> groupOf;  // member -> index in groups
  // Views (select, slice, unsqueeze, ...) that fusion left ungrouped
  // because every use reads them where they are: the source of an Assign
  // op, an operand of fused.attention. They run on the host as views of
  // their operands; a kernel would only copy them.
  std::vector<const Node*> hostViews;
};

// One line per group, e.g.
//   group g0 root %8 schedule (split_dim=0, sword=100, Row) nodes: %1=immut.select %dup.2=immut.select_rev ...
// and with several roots (the schedule's root last):
//   group g3 roots %c %h.1 schedule (split_dim=0, sword=2, Row) nodes: ...
// and `host %21=immut.view` after the group when its root's reshape runs
// on the host; last, `host view %7=immut.select` per host view.
std::string printFusionPlan(const FusionPlan& plan);

}  // namespace stitch
