// The groups of one Block while fusion runs: every node that may run in a
// kernel starts as a group of its own; deep and sibling fusion merge them,
// and every merge is checked against the group invariants first:
//
//   - the never-fuse rules (fusion_rules.h);
//   - the kernel runs at the group's last node, so every use of a member's
//     value by a non-member comes after that node in program order (this
//     also rules out a cycle through non-members: a path member -> outside
//     -> member would start with such a use before the last member);
//   - all roots (values used outside the group or returned) have the shape
//     of the last root, on which the schedule is defined;
//   - the merged group has a legal schedule (schedule_tuning.h,
//     schedule_propagation.h), and does not run on one block where its parts
//     ran on several (merging must not serialize a parallel computation).
//
// An Assign op may only share a group with the producer of its base, so a
// merge that brings one in also brings in the group making its base; and a
// group on a path between two merged groups comes along too.
#pragma once
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fusion/block_deps.h"
#include "fusion/fusion.h"
#include "fusion/schedule.h"

namespace stitch {

// The values `members` (program order) produce for the rest of the program:
// outputs used by a non-member or returned, in program order; the last
// member's output when there is none.
std::vector<const Value*> groupRoots(const std::vector<const Node*>& members,
                                     const std::unordered_set<const Node*>& inGroup, const BlockDeps& deps);

class BlockGroups {
 public:
  BlockGroups(const BlockDeps& deps, const FusionOptions& options);

  const BlockDeps& deps() const { return deps_; }
  // The group of a node, -1 when it cannot run in a kernel.
  int groupOf(const Node* n) const;
  // A group's members in program order; empty once merged into another.
  const std::vector<const Node*>& members(int g) const { return groups_.at(g).nodes; }
  // Live groups in program order of their last members.
  std::vector<int> live() const;
  // The other groups that read a value of g, those with more such uses
  // first, then those whose kernel runs earlier.
  std::vector<int> consumersOf(int g) const;
  // The tensors g reads from outside itself.
  std::vector<const Value*> inputsOf(int g) const;

  // Merges the groups (with the groups making their Assign ops' bases) when
  // the result keeps every invariant; returns whether it did. A merge of
  // groups that failed before and have not changed since is not retried.
  bool tryMerge(const std::vector<int>& ids);

 private:
  struct Group {
    std::vector<const Node*> nodes;
    int version = 0;
    // A legal schedule with more than one block, once known (parallelKnown),
    // and the size of the root it splits.
    bool parallelKnown = false;
    std::optional<Schedule> parallel;
    int64_t rootElements = 0;
  };
  const char* check(const std::vector<const Node*>& nodes, const std::vector<int>& parts, std::optional<Schedule>& parallel,
                    int64_t& rootElements);
  const std::optional<Schedule>& parallelOf(int g);
  // The groups outside `parts` that read a value of a part and make a value
  // some part reads, directly or through other groups.
  std::vector<int> sandwichedBy(const std::vector<int>& parts) const;
  std::optional<Schedule> parallelOf(const std::vector<const Node*>& nodes, const std::vector<const Value*>& roots) const;

  const BlockDeps& deps_;
  const FusionOptions& options_;
  std::vector<Group> groups_;
  std::unordered_map<const Node*, int> groupOf_;
  std::set<std::vector<std::pair<int, int>>> refused_;  // (id, version) of the parts
};

}  // namespace stitch
