// Linearized kernels of fused groups: grids from schedules (split loop
// anywhere in the nest) and block-local buffers (a Fill's loop before its
// readers), run by the uop evaluator and compared with the interpreter.
#include <gtest/gtest.h>

#include <set>

#include "../ugraph/ugraph_test_util.h"
#include "fusion/fusion.h"
#include "uop_eval.h"
#include "uop_test_util.h"
#include "uops/linearizer.h"

namespace stitch::ugraph_test {
namespace {

const char* kSoftmax = R"(
def f(x: torch.Tensor):
    m = x.amax(-1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(-1, keepdim=True)
)";

// Runs the kernel's uops on p's random inputs (all f32 tensors) and
// compares its one output with the interpreter's.
void expectMatchesInterpreter(const Program& p, const Graph& g, const Kernel& k) {
  KernelUOps uops = linearize(k);
  SCOPED_TRACE(uops.uops.str());
  IValueList inputs = functionalize_test::randomInputs(p);
  IValueList expected = interpret(g, inputs);
  std::vector<std::vector<double>> data;
  const Tensor want = expected.at(0).toTensor();
  data.push_back(std::vector<double>(want.numel(), 12345));
  for (const Value* in : k.inputs) {
    size_t at = std::find(g.inputs().begin(), g.inputs().end(), in) - g.inputs().begin();
    const Tensor t = inputs.at(at).toTensor().contiguous();
    std::vector<double> d;
    for (int64_t i = 0; i < t.numel(); ++i) d.push_back(t.getDouble(i));
    data.push_back(std::move(d));
  }
  auto out = testing::evalUOps(uops.uops, data);
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(out[0][i], want.getDouble(i), 1e-5 * std::max(1.0, std::abs(want.getDouble(i)))) << "element " << i;
}

const Node* nodeOf(const Graph& g, const std::string& kind) {
  for (const Node* n : *g.top())
    if (n->kind() == kind) return n;
  return nullptr;
}

TEST(FusedLinearize, BufferedSoftmaxComputesEachExpOnce) {
  const int64_t rows = 4 * testing::randInt(1, 5), cols = testing::randInt(3, 40);
  Program p{"softmax", kSoftmax, {T({rows, cols})}};
  auto g = simplifiedGraph(p);
  for (Schedule s : {Schedule{}, Schedule{0, 4, SchedType::Row}}) {
    Kernel k = oneGroupKernel(*g, {nodeOf(*g, "exp")->output()}, s);
    ASSERT_EQ(k.block.locals.size(), 1u);
    expectMatchesInterpreter(p, *g, k);
    // The tile apart (uops/output_tile.h would fill it in the output).
    LinearizeOptions apart;
    apart.tilesInOutputs = false;
    KernelUOps uops = linearize(k, apart);
    // One EXP uop, inside the fill loop, which stores into the buffer
    // before any load from it.
    std::vector<int> exps;
    for (int i = 0; i < uops.uops.size(); ++i)
      if (uops.uops.at(i).kind == UOpKind::Alu && uops.uops.at(i).alu == AluOp::Exp) exps.push_back(i);
    EXPECT_EQ(exps.size(), 1u);
    int local = testing::firstOf(uops.uops, UOpKind::DefineLocal);
    ASSERT_GE(local, 0);
    EXPECT_EQ(uops.uops.at(local).ival, cols);
    int firstStore = -1, firstLoad = -1;
    for (int i = 0; i < uops.uops.size(); ++i) {
      const UOp& u = uops.uops.at(i);
      if (u.src.empty() || u.src[0] != local) continue;
      if (u.kind == UOpKind::Store && firstStore < 0) firstStore = i;
      if (u.kind == UOpKind::Load && firstLoad < 0) firstLoad = i;
    }
    EXPECT_GE(firstStore, 0);
    EXPECT_LT(firstStore, firstLoad);
    // By default the output holds the tile: still one EXP, no local. (A
    // row of at most kShortLoopTrips is stored element by element, with no
    // output loop to take the tile.)
    KernelUOps inOutput = linearize(k);
    if (cols > kShortLoopTrips)
      EXPECT_EQ(testing::firstOf(inOutput.uops, UOpKind::DefineLocal), -1) << inOutput.uops.str();
    int expsInOutput = 0;
    for (const UOp& u : inOutput.uops.uops()) expsInOutput += u.kind == UOpKind::Alu && u.alu == AluOp::Exp;
    EXPECT_EQ(expsInOutput, 1);
  }
}

// The schedule splits a loop that is not the outermost: every block runs
// the outer loops whole and its share of the split one.
TEST(FusedLinearize, ScheduleSplitsAnInnerLoop) {
  Program p{"ew", "def f(x: torch.Tensor):\n    return torch.exp(x) * 2.0\n", {T({3, 6, 5})}};
  auto g = simplifiedGraph(p);
  Kernel k = oneGroupKernel(*g, {}, Schedule{1, 3, SchedType::Row});
  ASSERT_TRUE(k.block.fromSchedule);
  ASSERT_EQ(k.block.splitLoop, 1);
  expectMatchesInterpreter(p, *g, k);
  KernelUOps uops = linearize(k);
  int special = testing::firstOf(uops.uops, UOpKind::Special);
  ASSERT_GE(special, 0);
  EXPECT_EQ(uops.uops.at(special).ival, 3);
}

// A detection head writes slices of each row in place and returns a view
// that merges the leading dims ([1, A, H, W, C] -> [1, A*H*W, C]). Any
// tile of a row depends on the row only: it is filled once per row, outside
// the loop over the row's C elements (filled inside it, every element
// recomputed the whole row: quadratic work); the written values are not
// buffered (each element reads one branch of the writes once the loop is
// cut into pieces). Small heads keep the view in the kernel; a large one
// leaves it to the host and splits the grid rows, one row index per block:
// a tile's unit dim must not stop the loop pieces.
// The kernels of g's fusion plan, which must be one group.
KernelGraph oneGroupsKernels(const Graph& g, bool viewOnHost) {
  FusionOptions options;
  options.kernelOp = canRunInKernel;
  FusionPlan plan = fuseGraph(g, options);
  EXPECT_EQ(plan.groups.size(), 1u);
  if (!plan.groups.empty()) EXPECT_EQ(plan.groups[0].hostReshape != nullptr, viewOnHost) << printFusionPlan(plan);
  PlanOptions planOptions;
  planOptions.fusion = &plan;
  return planKernels(g, planOptions);
}

void expectRowTilesFilledOncePerRow(const Program& p, bool viewOnHost) {
  auto g = simplifiedGraph(p);
  KernelGraph kernels = oneGroupsKernels(*g, viewOnHost);
  ASSERT_EQ(kernels.kernels.size(), 1u);
  const Kernel& k = kernels.kernels[0];
  for (const LocalBuffer& local : k.block.locals)
    EXPECT_LT(local.elements, p.args[0].shapes[0].back()) << "a whole row buffered";
  expectMatchesInterpreter(p, *g, k);
  // Counted on the loop per row: a long piece that runs flat computes its
  // short rest's columns too (ALongPieceWithAShortRestRunsOverTheRowsFlat).
  LinearizeOptions perRow;
  perRow.flatRows = false;
  KernelUOps uops = linearize(k, perRow);
  SCOPED_TRACE(uops.uops.str());
  // Loop depth at each DEFINE_LOCAL and at the output's STORE.
  int depth = 0, storeDepth = -1;
  std::vector<int> localDepths;
  for (const UOp& u : uops.uops.uops()) {
    if (u.kind == UOpKind::Loop) ++depth;
    if (u.kind == UOpKind::EndLoop && uops.uops.at(u.src[0]).kind == UOpKind::Loop) --depth;
    if (u.kind == UOpKind::DefineLocal) localDepths.push_back(depth);
    if (u.kind == UOpKind::Store && uops.uops.at(u.src[0]).kind == UOpKind::DefineGlobal) storeDepth = depth;
  }
  ASSERT_GE(storeDepth, 1);
  for (int d : localDepths) EXPECT_LT(d, storeDepth) << "a tile filled inside the row's element loop";
  // Loop pieces (loop_pieces.h): the exp of y[..., 2:4] runs only where the
  // write lands, in loops of at most 2 iterations, not over the whole row;
  // the sigmoids of y[..., 0:2] and y[..., 4:] once per element they write.
  std::vector<int> open;
  int exps = 0;
  int64_t sigmoids = 0;
  for (int id = 0; id < uops.uops.size(); ++id) {
    const UOp& u = uops.uops.at(id);
    if (u.kind == UOpKind::Loop) open.push_back(id);
    if (u.kind == UOpKind::EndLoop && !open.empty() && u.src[0] == open.back()) open.pop_back();
    if (u.kind != UOpKind::Alu || (u.alu != AluOp::Exp && u.alu != AluOp::Sigmoid)) continue;
    ASSERT_FALSE(open.empty());
    const UOp& loop = uops.uops.at(open.back());
    const UOp &lo = uops.uops.at(loop.src[0]), &hi = uops.uops.at(loop.src[1]);
    ASSERT_TRUE(lo.kind == UOpKind::Const && hi.kind == UOpKind::Const) << "in a loop of unknown length";
    if (u.alu == AluOp::Sigmoid) {
      sigmoids += hi.ival - lo.ival;
      continue;
    }
    ++exps;
    EXPECT_LE(hi.ival - lo.ival, 2) << "exp computed beyond the columns y[..., 2:4] writes";
  }
  EXPECT_GE(exps, 1);
  EXPECT_EQ(sigmoids, p.args[0].shapes[0].back() - 2) << "sigmoids per row";
}

const char* kDetectionHead = R"(
def f(p: torch.Tensor, grid: torch.Tensor):
    y = p.clone()
    y[..., 0:2] = torch.sigmoid(y[..., 0:2]) + grid
    y[..., 2:4] = torch.exp(y[..., 2:4])
    y[..., 4:] = torch.sigmoid(y[..., 4:])
    return y.view(1, -1, y.size(4))
)";

TEST(FusedLinearize, TilesOfAViewedRowAreFilledOncePerRow) {
  const int64_t a = testing::randInt(1, 3), h = testing::randInt(2, 6), w = testing::randInt(2, 6),
                c = testing::randInt(6, 12);
  expectRowTilesFilledOncePerRow({"head", kDetectionHead, {T({1, a, h, w, c}), T({1, 1, h, w, 2})}}, false);
  expectRowTilesFilledOncePerRow({"large_head", kDetectionHead, {T({1, 3, 16, 16, 85}), T({1, 1, 16, 16, 2})}},
                                 true);
}

// The uops of a large head's one kernel (the view left to the host),
// whose results the evaluator checks against the interpreter first.
KernelUOps headUOps(const Program& p, const LinearizeOptions& options = {}) {
  auto g = simplifiedGraph(p);
  KernelGraph kernels = oneGroupsKernels(*g, true);
  EXPECT_EQ(kernels.kernels.size(), 1u);
  if (kernels.kernels.size() != 1) return {};
  expectMatchesInterpreter(p, *g, kernels.kernels[0]);
  return linearize(kernels.kernels[0], options);
}

// The same head over 16 x 16 cells: the short pieces of a row (the 2-column
// slices, scalar sigmoids and exps in loops of 2) run in a loop over the
// cells of their own, apart from the long piece (the 81 class sigmoids),
// so the C compiler can vectorize them along the cells; every element is
// still written once, with the interpreter's values.
TEST(FusedLinearize, ShortPiecesOfARowRunApartFromTheLongOne) {
  const int64_t c = testing::randInt(12, 90);
  KernelUOps uops = headUOps({"large_head", kDetectionHead, {T({1, 3, 16, 16, c}), T({1, 1, 16, 16, 2})}});
  SCOPED_TRACE(uops.uops.str());
  // The loop around each transcendental's loop, by the length of the latter.
  std::vector<int> open;
  std::set<int> shortParents, longParents;
  for (int id = 0; id < uops.uops.size(); ++id) {
    const UOp& u = uops.uops.at(id);
    if (u.kind == UOpKind::Loop) open.push_back(id);
    if (u.kind == UOpKind::EndLoop && !open.empty() && u.src[0] == open.back()) open.pop_back();
    if (u.kind != UOpKind::Alu || (u.alu != AluOp::Exp && u.alu != AluOp::Sigmoid)) continue;
    ASSERT_GE(open.size(), 2u);
    const UOp& loop = uops.uops.at(open.back());
    const int64_t trips = uops.uops.at(loop.src[1]).ival - uops.uops.at(loop.src[0]).ival;
    (trips <= 2 ? shortParents : longParents).insert(open[open.size() - 2]);
  }
  ASSERT_FALSE(shortParents.empty());
  ASSERT_EQ(longParents.size(), 1u);
  EXPECT_EQ(shortParents.count(*longParents.begin()), 0u) << "a short piece in the long piece's loop";
  for (int parent : shortParents) {
    const UOp& loop = uops.uops.at(parent);
    EXPECT_EQ(uops.uops.at(loop.src[1]).ival - uops.uops.at(loop.src[0]).ival, 16) << "not the loop over cells";
  }
}

// The trips of the longest loop around a sigmoid, and of the loop around it.
std::pair<int64_t, int64_t> longestSigmoidLoop(const UOpGraph& g) {
  auto trips = [&](int loop) { return g.at(g.at(loop).src[1]).ival - g.at(g.at(loop).src[0]).ival; };
  std::vector<int> open;
  std::pair<int64_t, int64_t> longest{0, 0};
  for (int id = 0; id < g.size(); ++id) {
    const UOp& u = g.at(id);
    if (u.kind == UOpKind::Loop) open.push_back(id);
    if (u.kind == UOpKind::EndLoop && !open.empty() && u.src[0] == open.back()) open.pop_back();
    if (u.kind == UOpKind::Alu && u.alu == AluOp::Sigmoid && open.size() >= 2 && trips(open.back()) > longest.first)
      longest = {trips(open.back()), trips(open[open.size() - 2])};
  }
  return longest;
}

// The head's long piece (the class sigmoids, c - 4 columns) beside a short
// rest of 4 columns runs as one loop over a block's 16 rows back to back
// (flat_rows.h), not 16 loops of c - 4 trips; the short pieces after it
// write the 4 extra columns of each row again. The evaluator starts the
// output at 12345 and the extra columns hold sigmoids until then: a column
// left unwritten or written in the wrong order fails the comparison. On
// the CUDA target (flatRows off) the nest stays.
TEST(FusedLinearize, ALongPieceWithAShortRestRunsOverTheRowsFlat) {
  const int64_t c = testing::randInt(40, 90);
  const Program p{"large_head", kDetectionHead, {T({1, 3, 16, 16, c}), T({1, 1, 16, 16, 2})}};
  KernelUOps flat = headUOps(p);
  EXPECT_EQ(longestSigmoidLoop(flat.uops), std::make_pair(15 * c + c - 4, int64_t{1})) << flat.uops.str();
  LinearizeOptions nested;
  nested.flatRows = false;
  KernelUOps rows = headUOps(p, nested);
  EXPECT_EQ(longestSigmoidLoop(rows.uops), std::make_pair(c - 4, int64_t{16})) << rows.uops.str();
}

// Where the grid splits the rows themselves (the head on one thread: the
// view in the kernel, the block's loop over its chunk of the 3 x 16 x 16
// rows), the long piece runs flat over the block's chunk: the row loop once,
// at the block's first row, the columns from its column 4 to the chunk's
// last row's c. The evaluator checks every element against the
// interpreter.
TEST(FusedLinearize, ALongPieceRunsFlatOverTheBlocksChunkOfRows) {
  const int64_t c = testing::randInt(40, 90);
  const Program p{"large_head", kDetectionHead, {T({1, 3, 16, 16, c}), T({1, 1, 16, 16, 2})}};
  auto g = simplifiedGraph(p);
  FusionOptions options;
  options.kernelOp = canRunInKernel;
  options.threads = 1;
  FusionPlan plan = fuseGraph(*g, options);
  ASSERT_EQ(plan.groups.size(), 1u);
  PlanOptions planOptions;
  planOptions.fusion = &plan;
  KernelGraph kernels = planKernels(*g, planOptions);
  ASSERT_EQ(kernels.kernels.size(), 1u);
  const Kernel& k = kernels.kernels[0];
  ASSERT_EQ(k.block.loops.size(), 2u) << "rows, then a row's columns";
  ASSERT_EQ(k.block.splitLoop, 0) << "the grid splits the rows";
  expectMatchesInterpreter(p, *g, k);
  KernelUOps uops = linearize(k);
  SCOPED_TRACE(uops.uops.str());
  const UOpGraph& u = uops.uops;
  std::vector<int> open;
  int64_t flatTrips = 0;
  for (int id = 0; id < u.size(); ++id) {
    const UOp& op = u.at(id);
    if (op.kind == UOpKind::Loop) open.push_back(id);
    if (op.kind == UOpKind::EndLoop && !open.empty() && op.src[0] == open.back()) open.pop_back();
    if (op.kind != UOpKind::Alu || op.alu != AluOp::Sigmoid || open.size() < 2) continue;
    const UOp &columns = u.at(open.back()), &rows = u.at(open[open.size() - 2]);
    if (u.at(columns.src[0]).kind != UOpKind::Const || u.at(columns.src[1]).kind != UOpKind::Const) continue;
    const int64_t trips = u.at(columns.src[1]).ival - u.at(columns.src[0]).ival;
    if (trips <= c) continue;
    flatTrips = trips;
    // The row loop: [first, first + 1), first the block's first row.
    const UOp& end = u.at(rows.src[1]);
    ASSERT_EQ(end.kind, UOpKind::Alu);
    EXPECT_EQ(end.alu, AluOp::Add);
    EXPECT_TRUE(end.src[0] == rows.src[0] || end.src[1] == rows.src[0]);
  }
  EXPECT_EQ(flatTrips, (k.block.blockExtent - 1) * c + c - 4) << "one loop over the chunk's rows";
}

// A long piece that reads an operand of its columns only (a scale per
// class) or a rest too large for the columns computed in vain keeps the
// loop per row, with the interpreter's values.
TEST(FusedLinearize, ALongPieceReadingAPerColumnOperandKeepsItsRows) {
  const int64_t c = testing::randInt(40, 90);
  const char* scaled = R"(
def f(p: torch.Tensor, grid: torch.Tensor, w: torch.Tensor):
    y = p.clone()
    y[..., 0:2] = torch.sigmoid(y[..., 0:2]) + grid
    y[..., 2:4] = torch.exp(y[..., 2:4])
    y[..., 4:] = torch.sigmoid(y[..., 4:]) * w
    return y.view(1, -1, y.size(4))
)";
  KernelUOps uops = headUOps({"scaled_head", scaled, {T({1, 3, 16, 16, c}), T({1, 1, 16, 16, 2}), T({c - 4})}});
  EXPECT_EQ(longestSigmoidLoop(uops.uops).first, c - 4) << uops.uops.str();
  const int64_t narrow = testing::randInt(12, 35);  // a rest of 4 over an eighth of narrow - 4
  KernelUOps narrowUOps =
      headUOps({"narrow_head", kDetectionHead, {T({1, 3, 16, 16, narrow}), T({1, 1, 16, 16, 2})}});
  EXPECT_EQ(longestSigmoidLoop(narrowUOps.uops).first, narrow - 4) << narrowUOps.uops.str();
}

}  // namespace
}  // namespace stitch::ugraph_test

namespace stitch::ugraph_test {
namespace {

// Multiply-adds from the value v back to the accumulator's load.
int mulAddChain(const UOpGraph& g, int v) {
  int chain = 0;
  for (; g.at(v).kind == UOpKind::Alu && g.at(v).alu == AluOp::MulAdd; v = g.at(v).src[2]) ++chain;
  return chain;
}

// The DEFINE_LOCAL named `name`, or -1.
int localNamed(const UOpGraph& g, const std::string& name) {
  for (int id = 0; id < g.size(); ++id)
    if (g.at(id).kind == UOpKind::DefineLocal && g.at(id).name == name) return id;
  return -1;
}

// A row-vector product read whole by a reduction over its columns
// (greedy decoding's `argmax(h @ w)`; a softmax of it): the product's tile
// is filled by columns — w's rows in order, the tile accumulating across
// its columns — so every step reads a contiguous row of w instead of a
// strided column, and each element still sums its k terms in order; a
// pass over the columns takes 4 (or 2) rows of w, one load and store of
// the element per pass (unroll and jam).
TEST(FusedLinearize, ProductTileFilledByColumns) {
  const int64_t k = testing::randInt(3, 40), n = testing::randInt(16, 90);
  for (const char* src : {"def f(h: torch.Tensor, w: torch.Tensor):\n    return torch.softmax(h @ w, -1)\n",
                          "def f(h: torch.Tensor, w: torch.Tensor):\n    return torch.argmax(h @ w, -1)\n"}) {
    Program p{"colfill", src, {T({1, k}), T({k, n})}};
    auto g = simplifiedGraph(p);
    Kernel kern = oneGroupKernel(*g, {nodeOf(*g, "matmul")->output()});
    ASSERT_GE(kern.block.locals.size(), 1u) << "the product's tile";
    ASSERT_EQ(kern.block.locals[0].value, nodeOf(*g, "matmul")->output());
    expectMatchesInterpreter(p, *g, kern);
    KernelUOps uops = linearize(kern);
    SCOPED_TRACE(uops.uops.str());
    // The tile's accumulating store sits in a loop of n iterations nested
    // in one of k / jam, its value a chain of jam multiply-adds.
    const int64_t jam = k % 4 == 0 ? 4 : k % 2 == 0 ? 2 : 1;
    const int local = localNamed(uops.uops, kern.block.locals[0].name);
    ASSERT_GE(local, 0);
    EXPECT_EQ(uops.uops.at(local).ival, n);
    std::vector<int64_t> open;
    bool byColumns = false;
    for (int id = 0; id < uops.uops.size(); ++id) {
      const UOp& u = uops.uops.at(id);
      if (u.kind == UOpKind::Loop) open.push_back(uops.uops.at(u.src[1]).ival);
      if (u.kind == UOpKind::EndLoop && uops.uops.at(u.src[0]).kind == UOpKind::Loop) open.pop_back();
      if (u.kind != UOpKind::Store || u.src[0] != local) continue;
      const int chain = mulAddChain(uops.uops, u.src[2]);
      if (chain > 0) byColumns |= open.size() >= 2 && open.back() == n && open[open.size() - 2] == k / jam && chain == jam;
    }
    EXPECT_TRUE(byColumns) << "k " << k << " jam " << jam;
  }
}

}  // namespace
}  // namespace stitch::ugraph_test

namespace stitch::ugraph_test {
namespace {

// A row-vector product split along its columns (each block its share of n;
// an RNN cell's GEMVs): the accumulators live in a partial array per block
// and the reduction runs outside the loop over the block's columns. A pass
// over the columns takes 4 (or 2) terms of k, so each accumulator is loaded
// and stored once per pass, its stored value a chain of jam multiply-adds.
TEST(FusedLinearize, SplitProductJamsTermsPerPassOverTheColumns) {
  const int64_t k = 2 * testing::randInt(2, 20), n = 4 * testing::randInt(4, 20);
  Program p{"splitgemv", "def f(h: torch.Tensor, w: torch.Tensor, b: torch.Tensor):\n    return torch.exp(h @ w + b)\n",
            {T({1, k}), T({k, n}), T({n})}};
  auto g = simplifiedGraph(p);
  Kernel kern = oneGroupKernel(*g, {}, Schedule{1, 4, SchedType::Row});
  expectMatchesInterpreter(p, *g, kern);
  KernelUOps uops = linearize(kern);
  SCOPED_TRACE(uops.uops.str());
  const int64_t jam = k % 4 == 0 ? 4 : k % 2 == 0 ? 2 : 1;
  const int partial = localNamed(uops.uops, "partial0");
  ASSERT_GE(partial, 0) << "no partial array";
  int accumulating = 0;
  for (int id = 0; id < uops.uops.size(); ++id) {
    const UOp& u = uops.uops.at(id);
    if (u.kind != UOpKind::Store || u.src[0] != partial) continue;
    const int chain = mulAddChain(uops.uops, u.src[2]);
    if (chain == 0) continue;  // the start values
    ++accumulating;
    EXPECT_EQ(chain, jam) << "k " << k;
  }
  EXPECT_EQ(accumulating, 1);
}

}  // namespace
}  // namespace stitch::ugraph_test
