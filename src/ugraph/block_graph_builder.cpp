#include "ugraph/block_graph_builder.h"

#include <algorithm>

#include "ir/view_shape.h"
#include "ugraph/loop_merging.h"
#include "ugraph/lowering.h"

namespace stitch {

namespace {

// Element iterations of one output element: the extents of every Reduce's
// variables (nested reductions add up).
int64_t workPerElement(const ThreadGraph& tg) {
  int64_t work = 0;
  for (const TNode& n : tg.nodes()) {
    if (n.op != TOp::Reduce) continue;
    int64_t w = 1;
    for (int r : n.reduceVars) w *= tg.reduceExtent(r);
    work += w;
  }
  return std::max<int64_t>(work, 1);
}

// The tensor dim of `input` that the grid's split of iteration dim `g`
// walks, or kReplica when the input's loads do not depend on it.
int inputMapOf(const ThreadGraph& tg, const IterAffineAnalysis& aff, int slot, const Dims& shape,
               int g) {
  std::optional<int64_t> coefficient;
  for (const TNode& n : tg.nodes()) {
    if (n.op != TOp::Load || n.index != slot) continue;
    int idx = n.args[0];
    if (!aff.dependsOn(idx, g)) continue;
    const auto& f = aff.form(idx);
    if (!f) return kReplica;  // not a plain split: each block reads across the tensor
    int64_t c = f->coefficient(g);
    if (coefficient && *coefficient != c) return kReplica;
    coefficient = c;
  }
  if (!coefficient || *coefficient == 0) return kReplica;
  Dims strides = rowMajorStrides(shape);
  for (size_t k = 0; k < shape.size(); ++k)
    if (strides[k] == *coefficient && shape[k] > 1) return (int)k;
  return kReplica;
}

}  // namespace

void scheduleGrid(BlockGraph& block) {
  int64_t extent0 = block.loops.at(0).extent;
  int64_t perIteration = workPerElement(block.thread);
  for (size_t l = 1; l < block.loops.size(); ++l) perIteration *= block.loops[l].extent;
  int64_t want = (kMinBlockIterations + perIteration - 1) / perIteration;
  block.blockExtent = std::clamp<int64_t>(want, 1, std::max<int64_t>(extent0, 1));
  block.grid = {(extent0 + block.blockExtent - 1) / block.blockExtent};
}

void buildBlockGraph(Kernel& kernel) {
  STITCH_ASSERT(!kernel.outputs.empty(), "kernel ", kernel.name, " without outputs");
  const Dims& shape = lowering::shapeOf(kernel.outputs[0]);
  BlockGraph& block = kernel.block;
  block.thread = ThreadGraph(shape);
  ThreadGraph& tg = block.thread;
  std::unordered_set<const Node*> group(kernel.nodes.begin(), kernel.nodes.end());
  LowerContext ctx(tg, group, kernel);
  std::vector<int> idx;
  for (int d = 0; d < (int)shape.size(); ++d) idx.push_back(tg.iterVar(d));
  for (size_t k = 0; k < kernel.outputs.size(); ++k) {
    const Value* out = kernel.outputs[k];
    STITCH_ASSERT(lowering::shapeOf(out) == shape, "kernel ", kernel.name, " outputs of different shapes");
    tg.store((int)k, tg.cast(ctx.element(out, idx), lowering::dtypeOf(out)));
  }
  block.loops = mergeLoops(tg);
  scheduleGrid(block);

  // Mirage's maps, for the dump: the grid splits the first dim of loops[0].
  int g = block.loops[0].iterDims.empty() ? -1 : block.loops[0].iterDims.front();
  IterAffineAnalysis aff(tg);
  block.inputs.clear();
  block.outputs.clear();
  for (size_t k = 0; k < kernel.inputs.size(); ++k) {
    int m = g < 0 ? kReplica : inputMapOf(tg, aff, (int)k, lowering::shapeOf(kernel.inputs[k]), g);
    block.inputs.push_back(BlockInput{(int)k, {m}, {}});
  }
  for (size_t k = 0; k < kernel.outputs.size(); ++k)
    block.outputs.push_back(BlockOutput{(int)k, {std::max(g, 0)}, {}});
}

}  // namespace stitch
