#include "runtime/code_plan.h"

#include "codegen/c_renderer.h"
#include "ugraph/kernel_planner.h"
#include "uops/linearizer.h"

namespace stitch {

KernelGraph planProgramKernels(const Graph& graph, bool pureGraph) {
  PlanOptions options;
  options.fuseChains = pureGraph;
  return planKernels(graph, options);
}

std::vector<KernelUOps> linearizeKernels(const KernelGraph& kernels) {
  std::vector<KernelUOps> uops;
  for (const Kernel& k : kernels.kernels)
    if (k.kind == KernelKind::GraphDefined) uops.push_back(linearize(k));
  return uops;
}

std::string printKernelUOps(const std::vector<KernelUOps>& uops) {
  std::string text;
  for (const KernelUOps& k : uops) {
    text += "kernel " + k.name + "\n" + k.uops.str();
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  return text;
}

CodePlan planCode(const Graph& graph, bool pureGraph) {
  CodePlan plan;
  plan.kernels = planProgramKernels(graph, pureGraph);
  plan.uops = linearizeKernels(plan.kernels);
  plan.source = renderC(plan.uops);
  return plan;
}

}  // namespace stitch
