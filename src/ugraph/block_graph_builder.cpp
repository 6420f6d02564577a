#include "ugraph/block_graph_builder.h"

#include <algorithm>
#include <optional>

#include "ir/view_shape.h"
#include "common/error.h"
#include "fusion/schedule_propagation.h"
#include "ugraph/index_probe.h"
#include "ugraph/local_buffers.h"
#include "ugraph/loop_merging.h"
#include "ugraph/lowering.h"

namespace stitch {

namespace {

std::vector<char> neededNodes(const ThreadGraph& tg) {
  const auto& nodes = tg.nodes();
  std::vector<char> needed(nodes.size(), 0);
  for (const auto& s : tg.stores()) needed.at(s.value) = 1;
  for (int i = (int)nodes.size() - 1; i >= 0; --i)
    if (needed[i])
      for (int a : nodes[i].args) needed[a] = 1;
  return needed;
}


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
  const int64_t extent0 = block.loops.at(0).extent;
  int64_t perIteration = workPerElement(block.thread);
  for (size_t l = 1; l < block.loops.size(); ++l) perIteration *= block.loops[l].extent;
  int64_t want = (kMinBlockIterations + perIteration - 1) / perIteration;
  int64_t run = std::clamp<int64_t>(want, 1, std::max<int64_t>(extent0, 1));
  // A column reduction over one output loop: the block's outputs are the
  // contiguous inner loop under the reduce loops (one accumulator each), so
  // a block takes a long run of them, within the accumulator limit. Large
  // work still gets two blocks or more.
  if (block.loops.size() == 1 && extent0 > 0) {
    const int64_t reduces = (int64_t)columnReduceNodes(block, outputLoopOrder(block)).size();
    if (reduces > 0 && kMaxLocalAccumulators / reduces >= 2) {
      const int64_t most = kMaxLocalAccumulators / reduces;
      run = std::clamp<int64_t>(run, std::min({kMinContiguousOutputs, extent0, most}), most);
      int64_t blocks = (extent0 + run - 1) / run;
      if (blocks < 2 && extent0 >= 2 * kMinSplitOutputs && extent0 * perIteration >= 2 * kMinBlockIterations)
        blocks = 2;
      run = (extent0 + blocks - 1) / blocks;  // even blocks
    }
  }
  block.blockExtent = run;
  block.grid = {(extent0 + run - 1) / run};
}

std::vector<int> outputLoopOrder(const BlockGraph& block) {
  const ThreadGraph& tg = block.thread;
  const auto& nodes = tg.nodes();
  const int numLoops = (int)block.loops.size();
  std::vector<int> order(numLoops);
  for (int l = 0; l < numLoops; ++l) order[l] = l;
  if (numLoops < 2) return order;
  std::vector<int> loopOfDim(tg.iterShape().size(), -1);
  for (int l = 0; l < numLoops; ++l)
    for (int d : block.loops[l].iterDims) loopOfDim.at(d) = l;
  std::vector<char> needed = neededNodes(tg);
  std::vector<char> usedByReduce(numLoops, 0);
  bool heavy = false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!needed[i] || nodes[i].op != TOp::Reduce) continue;
    int64_t work = 1;
    for (int v : nodes[i].reduceVars) work *= tg.reduceExtent(v);
    heavy |= work >= kMinReuseWork;
    std::vector<char> sub(i + 1, 0);
    sub[i] = 1;
    for (int k = (int)i; k >= 0; --k) {
      if (!sub[k]) continue;
      if (nodes[k].op == TOp::IterVar) usedByReduce[loopOfDim.at(nodes[k].index)] = 1;
      for (int a : nodes[k].args) sub[a] = 1;
    }
  }
  if (!heavy) return order;
  // A loop of one iteration costs nothing where it stands; moved inside, it
  // would hide the real innermost loop (x @ w with x: [1, k]).
  for (int l = 0; l < numLoops; ++l) usedByReduce[l] |= block.loops[l].extent == 1;
  order.clear();
  for (int l = 0; l < numLoops; ++l)
    if (usedByReduce[l]) order.push_back(l);
  for (int l = 0; l < numLoops; ++l)
    if (!usedByReduce[l]) order.push_back(l);
  return order;
}

std::vector<int> columnReduceNodes(const BlockGraph& block, const std::vector<int>& order) {
  const ThreadGraph& tg = block.thread;
  const auto& nodes = tg.nodes();
  if (order.empty() || block.loops.at(order.back()).iterDims.empty()) return {};
  const LoopDim& inner = block.loops.at(order.back());
  const int innerDim = inner.iterDims.back();
  if (tg.iterShape()[innerDim] < 2) return {};
  std::vector<char> needed = neededNodes(tg);
  // Per node: whether it depends on the inner loop.
  std::vector<char> usesInner(nodes.size(), 0);
  std::vector<int> reduces;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TNode& n = nodes[i];
    if (n.op == TOp::IterVar)
      usesInner[i] = std::find(inner.iterDims.begin(), inner.iterDims.end(), (int)n.index) != inner.iterDims.end();
    for (int a : n.args) usesInner[i] |= usesInner[a];
    if (n.op == TOp::Reduce && needed[i]) reduces.push_back((int)i);
  }
  // A reduction inside another one's loops: keep the plain order.
  for (int r : reduces) {
    std::vector<int> own(nodes[r].reduceVars.begin(), nodes[r].reduceVars.end());
    std::vector<char> sub(r + 1, 0);
    sub[nodes[r].args[0]] = 1;
    for (int k = nodes[r].args[0]; k >= 0; --k) {
      if (!sub[k]) continue;
      if (nodes[k].op == TOp::ReduceVar && std::find(own.begin(), own.end(), (int)nodes[k].index) == own.end())
        return {};
      // Another reduction's own loops, or a tile's fill loop (its own
      // variables; the reduction reads the filled tile).
      if (nodes[k].op == TOp::Reduce || nodes[k].op == TOp::Fill) continue;
      for (int a : nodes[k].args) sub[a] = 1;
    }
  }
  std::vector<int> chosen;
  bool innerContiguous = false, reduceStrided = false;
  for (int r : reduces) {
    if (!usesInner[r]) continue;  // hoisted out of the inner loop anyway
    const TNode& n = nodes[r];
    if (n.reduceVars.empty()) return {};
    for (int v : n.reduceVars)
      if (tg.reduceExtent(v) < 1) return {};
    IndexProbe probe(tg, {TOp::IterVar, innerDim}, {TOp::ReduceVar, n.reduceVars.back()});
    std::vector<char> sub(r + 1, 0);
    sub[n.args[0]] = 1;
    for (int k = n.args[0]; k >= 0; --k) {
      if (!sub[k]) continue;
      if (nodes[k].op == TOp::Reduce) continue;
      if (nodes[k].op == TOp::Fill) return {};  // a tile filled per accumulator: the plain order
      for (int a : nodes[k].args) sub[a] = 1;
      if (nodes[k].op != TOp::Load) continue;
      int idx = nodes[k].args[0];
      auto base = probe.at(idx, false, false), di = probe.at(idx, true, false), dr = probe.at(idx, false, true);
      if (!base || !di || !dr) continue;
      // A load the inner loop does not move (x[k] of x @ w) is one value for
      // every accumulator: the order does not change how it is read.
      if (*di == *base) continue;
      if (*dr - *base == 1) return {};  // contiguous along the reduction already
      if (*di - *base == 1) innerContiguous = true;
      if (*dr != *base) reduceStrided = true;
    }
    chosen.push_back(r);
  }
  if (chosen.empty() || !innerContiguous || !reduceStrided) return {};
  return chosen;
}

bool gridFromSchedule(BlockGraph& block, const Schedule& schedule) {
  const Dims& shape = block.thread.iterShape();
  const int d = schedule.splitDim;
  if (schedule.type != SchedType::Row || schedule.sword <= 1 || d < 0 || d >= (int)shape.size() || shape[d] < 2)
    return false;
  for (size_t l = 0; l < block.loops.size(); ++l) {
    std::vector<int>& dims = block.loops[l].iterDims;
    auto at = std::find(dims.begin(), dims.end(), d);
    if (at == dims.end()) continue;
    if (at != dims.begin()) {  // unmerge: the dims before d become a loop of their own
      LoopDim before{std::vector<int>(dims.begin(), at), 1};
      for (int k : before.iterDims) before.extent *= shape[k];
      dims.erase(dims.begin(), at);
      block.loops[l].extent /= before.extent;
      block.loops.insert(block.loops.begin() + (long)l, std::move(before));
      ++l;
    }
    const LoopDim& loop = block.loops[l];
    const int64_t after = loop.extent / shape[d];
    const int64_t rows = (shape[d] + schedule.sword - 1) / schedule.sword;
    block.splitLoop = (int)l;
    block.blockExtent = rows * after;
    block.grid = {(shape[d] + rows - 1) / rows};
    block.fromSchedule = true;
    return true;
  }
  STITCH_ASSERT(false, "iteration dim ", d, " in no loop");
  return false;
}

bool columnFromSchedule(BlockGraph& block, const Schedule& schedule, int64_t extent) {
  if (schedule.type != SchedType::Column || schedule.sword <= 1 || extent % schedule.sword != 0) return false;
  ThreadGraph& tg = block.thread;
  std::vector<char> needed = neededNodes(tg);
  int reduce = -1;
  for (size_t i = 0; i < tg.nodes().size(); ++i) {
    const TNode& n = tg.node((int)i);
    if (!needed[i]) continue;
    if (n.op == TOp::Fill || n.op == TOp::LocalLoad) return false;
    if (n.op != TOp::Reduce) continue;
    if (reduce >= 0) return false;  // a second reduction
    reduce = (int)i;
  }
  if (reduce < 0) return false;
  // The reduction must not sit inside another one's loops: no reduce
  // variable but its own below it.
  const TNode r = tg.node(reduce);
  std::vector<char> sub(reduce + 1, 0);
  sub[r.args[0]] = 1;
  for (int k = r.args[0]; k >= 0; --k) {
    if (!sub[k]) continue;
    const TNode& n = tg.node(k);
    if (n.op == TOp::ReduceVar &&
        std::find(r.reduceVars.begin(), r.reduceVars.end(), (int)n.index) == r.reduceVars.end())
      return false;
    for (int a : n.args) sub[a] = 1;
  }
  int var = -1;
  for (int v : r.reduceVars) {
    if (tg.reduceExtent(v) != extent) continue;
    if (var >= 0) return false;  // two candidates: which is split_dim is unknown here
    var = v;
  }
  if (var < 0) return false;
  const int64_t part = extent / schedule.sword;
  int varNode = -1;
  for (size_t i = 0; i < tg.nodes().size(); ++i)
    if (tg.node((int)i).op == TOp::ReduceVar && tg.node((int)i).index == var) varNode = (int)i;
  STITCH_ASSERT(varNode >= 0, "reduce variable without a node");
  const int inner = tg.newReduceVar(part);
  const int at = tg.alu(AluOp::Add, DType::i64,
                        {tg.alu(AluOp::Mul, DType::i64, {tg.blockIndex(), tg.constInt(part)}), inner});
  const int body = tg.substituteReduceVar(r.args[0], var, at);
  std::vector<int> vars;
  for (int v : r.reduceVars) {
    if (v == var) {
      vars.push_back(inner);
      continue;
    }
    for (size_t i = 0; i < tg.nodes().size(); ++i)
      if (tg.node((int)i).op == TOp::ReduceVar && tg.node((int)i).index == v) vars.push_back((int)i);
  }
  const int partial = tg.reduce(r.reduce, r.dtype, body, vars);
  block.column = ColumnSplit{reduce, partial, schedule.sword};
  block.grid = {schedule.sword};
  block.blockExtent = block.loops.empty() ? 1 : block.loops[0].extent;
  block.splitLoop = 0;
  block.fromSchedule = true;
  return true;
}

namespace {

// Mirage's for-loop dims, for a row-split kernel whose rows carry
// reductions or block-local tiles: a block walks its rows of the split dim
// one at a time (forloop = rows per block); each step's input iterators load
// that row's part of the inputs split along it (fmap = their imap) and its
// output accumulators concatenate the step's rows (fmap = omap). The
// reductions and tiles of a row live only for its step.
void describeForLoop(BlockGraph& block) {
  if (!block.fromSchedule || block.column || block.grid.empty() || block.grid[0] < 2) return;
  const LoopDim& loop = block.loops.at(block.splitLoop);
  if (loop.iterDims.empty()) return;
  const int64_t rowExtent = loop.extent / std::max<int64_t>(block.thread.iterShape()[loop.iterDims.front()], 1);
  const int64_t rows = block.blockExtent / std::max<int64_t>(rowExtent, 1);
  bool perRowWork = false;
  for (const TNode& n : block.thread.nodes()) perRowWork |= n.op == TOp::Reduce || n.op == TOp::Fill;
  if (rows < 2 || !perRowWork) return;
  block.forloop = {rows};
  for (BlockInput& in : block.inputs) in.fmap = in.imap;
  for (BlockOutput& out : block.outputs) out.fmap = out.omap;
}

// Mirage's maps from the group's propagated partitions: a value split along
// its dim p under the schedule maps grid x to p, a whole one to the replica.
int mapOfPartition(const PartitionMap& partitions, const Value* v) {
  auto it = partitions.find(v);
  // A cat piece's rows are no even part of it: every block may read any.
  if (it == partitions.end() || it->second.splitDim == kWhole || it->second.sword <= 1 || it->second.ranged())
    return kReplica;
  return it->second.splitDim;
}

}  // namespace

void buildBlockGraph(Kernel& kernel, const FusedGroup* group, const SharedMemoryPlan* buffers) {
  STITCH_ASSERT(!kernel.outputs.empty(), "kernel ", kernel.name, " without outputs");
  BlockGraph& block = kernel.block;
  std::optional<PartitionMap> partitions;
  SharedMemoryPlan planned;
  if (group) {
    block.schedule = group->schedule;
    if (!group->roots.empty())
      partitions = propagateSchedule(group->nodes, group->roots.back(), group->schedule);
    if (!buffers) {
      planned = planSharedMemory(*group, partitions ? *partitions : PartitionMap{});
      buffers = &planned;
    }
  }
  lowerThreadGraph(kernel, buffers);
  ThreadGraph& tg = block.thread;
  block.loops = mergeLoops(tg);
  block.splitLoop = 0;
  bool scheduled = block.schedule && gridFromSchedule(block, *block.schedule);
  if (!scheduled && block.schedule && block.schedule->type == SchedType::Column && group &&
      !group->roots.empty()) {
    const Node* root = group->roots.back()->node();
    const Value* in = root->inputs().empty() ? nullptr : root->input(0);
    const int d = block.schedule->splitDim;
    if (in && in->type()->isTensor() && in->type()->fullyKnown() && d >= 0 &&
        d < (int)lowering::shapeOf(in).size())
      scheduled = columnFromSchedule(block, *block.schedule, lowering::shapeOf(in)[d]);
  }
  if (!scheduled && block.schedule && block.schedule->sword == 1 && block.schedule->type == SchedType::Row) {
    // The one-block schedule: the cost model found no split worth its cost,
    // or none is legal (every block would need whole values the group
    // computes, e.g. `a - a.mean()` chained: splitting would make each
    // block refill every tile).
    block.splitLoop = 0;
    block.blockExtent = std::max<int64_t>(block.loops[0].extent, 1);
    block.grid = {1};
    block.fromSchedule = true;
    scheduled = true;
  }
  if (!scheduled) scheduleGrid(block);

  // Mirage's maps. Without a schedule (or under the one-block schedule, whose
  // partitions are all whole) they come from the index arithmetic: the grid
  // splits the first dim of the split loop.
  const bool fromPartitions = block.fromSchedule && partitions;
  const auto& splitDims = block.loops[block.splitLoop].iterDims;
  int g = splitDims.empty() ? -1 : splitDims.front();
  IterAffineAnalysis aff(tg);
  block.inputs.clear();
  block.outputs.clear();
  for (size_t k = 0; k < kernel.inputs.size(); ++k) {
    int m = fromPartitions ? mapOfPartition(*partitions, kernel.inputs[k])
            : g < 0        ? kReplica
                           : inputMapOf(tg, aff, (int)k, lowering::shapeOf(kernel.inputs[k]), g);
    block.inputs.push_back(BlockInput{(int)k, {m}, {}});
  }
  // A column kernel's blocks each hold a partial result of every output
  // element (accumulated: the replica dim).
  for (size_t k = 0; k < kernel.outputs.size(); ++k)
    block.outputs.push_back(BlockOutput{(int)k, {block.column ? kReplica : std::max(g, 0)}, {}});
  describeForLoop(block);
}

}  // namespace stitch
