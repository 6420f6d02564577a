#include "runtime/code_plan.h"

#include <algorithm>
#include <thread>

#include "codegen/c_renderer.h"
#include "fusion/fusion.h"
#include "ugraph/contraction_epilogue.h"
#include "ugraph/kernel_planner.h"
#include "uops/linearizer.h"

namespace stitch {

KernelGraph planProgramKernels(const Graph& graph, bool pureGraph, const FusionPlan* fusion) {
  PlanOptions options;
  options.fuseChains = pureGraph;
  options.fusion = fusion;
  options.loopKernels = pureGraph;
  return planKernels(graph, options);
}

FusionPlan fuseProgram(const Graph& graph, bool pureGraph, int threads) {
  FusionOptions options;
  options.kernelOp = canRunInKernel;
  // 0: as many as the machine runs at once (OpenMP's default).
  options.threads = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  options.fuse = pureGraph;
  return fuseGraph(graph, options);
}

std::vector<KernelUOps> linearizeKernels(const KernelGraph& kernels, const LinearizeOptions& options) {
  std::vector<KernelUOps> uops;
  for (const Kernel& k : kernels.kernels)
    if (k.kind == KernelKind::GraphDefined) uops.push_back(linearize(k, options));
  return uops;
}

namespace {

std::vector<TileEpilogue> tileEpiloguesOf(const KernelGraph& kernels) {
  std::vector<TileEpilogue> epilogues;
  for (const Kernel& k : kernels.kernels) {
    if (k.kind != KernelKind::Contraction || k.nodes.size() < 2) continue;
    std::optional<ContractionEpilogue> e =
        contractionEpilogue(k.nodes[0], std::vector<const Node*>(k.nodes.begin() + 1, k.nodes.end()));
    if (e && compiledSteps(e->steps)) epilogues.push_back({tileEpilogueName(k.name), e->steps});
  }
  return epilogues;
}

}  // namespace

std::string renderProgramC(const KernelGraph& kernels, const std::vector<KernelUOps>& uops) {
  return renderC(uops, tileEpiloguesOf(kernels));
}

std::string printKernelUOps(const std::vector<KernelUOps>& uops) {
  std::string text;
  for (const KernelUOps& k : uops) {
    text += "kernel " + k.name + "\n" + k.uops.str();
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  return text;
}

CodePlan planCode(const Graph& graph, bool pureGraph, int threads) {
  CodePlan plan;
  FusionPlan fusion = fuseProgram(graph, pureGraph, threads);
  plan.kernels = planProgramKernels(graph, pureGraph, &fusion);
  plan.uops = linearizeKernels(plan.kernels);
  plan.source = renderProgramC(plan.kernels, plan.uops);
  return plan;
}

}  // namespace stitch
