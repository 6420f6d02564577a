// Kernel planning: which nodes form which groups, kernel inputs / outputs /
// params, names in program order, loop bodies, and what stays a host op.
#include "fusion/fusion.h"
#include "ir/ir_parser.h"
#include "ugraph/kernel_graph_printer.h"
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

const Kernel* kernelOf(const KernelGraph& kg, const Node* n) {
  for (const Kernel& k : kg.kernels)
    if (std::find(k.nodes.begin(), k.nodes.end(), n) != k.nodes.end()) return &k;
  return nullptr;
}

const Node* firstOf(const Block* b, const std::string& kind) {
  for (const Node* n : *b) {
    if (n->kind() == kind) return n;
    for (const Block* sub : n->blocks())
      if (const Node* found = firstOf(sub, kind)) return found;
  }
  return nullptr;
}

TEST(KernelPlanner, ElementwiseChainFusesIntoOneKernel) {
  Program p{"chain", R"(
def f(x: torch.Tensor, y: torch.Tensor, s: float):
    return torch.exp(x * y + s).sigmoid()
)", {T({16, 32}), T({32}), F(0.5)}};
  Checked c = checkLowering(p);
  ASSERT_EQ(c.kernels.kernels.size(), 1u);
  const Kernel& k = c.kernels.kernels[0];
  EXPECT_EQ(k.name, "k0");
  EXPECT_EQ(k.nodes.size(), 4u);  // mul add exp sigmoid
  EXPECT_EQ(k.outputs.size(), 1u);
  EXPECT_EQ(k.outputs[0], c.graph->outputs()[0]);
  EXPECT_EQ(k.inputs.size(), 2u);
  ASSERT_EQ(k.params.size(), 1u);
  EXPECT_EQ(k.params[0], c.graph->inputs()[2]);
  EXPECT_EQ(c.kernels.kernelAt.at(k.nodes.back()), 0);
  for (const Node* n : k.nodes) EXPECT_TRUE(c.kernels.inKernel.count(n));
}

TEST(KernelPlanner, ValueWithTwoUsesDoesNotFuse) {
  Program p{"twouses", R"(
def f(x: torch.Tensor):
    a = x * 2.0
    return a + 1.0, a - 1.0
)", {T({8})}};
  Checked c = checkLowering(p);
  ASSERT_EQ(c.kernels.kernels.size(), 3u);
  const Node* mul = firstOf(c.graph->top(), "mul");
  const Kernel* k = kernelOf(c.kernels, mul);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->nodes.size(), 1u);
  EXPECT_EQ(k->name, "k0");  // program order
  EXPECT_EQ(c.kernels.kernels[1].inputs[0], mul->output());
}

TEST(KernelPlanner, ReductionIsAGroupOfItsOwn) {
  Program p{"reduce", R"(
def f(x: torch.Tensor):
    return (x * x).sum(1).sqrt()
)", {T({8, 9})}};
  Checked c = checkLowering(p);
  ASSERT_EQ(c.kernels.kernels.size(), 3u);
  EXPECT_EQ(c.kernels.kernels[1].nodes.front()->kind(), "sum");
}

TEST(KernelPlanner, UnknownShapesStayHostOps) {
  auto g = parseGraph(R"(graph f(%x : f32[?, 4], %y : f32[3, 4]):
  %a : f32[?, 4] = exp(%x)
  %b : f32[3, 4] = exp(%y)
  return (%a, %b)
)");
  KernelGraph kg = planKernels(*g);
  ASSERT_EQ(kg.kernels.size(), 1u);
  EXPECT_EQ(kg.kernels[0].outputs[0], g->outputs()[1]);
}

TEST(KernelPlanner, ImperativeGraphsPlanSingleNodes) {
  auto g = parseGraph(R"(graph f(%x : f32[4], %y : f32[4]):
  %one : int = prim.constant[value=1]()
  %a : f32[4] = mul(%x, %y)
  %b : f32[4] = exp(%a)
  %c : f32[4] = add_(%b, %y, %one)
  %d : f32[4] = neg(%c)
  return (%d)
)");
  KernelGraph fused = planKernels(*g);
  EXPECT_EQ(fused.kernels.size(), 2u);  // {mul, exp}, {neg}: add_ stays
  KernelGraph single = planKernels(*g, PlanOptions{false});
  ASSERT_EQ(single.kernels.size(), 3u);
  for (const Kernel& k : single.kernels) EXPECT_EQ(k.nodes.size(), 1u);
  const Node* addInPlace = firstOf(g->top(), "add_");
  EXPECT_FALSE(single.inKernel.count(addInPlace));
}

TEST(KernelPlanner, LoopBodiesArePlanned) {
  Program p{"loop", R"(
def f(x: torch.Tensor, n: int):
    y = x * 2.0
    for i in range(n):
        y = torch.tanh(y * 0.5 + 1.0)
    return y + 1.0
)", {T({4, 4}), I(3)}};
  Checked c = checkLowering(p);
  const Graph* g = c.graph.get();
  const KernelGraph& kg = c.kernels;
  const Node* tanh = firstOf(g->top(), "tanh");
  ASSERT_NE(tanh, nullptr);
  ASSERT_NE(tanh->owningBlock(), g->top());
  const Kernel* k = kernelOf(kg, tanh);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->nodes.size(), 3u);  // mul add tanh
  ASSERT_EQ(kg.kernels.size(), 3u);
  EXPECT_EQ(kg.kernels[1].nodes.back(), tanh);  // program order: before, inside, after the loop
  for (const Kernel& kk : kg.kernels) EXPECT_EQ(kk.nodes.front()->owningBlock(), kk.nodes.back()->owningBlock());
}

TEST(KernelPlanner, GraphOutputUsedInsideChainStaysAnOutput) {
  auto g = parseGraph(R"(graph f(%x : f32[4]):
  %a : f32[4] = exp(%x)
  %b : f32[4] = neg(%a)
  return (%a, %b)
)");
  KernelGraph kg = planKernels(*g);
  ASSERT_EQ(kg.kernels.size(), 2u);  // %a is returned too: no fusion
}

TEST(KernelPlanner, ZeroSizeOutputsStayHostOps) {
  auto g = parseGraph(R"(graph f(%x : f32[0, 4]):
  %a : f32[0, 4] = exp(%x)
  return (%a)
)");
  EXPECT_TRUE(planKernels(*g).kernels.empty());
}

TEST(KernelPlanner, PrinterShowsKernels) {
  Program p{"printed", R"(
def f(x: torch.Tensor, m: torch.Tensor):
    return torch.exp(x - m)
)", {T({64, 1000}), T({64, 1})}};
  Checked c = checkLowering(p, 1);
  std::string text = printKernelGraph(c.kernels);
  EXPECT_NE(text.find("kernel k0 block:"), std::string::npos) << text;
  EXPECT_NE(text.find("=sub"), std::string::npos) << text;
  EXPECT_NE(text.find("=exp"), std::string::npos) << text;
  EXPECT_NE(text.find("in1 %m : f32[64,1] imap {x->0}"), std::string::npos) << text;
  EXPECT_NE(text.find("loops [0]<64> [1]<1000>"), std::string::npos) << text;
  EXPECT_NE(text.find("Alu EXP"), std::string::npos) << text;
  EXPECT_NE(text.find("store out0"), std::string::npos) << text;
}

TEST(KernelPlanner, ListBuiltForOneCatJoinsItsKernel) {
  Program p{"catlist", R"(
def f(a: torch.Tensor, b: torch.Tensor):
    shared = [a, b]
    return torch.cat([a, b * 2.0], 0), torch.cat(shared, 1), torch.stack(shared, 0)
)", {T({3, 3}), T({3, 3})}};
  Checked c = checkLowering(p);
  const Node* first = firstOf(c.graph->top(), "cat");
  const Kernel* k = kernelOf(c.kernels, first);
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->nodes.size(), 2u);
  EXPECT_EQ(k->nodes[0]->kind(), "prim.list_construct");
  EXPECT_EQ(k->nodes[1], first);
  EXPECT_EQ(k->outputs.size(), 1u);
  EXPECT_EQ(k->inputs.size(), 2u);  // a and b * 2.0
  // The shared list has two users: it stays a host op, and each kernel reads
  // the list's tensors directly.
  EXPECT_EQ(countLowered(c, "cat", false), 0);
  EXPECT_EQ(countLowered(c, "stack", false), 0);
  for (const Node* n : *c.graph->top()) {
    if (n->is("prim.list_construct") && n->output()->uses().size() == 2) {
      EXPECT_FALSE(c.kernels.inKernel.count(n)) << "the shared list must stay on the host";
    }
  }
}

TEST(KernelPlanner, LargeContractionsArePredefinedSmallOnesGenerated) {
  auto g = parseGraph(R"(graph f(%a : f32[64,80], %b : f32[80,96], %c : f32[4,32], %d : f32[32,8]):
  %big : f32[64,96] = mm(%a, %b)
  %small : f32[4,8] = mm(%c, %d)
  return (%big, %small)
)");
  KernelGraph kg = planKernels(*g);
  ASSERT_EQ(kg.kernels.size(), 2u);
  EXPECT_EQ(kg.kernels[0].kind, KernelKind::Contraction);  // 64*96*80 multiply-adds
  EXPECT_EQ(kg.kernels[0].nodes.size(), 1u);
  EXPECT_EQ(kg.kernels[0].inputs.size(), 2u);
  EXPECT_EQ(kg.kernels[1].kind, KernelKind::GraphDefined);  // 4*8*32
  EXPECT_NE(printKernelGraph(kg).find("contraction"), std::string::npos);
}

TEST(KernelPlanner, SameDtypeConversionAliasesAndStaysHost) {
  auto g = parseGraph(R"(graph f(%x : f32[4]):
  %t : dtype = prim.constant[value=f32]()
  %d : dtype = prim.constant[value=f64]()
  %one : int = prim.constant[value=1]()
  %y : f32[4] = to(%x, %t)
  %z : f32[4] = add_(%y, %x, %one)
  %w : f64[4] = to(%x, %d)
  return (%z, %w)
)");
  KernelGraph kg = planKernels(*g, PlanOptions{false});
  ASSERT_EQ(kg.kernels.size(), 1u);
  EXPECT_EQ(kg.kernels[0].outputs[0], g->outputs()[1]);
}

// A loop kernel writes a carried tensor in place only when nothing reads
// the value from before the write: a view of the old row, read after the
// write (by the attention), keeps the loop on the host; the same view of
// the written value does not.
TEST(KernelPlanner, LoopKernelWritesInPlaceOnlyOverDeadValues) {
  for (const char* base : {"%c", "%c2"}) {
    SCOPED_TRACE(base);
    auto g = parseGraph(std::string(R"(graph f(%k : f32[3,2,8], %cache : f32[6,2,8], %start : int):
  %0 : int = prim.constant[value=0]()
  %1 : int = prim.constant[value=1]()
  %none : None = prim.constant[value=None]()
  %true : bool = prim.constant[value=true]()
  %scale : float = prim.constant[value=0.5]()
  %n : int = prim.constant[value=3]()
  %r : f32[6,2,8] = prim.loop(%n, %true, %cache)
    block0(%t : int, %c : f32[6,2,8]):
      %pos : int = scalar.add(%start, %t)
      %row : f32[2,8] = immut.select(%k, %0, %t)
      %c2 : f32[6,2,8] = immut.select_rev(%c, %row, %0, %pos)
      %old : f32[2,8] = immut.select()") + base + R"(, %0, %pos)
      %q : f32[2,1,8] = immut.unsqueeze(%old, %1)
      %end : int = scalar.add(%pos, %1)
      %rows : f32[?,2,8] = immut.slice(%c2, %0, %none, %end, %1)
      %keys : f32[2,?,8] = immut.transpose(%rows, %0, %1)
      %a : f32[2,1,8] = fused.attention(%q, %keys, %keys, %scale)
      -> (%true, %c2)
  return (%r)
)");
    const FusionPlan plan = fuseGraph(*g, FusionOptions{});
    PlanOptions options;
    options.fusion = &plan;
    options.loopKernels = true;
    KernelGraph kg = planKernels(*g, options);
    EXPECT_EQ(kg.loops.size(), std::string(base) == "%c2" ? 1u : 0u) << printKernelGraph(kg);
  }
}

}  // namespace
}  // namespace stitch::ugraph_test
