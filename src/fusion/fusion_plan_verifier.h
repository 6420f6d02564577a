// Checks a FusionPlan against the graph it was made for and throws
// InternalError naming the first broken invariant: every member of a group
// is a kernel op of one block, members in program order, each node in at
// most one group; no member's value is used outside the group before the
// group's last member (where the kernel runs); the roots are exactly
// groupRoots() of the members (fusion_groups.h, the one definition of a
// group's outputs that fusion, the kernel planner and this check share),
// all of the schedule root's shape. The kernel planner runs it on every
// plan it is given, so a plan the kernels could not honour never reaches
// code generation.
#pragma once
#include <functional>

#include "fusion/fusion_plan.h"
#include "ir/graph.h"

namespace stitch {

void verifyFusionPlan(const Graph& graph, const FusionPlan& plan, const std::function<bool(const Node*)>& kernelOp);

}  // namespace stitch
