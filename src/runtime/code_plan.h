// What the code generator makes of a pure graph before anything is
// compiled: the kernel graph, the uops of each graph-defined kernel, and
// the one C translation unit holding all of them. The pipeline builds it
// stage by stage (ugraph, uops, code); Executable::build makes it in one go.
#pragma once
#include <string>
#include <vector>

#include "codegen/c_renderer.h"
#include "ir/graph.h"
#include "fusion/fusion_plan.h"
#include "ugraph/kernel_graph.h"
#include "uops/linearizer.h"
#include "uops/uop.h"

namespace stitch {

struct CodePlan {
  KernelGraph kernels;
  std::vector<KernelUOps> uops;  // one per GraphDefined kernel, in kernel order
  LinearizeOptions linearizing;  // what the uops were linearized with
  CudaDeviceLimits cudaLimits;   // CUDA: the device the source was rendered for
  std::string source;            // the C (or CUDA) translation unit
};

// pureGraph = false for an imperative graph (functionalization refused it):
// every lowerable op becomes a kernel of its own, so kernels run exactly
// where the op stood, between the in-place writes around it.
KernelGraph planProgramKernels(const Graph& graph, bool pureGraph, const FusionPlan* fusion = nullptr);
// The fused groups of a pure graph (an imperative one: every kernel op on
// its own), with schedules tuned for `threads` (0: every core).
FusionPlan fuseProgram(const Graph& graph, bool pureGraph, int threads = 0);
// The uops of every GraphDefined kernel, in kernel order.
std::vector<KernelUOps> linearizeKernels(const KernelGraph& kernels, const LinearizeOptions& options = {});
// The C translation unit of a plan's kernels, and the tile epilogue
// (codegen/tile_epilogue.h) of each contraction kernel whose epilogue
// has steps other than a lone relu (relu is the host's own code).
std::string renderProgramC(const KernelGraph& kernels, const std::vector<KernelUOps>& uops);
// "kernel NAME" and its uops, per kernel (`stitch dump --stage uops`).
std::string printKernelUOps(const std::vector<KernelUOps>& uops);

// fuse, plan, linearize, render in one go; threads as for fuseProgram.
CodePlan planCode(const Graph& graph, bool pureGraph, int threads = 0);

}  // namespace stitch
