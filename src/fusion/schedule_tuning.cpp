#include "fusion/schedule_tuning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_set>

#include "fusion/schedule_ops.h"
#include "fusion/schedule_propagation.h"
#include "ir/einsum_spec.h"

// The cost model counts element iterations (one multiply-add or compare
// with its loads is about 1 ns on one core):
//
//   cost = start + rounds * (perBlock + blockOverhead) + tail + shared
//          + combine
//
//   perBlock  the iterations of one block: each member's elements under its
//             partition times its per-element work (reductions: the elements
//             they read; contractions: times K; transcendental math x4).
//             A member every block needs whole is counted whole in every
//             block: that is the recomputation a bad split costs.
//   rounds    ceil(sword / threads): blocks run `threads` at a time.
//   start     fork / join of the parallel region (only when sword > 1).
//   tail      blocks never finish together: the last one idles about half
//             a block's work; small blocks balance better.
//   shared    cache lines two threads both write (a split of an inner dim
//             whose thread boundary falls inside a line, in every row).
//   combine   a Column schedule adds its sword partial results serially.
//   segments  a Row split of an inner dim gives each block one contiguous
//             run per row of the dims outside it; every run restarts the
//             inner loop, its vector remainder and the prefetch stream, and
//             shares its end lines with the next block.
//
// The optimum of rounds * blockOverhead against tail puts about
// sqrt(work * threads) / 45 blocks on a group: 1 below ~16K iterations,
// 16 for a 64x1000 softmax, ~50-100 for a 3.2M-element normalize.
namespace stitch {

using namespace schedule_ops;

namespace {

constexpr double kBlockOverhead = 2000;   // iterations: a block's start, a few microseconds
constexpr double kParallelStart = 4000;   // a parallel region's fork and join
constexpr double kTailShare = 0.5;        // of one block's work, idle at the end
constexpr double kExpensiveWeight = 4;    // exp, tanh, ...: a polynomial per element
constexpr double kLoadWeight = 0.5;       // reading one element from outside the group
constexpr double kAssignWeight = 0.5;     // a compare and select per element
// A cache line two threads both write, moving between the cores. Set by
// the decision it must get right: a [8400, 80] cat of three sigmoid
// products split along its columns (8400 lines shared by the two threads)
// ran 2.0-4.2 ms on two threads against 1.2 ms in one block.
constexpr double kSharedLineCost = 400;
// One contiguous run of a block (see segments above). Set by the split it
// must rule out: GELU(y + b) on [512, 768], 2 threads, AVX2, ran 0.58-0.79
// ms in 32 blocks of 24 columns (512 runs each) against 0.41 ms in 16 blocks
// of 32 rows: about 23 ns per run.
constexpr double kSegmentCost = 20;
constexpr int64_t kColumnMinExtent = int64_t(1) << 16;  // reductions worth cutting along

// A block's elements of v, on average over the blocks.
double blockElementsOf(const PartitionMap& map, const Value* v) {
  if (!knownTensor(v)) return 1;
  auto it = map.find(v);
  Partition p = it == map.end() ? Partition{} : it->second;
  return p.meanBlockElements(shapeOf(v));
}

// Multiply-adds per output element of an einsum: the sizes of the labels
// its operands have and its output does not.
double einsumExtent(const Node& n) {
  const Constant* eq = constantOf(n.input(0));
  auto parts = listTensors(n.input(1));
  if (!eq || !eq->isStr() || !parts) return 1;
  try {
    std::vector<int64_t> ranks;
    std::vector<Dims> shapes;
    for (const Value* v : *parts) {
      ranks.push_back((int64_t)shapeOf(v).size());
      shapes.push_back(shapeOf(v));
    }
    EinsumLabels labels = resolveEinsumLabels(parseEinsumEquation(eq->toStr(), parts->size()), ranks);
    std::vector<int64_t> sizes = einsumLabelSizes(labels, shapes);
    std::set<int> out(labels.output.begin(), labels.output.end());
    double extent = 1;
    std::set<int> seen;
    for (const auto& ls : labels.inputs)
      for (int l : ls)
        if (!out.count(l) && seen.insert(l).second && sizes[l] > 0) extent *= (double)sizes[l];
    return extent;
  } catch (const UserError&) {
    return 1;
  }
}

// Iterations one block spends on member n.
double memberWork(const Node& n, const PartitionMap& map) {
  const Value* v = n.output();
  double elems = blockElementsOf(map, v);
  double weight = isExpensive(n) ? kExpensiveWeight : 1;
  switch (scheduleOpClass(n)) {
    case OpClass::Reduce: return blockElementsOf(map, n.input(0)) * weight;
    case OpClass::AlongDim: return elems * (2 + weight);  // a max / sum pass, then the values
    case OpClass::Product: {
      const Value* a = n.input(0);
      double k = knownTensor(a) && !shapeOf(a).empty() ? (double)shapeOf(a).back() : 1;
      return elems * k;
    }
    case OpClass::ListOp: return n.is("einsum") ? elems * einsumExtent(n) : elems;
    case OpClass::Access: return 0;  // index arithmetic in its consumer
    case OpClass::Assign: return elems * kAssignWeight;
    case OpClass::Elementwise:
    case OpClass::Creation:
    case OpClass::PerDim:
    case OpClass::Unknown: return elems * weight;
  }
  return elems;
}

// Tensors the group reads from outside, with the list elements of cat /
// stack / einsum.
std::vector<const Value*> outsideTensors(const std::vector<const Node*>& nodes) {
  std::unordered_set<const Node*> members(nodes.begin(), nodes.end());
  std::vector<const Value*> out;
  std::unordered_set<const Value*> seen;
  auto add = [&](const Value* v) {
    if (knownTensor(v) && !members.count(v->node()) && seen.insert(v).second) out.push_back(v);
  };
  for (const Node* n : nodes)
    for (const Value* in : n->inputs()) {
      add(in);
      if (auto parts = listTensors(in))
        for (const Value* p : *parts) add(p);
    }
  return out;
}

// Cache lines that two threads both write under a Row schedule: the grid's
// blocks go to the threads in contiguous ranges (codegen/parallel_blocks.h),
// and where one thread's range ends inside a cache line of a row, the next
// thread writes the rest of that line, in every row of the root outside the
// split dim (none when the split dim is the outermost). Such a line moves
// between the two cores as both write it.
double sharedLines(const Value* root, const Schedule& s, int threads) {
  if (s.type != SchedType::Row || s.sword <= 1 || threads <= 1 || !knownTensor(root)) return 0;
  const Dims& shape = shapeOf(root);
  if (s.splitDim < 0 || s.splitDim >= (int)shape.size()) return 0;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < s.splitDim; ++d) outer *= shape[d];
  for (size_t d = (size_t)s.splitDim + 1; d < shape.size(); ++d) inner *= shape[d];
  if (outer == 1) return 0;  // one line per boundary at most, written once
  const int64_t size = (int64_t)dtypeSize(*root->type()->dtype());
  const int64_t rowBytes = shape[s.splitDim] * inner * size;
  const int64_t blockBytes = (shape[s.splitDim] + s.sword - 1) / s.sword * inner * size;
  const int64_t team = std::min<int64_t>(threads, s.sword), base = s.sword / team, extra = s.sword % team;
  double lines = 0;
  for (int64_t t = 1; t < team; ++t) {
    const int64_t firstBlock = t * base + std::min(t, extra);
    if (rowBytes % 64 != 0 || firstBlock * blockBytes % 64 != 0) lines += (double)outer;
  }
  return lines;
}

// Contiguous runs of the root per block under a Row split: one per index
// of the dims outside the split dim (their product), 1 for the outermost.
double segmentsPerBlock(const Value* root, const Schedule& s) {
  if (s.type != SchedType::Row || s.sword <= 1 || !knownTensor(root)) return 0;
  const Dims& shape = shapeOf(root);
  if (s.splitDim < 0 || s.splitDim >= (int)shape.size()) return 0;
  double outer = 1;
  for (int d = 0; d < s.splitDim; ++d) outer *= (double)shape[d];
  return outer;
}

double costOf(const std::vector<const Node*>& nodes, const PartitionMap& map, const Value* root,
              const Schedule& s, int threads) {
  double perBlock = 0;
  for (const Node* n : nodes)
    if (n->outputs().size() == 1 && knownTensor(n->output())) perBlock += memberWork(*n, map);
  for (const Value* v : outsideTensors(nodes)) perBlock += kLoadWeight * blockElementsOf(map, v);
  perBlock += kSegmentCost * segmentsPerBlock(root, s);
  double blocks = (double)s.sword;
  double rounds = std::ceil(blocks / std::max(threads, 1));
  double cost = rounds * (perBlock + kBlockOverhead);
  if (s.sword > 1) cost += kParallelStart + kTailShare * perBlock + kSharedLineCost * sharedLines(root, s, threads);
  if (s.type == SchedType::Column && knownTensor(root)) cost += blocks * (double)numel(shapeOf(root));
  return cost;
}

// The partition map of `schedule` when every root gets the root's split.
std::optional<PartitionMap> legalMap(const std::vector<const Node*>& nodes, const std::vector<const Value*>& roots,
                                     const Schedule& schedule) {
  if (roots.empty()) return std::nullopt;
  if (schedule.type == SchedType::Column && roots.size() > 1) return std::nullopt;
  const Value* root = roots.back();
  auto map = propagateSchedule(nodes, root, schedule);
  if (!map) return std::nullopt;
  const Partition& p = map->at(root);
  for (const Value* r : roots) {
    auto it = map->find(r);
    if (it == map->end() || !(it->second == p)) return std::nullopt;
  }
  return map;
}

// The members `root` depends on inside the group, in program order.
std::vector<const Node*> ancestors(const std::vector<const Node*>& nodes, const Value* root) {
  std::unordered_set<const Node*> members(nodes.begin(), nodes.end()), needed;
  std::vector<const Node*> stack{root->node()};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!members.count(n) || !needed.insert(n).second) continue;
    for (const Value* in : n->inputs()) {
      stack.push_back(in->node());
      if (auto parts = listTensors(in))
        for (const Value* p : *parts) stack.push_back(p->node());
    }
  }
  std::vector<const Node*> out;
  for (const Node* n : nodes)
    if (needed.count(n)) out.push_back(n);
  return out;
}

// Column schedules pay off only for reductions whose output is too small to
// give every thread a block and whose reduced extent is large.
bool columnWorthwhile(const Value* root, int64_t bestRowSword, int threads) {
  if (bestRowSword >= threads || !knownTensor(root)) return false;
  const Node* n = root->node();
  auto r = reduceInfo(*n);
  if (!r) return false;
  int64_t extent = 1;
  for (int64_t d : r->dims) extent *= shapeOf(n->input(0))[d];
  return extent >= kColumnMinExtent;
}

}  // namespace

double scheduleCost(const std::vector<const Node*>& nodes, const std::vector<const Value*>& roots,
                    const Schedule& schedule, const TuningOptions& options) {
  auto map = legalMap(nodes, roots, schedule);
  if (!map) return std::numeric_limits<double>::infinity();
  return costOf(nodes, *map, roots.back(), schedule, options.threads);
}

std::vector<Schedule> rankSchedules(const std::vector<const Node*>& nodes, const std::vector<const Value*>& roots,
                                    const TuningOptions& options) {
  if (roots.empty()) return {Schedule{}};
  const Value* root = roots.back();
  // Stage 1 (several roots): the block counts every root allows by itself.
  std::optional<std::set<int64_t>> swords;
  if (roots.size() > 1) {
    for (const Value* r : roots) {
      std::vector<const Node*> own = ancestors(nodes, r);
      std::set<int64_t> allowed;
      for (const Schedule& s : scheduleSpace(r))
        if (s.type == SchedType::Row && propagateSchedule(own, r, s)) allowed.insert(s.sword);
      if (!swords) {
        swords = allowed;
        continue;
      }
      std::set<int64_t> both;
      for (int64_t s : allowed)
        if (swords->count(s)) both.insert(s);
      swords = both;
    }
  }
  // Stage 2: the root's schedules with an allowed block count, legal for
  // the whole group, by cost.
  struct Ranked {
    Schedule s;
    double cost;
  };
  std::vector<Ranked> ranked;
  int64_t bestRowSword = 1;
  std::vector<Schedule> columns;
  for (const Schedule& s : scheduleSpace(root)) {
    if (swords && !swords->count(s.sword)) continue;
    if (s.type == SchedType::Column) {
      columns.push_back(s);
      continue;
    }
    auto map = legalMap(nodes, roots, s);
    if (!map) continue;
    bestRowSword = std::max(bestRowSword, s.sword);
    ranked.push_back({s, costOf(nodes, *map, root, s, options.threads)});
  }
  if (columnWorthwhile(root, bestRowSword, options.threads))
    for (const Schedule& s : columns)
      if (auto map = legalMap(nodes, roots, s)) ranked.push_back({s, costOf(nodes, *map, root, s, options.threads)});
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.cost < b.cost; });
  std::vector<Schedule> out;
  for (const Ranked& r : ranked) out.push_back(r.s);
  if (out.empty()) out.push_back(Schedule{});
  return out;
}

}  // namespace stitch
