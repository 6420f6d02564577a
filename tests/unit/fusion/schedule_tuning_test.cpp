// Schedules the cost model picks for typical groups (the whole tensor
// program as one group), and the multi-root intersection of block counts.
#include "schedule_test_util.h"

namespace stitch::schedule_test {
namespace {

struct Tuned {
  std::unique_ptr<Graph> graph;
  std::vector<const Node*> nodes;
  std::vector<const Value*> roots;
  std::vector<Schedule> ranked;
};

Tuned tune(const Program& p, int threads = 2) {
  Tuned t;
  t.graph = simplifiedGraph(p);
  t.nodes = tensorOps(*t.graph);
  for (const Value* v : t.graph->outputs()) t.roots.push_back(v);
  t.ranked = rankSchedules(t.nodes, t.roots, TuningOptions{threads});
  return t;
}

std::string best(const Tuned& t) { return t.ranked.empty() ? "none" : scheduleStr(t.ranked.front()); }

Program softmax(int64_t rows, int64_t cols) {
  return Program{"softmax", R"(
def f(x: torch.Tensor):
    m = torch.amax(x, -1, keepdim=True)
    e = torch.exp(x - m)
    return e / torch.sum(e, -1, keepdim=True)
)", {T({rows, cols})}};
}

TEST(ScheduleTuning, SoftmaxSplitsRowsIntoBlocksOfAtLeast16KIterations) {
  Tuned t = tune(softmax(64, 1000));
  EXPECT_EQ(best(t), "(split_dim=0, sword=16, Row)");
  // Every candidate is legal, and none cuts the reduced dim.
  for (const Schedule& s : t.ranked) {
    EXPECT_TRUE(propagateSchedule(t.nodes, t.roots.back(), s)) << scheduleStr(s);
    EXPECT_EQ(s.splitDim, 0) << scheduleStr(s);
  }
  // The order is the cost order.
  for (size_t i = 1; i < t.ranked.size(); ++i)
    EXPECT_LE(scheduleCost(t.nodes, t.roots, t.ranked[i - 1], {2}), scheduleCost(t.nodes, t.roots, t.ranked[i], {2}));
  EXPECT_EQ(scheduleCost(t.nodes, t.roots, Schedule{1, 2, SchedType::Row}, {2}),
            std::numeric_limits<double>::infinity());
}

TEST(ScheduleTuning, SoftmaxOpAndLayerNorm) {
  Tuned sm = tune(Program{"softmax_op", R"(
def f(x: torch.Tensor):
    return torch.softmax(x, -1)
)", {T({64, 1000})}});
  EXPECT_EQ(best(sm), "(split_dim=0, sword=16, Row)");
  Tuned ln = tune(Program{"layernorm", R"(
def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    var = (xc * xc).mean(-1, keepdim=True)
    return xc / torch.sqrt(var + 1e-5) * w + b
)", {T({64, 1000}), T({1000}), T({1000})}});
  EXPECT_EQ(best(ln), "(split_dim=0, sword=16, Row)");
}

TEST(ScheduleTuning, NormalizeGetsManyBlocksOnDim0) {
  Tuned t = tune(Program{"normalize", R"(
def f(src: torch.Tensor, mean: float, scale: float):
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
)", {T({800, 1333, 3}), F(0.5), F(2.0)}});
  EXPECT_EQ(best(t), "(split_dim=0, sword=100, Row)");  // 32K elements a block
}

// A bias broadcast along the rows makes the column split read a little less
// of it, but each of its blocks would walk 512 short runs of one row apiece.
TEST(ScheduleTuning, BiasedActivationSplitsRowsNotShortColumnRuns) {
  Tuned t = tune(Program{"bias_gelu", R"(
def f(y: torch.Tensor, b: torch.Tensor):
    return torch.nn.functional.gelu(y + b)
)", {T({512, 768}), T({768})}});
  EXPECT_EQ(t.ranked.front().splitDim, 0) << best(t);
}

TEST(ScheduleTuning, TinyTensorsRunInOneBlock) {
  Tuned t = tune(softmax(4, 16));
  EXPECT_EQ(best(t), "(split_dim=0, sword=1, Row)");
  Tuned add = tune(Program{"add", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    return x + y
)", {T({100}), T({100})}});
  EXPECT_EQ(best(add), "(split_dim=0, sword=1, Row)");
}

TEST(ScheduleTuning, MoreThreadsMoreBlocks) {
  Tuned two = tune(softmax(256, 1000), 2);
  Tuned eight = tune(softmax(256, 1000), 8);
  EXPECT_EQ(best(two), "(split_dim=0, sword=32, Row)");
  EXPECT_EQ(best(eight), "(split_dim=0, sword=64, Row)");
}

TEST(ScheduleTuning, ColumnOnlyForLargeReductionsWithSmallOutputs) {
  Tuned full = tune(Program{"fullsum", R"(
def f(x: torch.Tensor):
    return torch.sum(x * 2.0)
)", {T({8192, 8192})}});
  EXPECT_EQ(best(full), "(split_dim=0, sword=256, Column)");  // 256K elements a block
  // Rows enough for every thread: Row.
  Tuned rows = tune(Program{"rowsum", R"(
def f(x: torch.Tensor):
    return torch.sum(x, 1)
)", {T({64, 1 << 20})}});
  EXPECT_EQ(rows.ranked.front().type, SchedType::Row) << best(rows);
  EXPECT_EQ(rows.ranked.front().splitDim, 0) << best(rows);
  // A small full sum: one block.
  Tuned small = tune(Program{"smallsum", R"(
def f(x: torch.Tensor):
    return torch.sum(x)
)", {T({100, 100})}});
  EXPECT_EQ(best(small), "(split_dim=0, sword=1, Row)");
}

TEST(ScheduleTuning, RedundantWorkSteersTheSplit) {
  // Two roots of one shape share every schedule's split. Cutting dim 0
  // is legal, but then every block computes all of y's column sums; cutting
  // dim 1 gives each block its own columns' sums.
  Tuned t = tune(Program{"roots", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    a = torch.exp(x)
    b = a * torch.sum(y, 0)
    return a, b
)", {T({64, 96}), T({50, 96})}});
  ASSERT_EQ(t.roots.size(), 2u);
  for (const Schedule& s : t.ranked) {
    auto map = propagateSchedule(t.nodes, t.roots.back(), s);
    ASSERT_TRUE(map) << scheduleStr(s);
    EXPECT_EQ(map->at(t.roots[0]), map->at(t.roots[1])) << scheduleStr(s);
  }
  EXPECT_EQ(best(t), "(split_dim=1, sword=4, Row)");
  auto rows = propagateSchedule(t.nodes, t.roots.back(), Schedule{0, 4, SchedType::Row});
  ASSERT_TRUE(rows);
  EXPECT_EQ(partitionStr(rows->at(t.graph->inputs()[1])), "whole");
  EXPECT_LT(scheduleCost(t.nodes, t.roots, Schedule{1, 4, SchedType::Row}, {2}),
            scheduleCost(t.nodes, t.roots, Schedule{0, 4, SchedType::Row}, {2}));
}

TEST(ScheduleTuning, RootsIntersectBlockCountsFromTheirOwnInputs) {
  // %a allows 2, 3, 4, 6, 12 blocks on dim 0 and 2, 5, 10 on dim 1; %b
  // reads y [4, 30] reshaped, which cuts evenly only into 2 or 4 row
  // blocks: the candidates are the block counts both allow.
  Tuned t = tune(Program{"reach", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    a = x * 2.0
    b = y.reshape(12, 10) + 1.0
    return a, b
)", {T({12, 10}), T({4, 30})}});
  std::set<std::string> got;
  for (const Schedule& s : t.ranked) got.insert(scheduleStr(s));
  EXPECT_EQ(got, (std::set<std::string>{"(split_dim=0, sword=1, Row)", "(split_dim=0, sword=2, Row)",
                                        "(split_dim=0, sword=4, Row)"}));
  EXPECT_EQ(best(t), "(split_dim=0, sword=1, Row)");  // 120 elements
}

}  // namespace
}  // namespace stitch::schedule_test
