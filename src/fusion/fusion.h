// Fusion (FusionStitching): groups the pure ops of every block of a graph
// into kernels.
//
//   %m = amax(%x, [-1], true)         one group, root %o,
//   %e = exp(sub(%x, %m))             schedule (split_dim=0, sword=64, Row):
//   %s = sum(%e, [-1], true)          every block finishes its rows' max and
//   %o = div(%e, %s)                  sum before writing them
//
// Steps (one file each): work/span layering (work_span.h), deep fusion of
// producers into consumers across layers under the three rules and XLA's
// never-fuse rules (deep_fusion.h, fusion_rules.h), then fusion of siblings
// without a producer-consumer link (sibling_fusion.h); every merge must keep
// a legal schedule (schedule_propagation.h), and each group finally gets the
// cheapest legal schedule by the cost model (schedule_tuning.h).
#pragma once
#include <functional>

#include "fusion/fusion_plan.h"
#include "ir/graph.h"

namespace stitch {

struct FusionOptions {
  // Whether a node may run inside a generated kernel at all (the kernel
  // planner's lowerability test). Nodes failing it are never fused.
  std::function<bool(const Node*)> kernelOp;
  // Nodes that run as a predefined kernel (large contractions: the library
  // routine) and so stay groups of one. Null: isLargeContraction
  // (fusion_rules.h).
  std::function<bool(const Node*)> predefinedKernel;
  // Threads the schedules are tuned for.
  int threads = 2;
  // false: every kernel op is a group of its own (imperative graphs).
  bool fuse = true;
};

FusionPlan fuseGraph(const Graph& graph, const FusionOptions& options);

}  // namespace stitch
