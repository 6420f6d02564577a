// Shared-memory plans of whole-program groups: which values are buffered
// and why, per-block sizes under the schedule, the recompute order under a
// small budget, and offsets shared by buffers that are never live together.
#include <cstdlib>
#include <fstream>

#include "../fusion/schedule_test_util.h"
#include "ugraph/shared_memory_plan.h"

namespace stitch::schedule_test {
namespace {

struct Planned {
  std::unique_ptr<Graph> graph;
  FusedGroup group;
  PartitionMap partitions;
};

Planned planned(const Program& p, const Schedule& s) {
  Planned r;
  r.graph = simplifiedGraph(p);
  r.group.nodes = tensorOps(*r.graph);
  for (const Value* v : r.graph->outputs()) r.group.roots.push_back(v);
  r.group.schedule = s;
  auto map = propagateSchedule(r.group.nodes, r.group.roots.back(), s);
  EXPECT_TRUE(map) << scheduleStr(s);
  if (map) r.partitions = *map;
  return r;
}

Program softmax() {
  return Program{"softmax", R"(
def f(x: torch.Tensor):
    m = torch.amax(x, -1, keepdim=True)
    e = torch.exp(x - m)
    return e / torch.sum(e, -1, keepdim=True)
)", {T({64, 1000})}};
}

// Reduce, batch-dot, multi-use and expensive candidates in one group.
Program mixed() {
  return Program{"mixed", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    a = x * 2.0
    b = torch.tanh(a)
    c = torch.exp(a)
    s = c.sum(1, keepdim=True)
    m = torch.mm(b, w)
    r = c / s
    q = b.sum(1, keepdim=True)
    return r * (q + m.sum(1, keepdim=True))
)", {T({4, 256}), T({256, 8})}};
}

TEST(SharedMemoryPlan, SoftmaxBuffersReductionsAndTheSharedExp) {
  Planned p = planned(softmax(), Schedule{0, 16, SchedType::Row});
  SharedMemoryPlan plan = planSharedMemory(p.group, p.partitions, {1 << 20});
  EXPECT_EQ(printSharedMemoryPlan(plan),
            "buffer %m reduce elements=4 bytes=16 offset=0\n"
            "buffer %e expensive elements=4000 bytes=16000 offset=64\n"
            "buffer %5 reduce elements=4 bytes=16 offset=0\n"
            "recomputed: none\n"
            "arena 16064 of budget 1048576 bytes\n")
      << printGraph(*p.graph);
}

TEST(SharedMemoryPlan, SizesFollowTheSchedule) {
  for (int64_t sword : {1, 2, 8, 64}) {
    Planned p = planned(softmax(), Schedule{0, sword, SchedType::Row});
    SharedMemoryPlan plan = planSharedMemory(p.group, p.partitions, {int64_t(1) << 30});
    ASSERT_EQ(plan.buffers.size(), 3u);
    EXPECT_EQ(plan.buffers[1].elements, 64000 / sword);
    EXPECT_EQ(plan.buffers[1].bytes, 4 * 64000 / sword);
    EXPECT_EQ(plan.buffers[0].elements, 64 / sword);
  }
}

TEST(SharedMemoryPlan, ReasonsInAMixedGroup) {
  Planned p = planned(mixed(), Schedule{0, 2, SchedType::Row});
  SharedMemoryPlan plan = planSharedMemory(p.group, p.partitions, {1 << 20});
  EXPECT_EQ(printSharedMemoryPlan(plan),
            "buffer %a multi-use elements=512 bytes=2048 offset=0\n"
            "buffer %b expensive elements=512 bytes=2048 offset=2048\n"
            "buffer %c expensive elements=512 bytes=2048 offset=4096\n"
            "buffer %s reduce elements=2 bytes=8 offset=0\n"
            "buffer %m batch-dot elements=16 bytes=64 offset=64\n"
            "buffer %q reduce elements=2 bytes=8 offset=128\n"
            "buffer %5 reduce elements=2 bytes=8 offset=192\n"
            "recomputed: none\n"
            "arena 6144 of budget 1048576 bytes\n")
      << printGraph(*p.graph);
}

TEST(SharedMemoryPlan, ShrinkingRecomputesCheapestFirst) {
  Planned p = planned(mixed(), Schedule{0, 2, SchedType::Row});
  // Inexpensive %a goes first, then the expensive %c, then %b, which feeds
  // the batch-dot; the reductions and the batch-dot stay longest, and of
  // those the ones nearest the output go first (%m is farthest).
  std::string dropped;
  for (int64_t budget : {6144, 6000, 4200, 2200, 200, 100, 10}) {
    SharedMemoryPlan plan = planSharedMemory(p.group, p.partitions, {budget});
    EXPECT_LE(plan.arenaBytes, budget);
    dropped += std::to_string(budget) + ":";
    for (const Value* v : plan.recomputed) dropped += " %" + printedName(*v);
    dropped += "\n";
  }
  EXPECT_EQ(dropped,
            "6144:\n"
            "6000: %a\n"
            "4200: %a %c\n"
            "2200: %a %c %b\n"
            "200: %a %c %b %5\n"
            "100: %a %c %b %5 %q %s\n"
            "10: %a %c %b %5 %q %s %m\n")
      << printGraph(*p.graph);
}

// No two buffers live at once share bytes; every buffer lies in the arena.
void checkNoOverlap(const SharedMemoryPlan& plan) {
  for (const SharedBuffer& b : plan.buffers) {
    EXPECT_EQ(b.offset % 64, 0);
    EXPECT_LE(b.offset + b.bytes, plan.arenaBytes);
  }
}

TEST(SharedMemoryPlan, SharingKeepsLiveBuffersApart) {
  Planned p = planned(softmax(), Schedule{0, 4, SchedType::Row});
  SharedMemoryPlan plan = planSharedMemory(p.group, p.partitions, {1 << 20});
  checkNoOverlap(plan);
  // %m's last reader (through the recomputed subtraction) fills %e, so %e
  // may not take %m's bytes, and the row sums may.
  ASSERT_EQ(plan.buffers.size(), 3u);
  const SharedBuffer &m = plan.buffers[0], &e = plan.buffers[1], &s = plan.buffers[2];
  EXPECT_TRUE(e.offset >= m.offset + m.bytes || m.offset >= e.offset + e.bytes);
  EXPECT_EQ(s.offset, m.offset);
  EXPECT_LT(plan.arenaBytes, m.bytes + e.bytes + s.bytes + 3 * 64);
}

TEST(SharedMemoryPlan, BudgetFromL2OrEnvironment) {
  const char* old = std::getenv("STITCH_SMEM_BYTES");
  std::string saved = old ? old : "";
  setenv("STITCH_SMEM_BYTES", "12345", 1);
  EXPECT_EQ(defaultSharedMemoryBudget(), 12345);
  setenv("STITCH_SMEM_BYTES", "2M", 1);
  EXPECT_EQ(defaultSharedMemoryBudget(), 2 << 20);
  unsetenv("STITCH_SMEM_BYTES");
  std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index2/size");
  std::string text;
  int64_t expected = int64_t(1) << 20;
  if (f >> text) {
    int64_t v = std::stoll(text);
    if (text.back() == 'K') v <<= 10;
    if (text.back() == 'M') v <<= 20;
    if (v > 0) expected = v;
  }
  EXPECT_EQ(defaultSharedMemoryBudget(), expected);
  SharedMemoryPlan plan = planSharedMemory(FusedGroup{}, PartitionMap{});
  EXPECT_EQ(plan.budgetBytes, expected);
  EXPECT_TRUE(plan.buffers.empty());
  if (old) setenv("STITCH_SMEM_BYTES", saved.c_str(), 1);
}

}  // namespace
}  // namespace stitch::schedule_test
