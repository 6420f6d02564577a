// Kernel planning: turns groups of a pure Graph into kernels and builds each
// one's BlockGraph (everything else stays a host op).
//
// With a fusion plan (PlanOptions::fusion, the compiler's path): one kernel
// per FusedGroup, its outputs the group's roots, its grid from the group's
// schedule, its block-local buffers from the shared-memory plan
// (shared_memory_plan.h); a lone large contraction is a predefined
// Contraction kernel. Without one (tests, tools), the planner forms simple
// groups itself:
//
//   %3 = mul(%x, %y)          group {%3, %4}: %3's only use is %4, both
//   %4 = exp(%3)              elementwise -> kernel k0(in0 = %x, in1 = %y) -> %4
//   %5 = sum(%4, [1], false)  a group of its own -> kernel k1(in0 = %4) -> %5
//
// Per Block (the top block and every prim.loop / prim.if body, recursively):
// a node is lowerable when it is pure (not a view, not in place), has a
// lowering rule that accepts it (lowering.h), and every tensor it reads or
// writes has a fully known type. With fuseChains, a lowerable elementwise
// node whose uses are all by one lowerable elementwise node of the same
// block joins that node's group; every other lowerable node is a group of
// its own. Kernel inputs are the tensors a group reads from outside it,
// outputs the group's values used outside it (or returned), params the
// run-time scalars it reads. Kernels are named k0, k1, ... in program order.
#pragma once
#include "fusion/fusion_plan.h"
#include "ir/graph.h"
#include "ugraph/kernel_graph.h"

namespace stitch {

struct PlanOptions {
  // false for imperative graphs (views and in-place ops present): every
  // group is then one node, since a fused producer would run at its
  // consumer's position, possibly after an in-place write to its input.
  bool fuseChains = true;
  // The fused groups (fusion/fusion.h) to build kernels from; null: the
  // planner forms its own groups as above.
  const FusionPlan* fusion = nullptr;
  // Also plan loop kernels (ugraph/loop_kernels.h); pure graphs only.
  bool loopKernels = false;
};

// Whether a node can run inside a generated kernel: pure, not a view, not in
// place, fully known tensor types and a lowering rule that accepts it.
bool canRunInKernel(const Node* n);

KernelGraph planKernels(const Graph& graph, const PlanOptions& options = {});

}  // namespace stitch
