#include "driver/work_estimate.h"

#include <algorithm>

#include "ugraph/block_graph_builder.h"
#include "uops/linearizer.h"
#include "uops/uop_work.h"

namespace stitch {

namespace {

int64_t elements(const Value* v) {
  int64_t n = 1;
  for (int64_t d : *v->type()->shape()) n *= d;
  return n;
}

// The node as a kernel of its own, one per shape of its tensor outputs (a
// kernel's outputs share one shape); the most work of them.
int64_t aloneWork(const Node* n, const LinearizeOptions& options) {
  std::vector<std::vector<const Value*>> byShape;
  for (const Value* out : n->outputs()) {
    if (!out->type()->isTensor()) continue;
    auto same = std::find_if(byShape.begin(), byShape.end(), [&](const std::vector<const Value*>& outs) {
      return *outs[0]->type()->shape() == *out->type()->shape();
    });
    if (same == byShape.end()) byShape.push_back({out});
    else same->push_back(out);
  }
  int64_t most = 0;
  for (const std::vector<const Value*>& outputs : byShape) {
    Kernel alone;
    alone.name = "alone";
    alone.kind = KernelKind::GraphDefined;
    alone.nodes = {n};
    alone.outputs = outputs;
    buildBlockGraph(alone);
    most = std::max(most, uopWork(linearize(alone, options).uops));
  }
  return most;
}

}  // namespace

std::vector<KernelWorkEstimate> estimateWork(const CodePlan& code) {
  std::vector<KernelWorkEstimate> out;
  size_t graphDefined = 0;
  for (const Kernel& k : code.kernels.kernels) {
    KernelWorkEstimate e;
    e.kernel = k.name;
    e.kind = kernelKindName(k.kind);
    if (k.kind == KernelKind::GraphDefined) {
      e.work = uopWork(code.uops.at(graphDefined++).uops);
      for (const Node* n : k.nodes) e.opWork += aloneWork(n, code.linearizing);
    } else {
      for (const Value* v : k.outputs) e.work += elements(v);
      e.opWork = e.work;
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace stitch
