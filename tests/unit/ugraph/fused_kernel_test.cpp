// Kernels from fused groups: hand-made fusion plans (one group for a whole
// softmax / layernorm / normalize), grids from schedules, and block-local
// buffers from hand-made shared-memory plans, each evaluated against the
// interpreter on fresh random inputs.
#include "../common/random.h"
#include "ugraph/block_graph_builder.h"
#include "ugraph/local_buffers.h"
#include "ugraph/lowering.h"
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

using testing::randInt;

// Plans `p` under a one-group plan and compares with the interpreter.
Checked checkFused(const Program& p, Schedule schedule = {}) {
  Checked c;
  c.graph = simplifiedGraph(p);
  FusionPlan plan = oneGroup(*c.graph, schedule);
  PlanOptions options;
  options.fusion = &plan;
  c.kernels = planKernels(*c.graph, options);
  SCOPED_TRACE("graph:\n" + printGraph(*c.graph) + "kernels:\n" + printKernelGraph(c.kernels));
  for (int round = 0; round < 2; ++round) {
    IValueList inputs = functionalize_test::randomInputs(p);
    IValueList a, b;
    for (const IValue& v : inputs) {
      a.push_back(functionalize_test::deepCopy(v));
      b.push_back(functionalize_test::deepCopy(v));
    }
    IValueList expected = interpret(*c.graph, a);
    IValueList got = runPlanned(*c.graph, c.kernels, b);
    EXPECT_EQ(expected.size(), got.size());
    for (size_t i = 0; i < expected.size() && i < got.size(); ++i)
      EXPECT_TRUE(closeValue(expected[i], got[i], 1e-5)) << "output " << i;
  }
  return c;
}

const char* kSoftmax = R"(
def f(x: torch.Tensor):
    m = x.amax(-1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(-1, keepdim=True)
)";

const char* kLayerNorm = R"(
def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float):
    mean = x.mean(-1, keepdim=True)
    var = (x * x).mean(-1, keepdim=True) - mean * mean
    return (x - mean) * torch.rsqrt(var + eps) * w + b
)";

const char* kNormalize = R"(
def f(src: torch.Tensor, mean: float, scale: float):
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
)";

TEST(FusedKernel, SoftmaxLayerNormNormalizeAreOneKernel) {
  for (const auto& p : {Program{"softmax", kSoftmax, {T({12, 37})}},
                        Program{"layernorm", kLayerNorm, {T({9, 40}), T({40}), T({40}), F(1e-5)}},
                        Program{"normalize", kNormalize, {T({7, 5, 3}), F(0.5), F(2.0)}}}) {
    SCOPED_TRACE(p.name);
    Checked c = checkFused(p);
    ASSERT_EQ(c.kernels.kernels.size(), 1u);
    const Kernel& k = c.kernels.kernels[0];
    EXPECT_EQ(k.outputs, std::vector<const Value*>(c.graph->outputs().begin(), c.graph->outputs().end()));
    ASSERT_TRUE(k.block.schedule.has_value());
    // Small inputs: the one-block schedule, run as one block.
    EXPECT_TRUE(k.block.fromSchedule);
    EXPECT_EQ(k.block.grid, std::vector<int64_t>{1});
  }
}

TEST(FusedKernel, GridFollowsTheSchedule) {
  const int64_t rows = 8 * randInt(1, 6);
  Checked c = checkFused(Program{"softmax", kSoftmax, {T({rows, 29})}}, Schedule{0, 8, SchedType::Row});
  ASSERT_EQ(c.kernels.kernels.size(), 1u);
  const BlockGraph& b = c.kernels.kernels[0].block;
  EXPECT_TRUE(b.fromSchedule);
  EXPECT_EQ(b.grid, std::vector<int64_t>{8});
  EXPECT_EQ(b.blockExtent, rows / 8);
  EXPECT_EQ(b.loops.at(b.splitLoop).iterDims.front(), 0);
}

// split_dim inside a merged loop: the loop is cut where the dim starts.
TEST(FusedKernel, ScheduleSplitsInsideAMergedLoop) {
  Checked c = checkFused(Program{"ew", "def f(x: torch.Tensor):\n    return torch.exp(x) * 2.0\n", {T({4, 6, 8})}},
                         Schedule{1, 3, SchedType::Row});
  ASSERT_EQ(c.kernels.kernels.size(), 1u);
  const BlockGraph& b = c.kernels.kernels[0].block;
  ASSERT_TRUE(b.fromSchedule);
  ASSERT_EQ(b.loops.size(), 2u);
  EXPECT_EQ(b.loops[0].iterDims, std::vector<int>{0});
  EXPECT_EQ(b.loops[1].iterDims, (std::vector<int>{1, 2}));
  EXPECT_EQ(b.splitLoop, 1);
  EXPECT_EQ(b.blockExtent, 2 * 8);
  EXPECT_EQ(b.grid, std::vector<int64_t>{3});
}

// A Column schedule splits the root reduction across blocks (partials
// combined later); a group with two reductions keeps the row grid.
TEST(FusedKernel, ColumnScheduleSplitsTheRootReduction) {
  const int64_t rows = 4 * randInt(2, 30);
  Checked c = checkFused(Program{"sum", "def f(x: torch.Tensor):\n    return torch.exp(x * 0.5).sum(0)\n",
                                 {T({rows, 3})}},
                         Schedule{0, 4, SchedType::Column});
  ASSERT_EQ(c.kernels.kernels.size(), 1u);
  const BlockGraph& b = c.kernels.kernels[0].block;
  ASSERT_TRUE(b.column.has_value());
  EXPECT_EQ(b.column->parts, 4);
  EXPECT_EQ(b.grid, std::vector<int64_t>{4});
  EXPECT_EQ(b.thread.node(b.column->partial).op, TOp::Reduce);
  EXPECT_EQ(b.outputs.at(0).omap, std::vector<int>{kReplica});
  Checked v = checkFused(Program{"var", "def f(x: torch.Tensor):\n    return x.var(0)\n", {T({rows, 3})}},
                         Schedule{0, 4, SchedType::Column});
  ASSERT_EQ(v.kernels.kernels.size(), 1u);
  EXPECT_FALSE(v.kernels.kernels[0].block.column.has_value());
  EXPECT_FALSE(v.kernels.kernels[0].block.fromSchedule);
}

// The node of `kind` in the top block.
const Node* nodeOf(const Graph& g, const std::string& kind) {
  for (const Node* n : *g.top())
    if (n->kind() == kind) return n;
  return nullptr;
}

int countAlu(const ThreadGraph& tg, AluOp op) {
  int n = 0;
  for (const TNode& t : tg.nodes()) n += t.op == TOp::Alu && t.alu == op;
  return n;
}

// Builds the one-group kernel of `g` with `buffered` values in the plan and
// evaluates it on random inputs against the interpreter.
Kernel bufferedKernel(const Program& p, const Graph& g, const std::vector<const Value*>& buffered) {
  Kernel k = oneGroupKernel(g, buffered);
  KernelGraph kg;
  kg.kernelAt[k.nodes.back()] = 0;
  for (const Node* n : k.nodes) kg.inKernel.insert(n);
  kg.kernels.push_back(k);
  SCOPED_TRACE(printKernelGraph(kg));
  IValueList inputs = functionalize_test::randomInputs(p);
  IValueList a, b;
  for (const IValue& v : inputs) {
    a.push_back(functionalize_test::deepCopy(v));
    b.push_back(functionalize_test::deepCopy(v));
  }
  IValueList expected = interpret(g, a), got = runPlanned(g, kg, b);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(closeValue(expected[i], got[i], 1e-5));
  return k;
}

// softmax's e = exp(x - max) buffered: one row tile (fixed by the row
// index), and EXP appears once in the thread graph (in the fill).
TEST(FusedKernel, BufferedExpIsFilledOncePerRow) {
  const int64_t cols = randInt(5, 60);
  Program p{"softmax", kSoftmax, {T({6, cols})}};
  auto g = simplifiedGraph(p);
  const Node* exp = nodeOf(*g, "exp");
  ASSERT_NE(exp, nullptr);
  Kernel k = bufferedKernel(p, *g, {exp->output()});
  ASSERT_EQ(k.block.locals.size(), 1u);
  EXPECT_EQ(k.block.locals[0].elements, cols);
  EXPECT_EQ(k.block.locals[0].value, exp->output());
  EXPECT_EQ(countAlu(k.block.thread, AluOp::Exp), 1);
  int fills = 0, localLoads = 0;
  for (const TNode& t : k.block.thread.nodes()) {
    fills += t.op == TOp::Fill;
    localLoads += t.op == TOp::LocalLoad;
  }
  EXPECT_EQ(fills, 1);
  EXPECT_EQ(localLoads, 2);  // the sum's and the division's
  // Without the plan: exp expanded at both uses.
  Kernel plain = bufferedKernel(p, *g, {});
  EXPECT_TRUE(plain.block.locals.empty());
  EXPECT_EQ(countAlu(plain.block.thread, AluOp::Exp), 2);
}

// Values not worth a buffer stay expanded: a value used at one index only,
// a copy (its element is a load), a value fixed in every dim (a row
// reduction: the linearizer computes it once per row already).
TEST(FusedKernel, BuffersOnlyWhereTheyPay) {
  Program p{"layernorm", kLayerNorm, {T({5, 24}), T({24}), T({24}), F(1e-5)}};
  auto g = simplifiedGraph(p);
  std::vector<const Value*> all;
  for (const Node* n : *g->top())
    if (canRunInKernel(n)) all.push_back(n->output());
  Kernel k = bufferedKernel(p, *g, all);
  for (const LocalBuffer& lb : k.block.locals) {
    EXPECT_NE(lb.value->node()->kind(), "mean") << "a row reduction needs no tile";
    EXPECT_EQ(lb.elements, 24);
  }
  Program q{"normalize", kNormalize, {T({4, 5, 3}), F(0.5), F(2.0)}};
  auto h = simplifiedGraph(q);
  const Node* clone = nodeOf(*h, "clone");
  ASSERT_NE(clone, nullptr);
  EXPECT_TRUE(bufferedKernel(q, *h, {clone->output()}).block.locals.empty());
}

// Requests that disagree on a dim (e at row i and at row 0) make it a tile
// dim: the whole value is filled once per block, and results stay exact.
TEST(FusedKernel, DisagreeingRequestsWidenTheTile) {
  Program p{"row0", R"(
def f(x: torch.Tensor):
    e = torch.exp(x)
    s = e.sum(-1, keepdim=True)
    return e / s + e[0]
)", {T({5, 11})}};
  auto g = simplifiedGraph(p);
  const Node* exp = nodeOf(*g, "exp");
  ASSERT_NE(exp, nullptr);
  Kernel k = bufferedKernel(p, *g, {exp->output()});
  ASSERT_EQ(k.block.locals.size(), 1u);
  EXPECT_EQ(k.block.locals[0].elements, 55);
}

// A request whose fixed index differs from the fill's (row 0 where the
// tile holds row i) is served by expanding the value, not by the buffer.
TEST(FusedKernel, RequestOutsideTheTileExpands) {
  Program p{"exp", "def f(x: torch.Tensor):\n    return torch.exp(x) * 2.0\n", {T({4, 9})}};
  auto g = simplifiedGraph(p);
  const Node* exp = nodeOf(*g, "exp");
  ASSERT_NE(exp, nullptr);
  Kernel k;
  k.nodes = {exp};
  std::unordered_set<const Node*> group{exp};
  ThreadGraph tg({4, 9});
  LowerContext ctx(tg, group, k);
  ctx.bufferValue(exp->output(), {1, 0}, 0);
  const int i = tg.iterVar(0), j = tg.iterVar(1);
  const int inTile = ctx.element(exp->output(), {i, j});
  const int outside = ctx.element(exp->output(), {tg.constInt(0), j});
  EXPECT_EQ(tg.node(inTile).op, TOp::LocalLoad);
  EXPECT_EQ(tg.node(outside).op, TOp::Alu);
  EXPECT_EQ(tg.node(outside).alu, AluOp::Exp);
  EXPECT_EQ(tg.node(tg.node(inTile).args[0]).op, TOp::Fill);
}

}  // namespace
}  // namespace stitch::ugraph_test
