#include "ugraph/shared_memory_plan.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "fusion/schedule_ops.h"
#include "ir/printer.h"

namespace stitch {

using namespace schedule_ops;

namespace {

constexpr int64_t kAlign = 64;  // a cache line: buffers never share one

// "1024K", "2M", "1048576" -> bytes; 0 when unreadable.
int64_t parseSize(const std::string& text) {
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || v <= 0) return 0;
  switch (*end) {
    case 'K': case 'k': return v << 10;
    case 'M': case 'm': return v << 20;
    case 'G': case 'g': return v << 30;
    case '\0': return v;
    default: return 0;
  }
}

int64_t alignUp(int64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// Shrinking order: lower classes are recomputed first.
enum class DropClass : uint8_t { Inexpensive, Expensive, ExpensiveBeforeDot, Required };

struct Candidate {
  SharedBuffer buffer;
  DropClass drop = DropClass::Required;
  size_t position = 0;  // in the group's program order
  int depth = 0;        // longest path to a value leaving the group
};

class Planner {
 public:
  Planner(const FusedGroup& group, const PartitionMap& partitions) : group_(group), partitions_(partitions) {
    for (size_t i = 0; i < group.nodes.size(); ++i) position_[group.nodes[i]] = i;
    roots_.insert(group.roots.begin(), group.roots.end());
  }

  std::vector<Candidate> candidates() {
    std::vector<Candidate> out;
    for (const Node* n : group_.nodes) {
      if (n->outputs().size() != 1 || !knownTensor(n->output()) || roots_.count(n->output())) continue;
      auto c = candidateOf(*n);
      if (c) out.push_back(*c);
    }
    return out;
  }

  // Offsets for `kept` (program order): first fit among the buffers still
  // live when each one is filled. A buffer is dead once every reader of
  // it has run, counting a recomputed reader as running where its value is
  // consumed. Walking the dominator tree from the root, this lets a value
  // take the space of the values it dominates that are already consumed.
  int64_t assignOffsets(std::vector<Candidate>& kept) const {
    std::unordered_set<const Value*> buffered;
    for (const Candidate& c : kept) buffered.insert(c.buffer.value);
    std::vector<size_t> lastRead;
    for (const Candidate& c : kept) lastRead.push_back(lastReadOf(c.buffer.value, buffered));
    int64_t arena = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) of live buffers
      for (size_t j = 0; j < i; ++j)
        if (lastRead[j] >= kept[i].position)
          busy.push_back({kept[j].buffer.offset, kept[j].buffer.offset + alignUp(kept[j].buffer.bytes)});
      std::sort(busy.begin(), busy.end());
      int64_t at = 0, need = alignUp(kept[i].buffer.bytes);
      for (const auto& [lo, hi] : busy) {
        if (at + need <= lo) break;
        at = std::max(at, hi);
      }
      kept[i].buffer.offset = at;
      arena = std::max(arena, at + need);
    }
    return arena;
  }

 private:
  bool member(const Node* n) const { return position_.count(n) != 0; }

  // The members reading v; a list built for cat / stack / einsum counts as
  // its reader.
  std::vector<const Node*> readers(const Value* v) const {
    std::vector<const Node*> out;
    for (const Use& u : v->uses()) {
      if (!member(u.user)) continue;
      if (u.user->is("prim.list_construct")) {
        for (const Node* r : readers(u.user->output()))
          if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
        continue;
      }
      if (std::find(out.begin(), out.end(), u.user) == out.end()) out.push_back(u.user);
    }
    return out;
  }

  int depthOf(const Node* n) {
    auto it = depth_.find(n);
    if (it != depth_.end()) return it->second;
    int d = 0;
    for (const Node* r : readers(n->output())) d = std::max(d, depthOf(r) + 1);
    return depth_[n] = d;
  }

  static bool isDot(const Node& n) { return scheduleOpClass(n) == OpClass::Product || n.is("einsum"); }

  std::optional<Candidate> candidateOf(const Node& n) {
    std::vector<const Node*> rs = readers(n.output());
    OpClass c = scheduleOpClass(n);
    Candidate cand;
    if (c == OpClass::Reduce || c == OpClass::AlongDim) {
      cand.buffer.reason = BufferReason::Reduce;
    } else if (isDot(n)) {
      cand.buffer.reason = BufferReason::BatchDot;
    } else {
      bool elementwise = c == OpClass::Elementwise || c == OpClass::Assign || c == OpClass::PerDim ||
                         n.is("cat") || n.is("stack");
      bool feedsDot = std::any_of(rs.begin(), rs.end(), [](const Node* r) { return isDot(*r); });
      if (isExpensive(n) && (rs.size() > 1 || feedsDot)) {
        cand.buffer.reason = BufferReason::Expensive;
        cand.drop = feedsDot ? DropClass::ExpensiveBeforeDot : DropClass::Expensive;
      } else if (elementwise && rs.size() > 1 && c != OpClass::Assign) {
        cand.buffer.reason = BufferReason::MultiUse;
        cand.drop = DropClass::Inexpensive;
      } else {
        return std::nullopt;
      }
    }
    const Value* v = n.output();
    auto it = partitions_.find(v);
    Partition p = it == partitions_.end() ? Partition{} : it->second;
    cand.buffer.value = v;
    cand.buffer.elements = p.blockElements(shapeOf(v));
    cand.buffer.bytes = cand.buffer.elements * (int64_t)dtypeSize(*v->type()->dtype());
    cand.position = position_.at(&n);
    cand.depth = depthOf(&n);
    return cand;
  }

  // Where v is last read: a buffered reader or a root reads it when it is
  // computed (roots: the kernel's end); a recomputed reader reads it
  // wherever its own value is consumed.
  size_t lastReadOf(const Value* v, const std::unordered_set<const Value*>& buffered) const {
    size_t last = position_.at(v->node());
    for (const Node* r : readers(v)) {
      const Value* rv = r->output();
      if (roots_.count(rv)) last = std::max(last, group_.nodes.size());
      else if (buffered.count(rv)) last = std::max(last, position_.at(r));
      else last = std::max(last, lastReadOf(rv, buffered));
    }
    return last;
  }

  const FusedGroup& group_;
  const PartitionMap& partitions_;
  std::unordered_map<const Node*, size_t> position_;
  std::unordered_map<const Node*, int> depth_;
  std::unordered_set<const Value*> roots_;
};

}  // namespace

int64_t defaultSharedMemoryBudget() {
  if (const char* env = std::getenv("STITCH_SMEM_BYTES")) {
    int64_t v = parseSize(env);
    if (v > 0) return v;
  }
  std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index2/size");
  std::string text;
  if (f >> text) {
    int64_t v = parseSize(text);
    if (v > 0) return v;
  }
  return int64_t(1) << 20;
}

SharedMemoryPlan planSharedMemory(const FusedGroup& group, const PartitionMap& partitions,
                                  const SharedMemoryOptions& options) {
  SharedMemoryPlan plan;
  plan.budgetBytes = options.budgetBytes > 0 ? options.budgetBytes : defaultSharedMemoryBudget();
  Planner planner(group, partitions);
  std::vector<Candidate> kept = planner.candidates();
  // Recompute order: inexpensive first, then expensive, then expensive ones
  // feeding a batch-dot, required buffers last; within a class the values
  // nearest the output first (later in program order on a tie).
  std::vector<Candidate> order = kept;
  std::stable_sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) {
    if (a.drop != b.drop) return a.drop < b.drop;
    if (a.depth != b.depth) return a.depth < b.depth;
    return a.position > b.position;
  });
  int64_t arena = planner.assignOffsets(kept);
  for (size_t next = 0; arena > plan.budgetBytes && next < order.size(); ++next) {
    const Value* drop = order[next].buffer.value;
    kept.erase(std::find_if(kept.begin(), kept.end(), [&](const Candidate& c) { return c.buffer.value == drop; }));
    plan.recomputed.push_back(drop);
    arena = planner.assignOffsets(kept);
  }
  for (const Candidate& c : kept) plan.buffers.push_back(c.buffer);
  plan.arenaBytes = arena;
  return plan;
}

std::string printSharedMemoryPlan(const SharedMemoryPlan& plan) {
  std::string out;
  for (const SharedBuffer& b : plan.buffers)
    out += "buffer %" + printedName(*b.value) + " " + bufferReasonName(b.reason) + " elements=" +
           std::to_string(b.elements) + " bytes=" + std::to_string(b.bytes) + " offset=" + std::to_string(b.offset) +
           "\n";
  out += "recomputed:";
  if (plan.recomputed.empty()) out += " none";
  for (const Value* v : plan.recomputed) out += " %" + printedName(*v);
  out += "\narena " + std::to_string(plan.arenaBytes) + " of budget " + std::to_string(plan.budgetBytes) + " bytes\n";
  return out;
}

const char* bufferReasonName(BufferReason r) {
  switch (r) {
    case BufferReason::Reduce: return "reduce";
    case BufferReason::BatchDot: return "batch-dot";
    case BufferReason::MultiUse: return "multi-use";
    case BufferReason::Expensive: return "expensive";
  }
  return "";
}

}  // namespace stitch
