// Golden tests of fusion decisions on small graphs: the plan's text (one
// line per group, schedules masked) after deep and sibling fusion.
#include "fusion_test_util.h"
#include "passes/attention_chains.h"
#include "passes/dce.h"

namespace stitch::fusion_test {
namespace {

TEST(FusionDecisions, SoftmaxIsOneGroup) {
  Fused f = fuse({"softmax", R"(
def f(x: torch.Tensor):
    m = torch.amax(x, dim=-1, keepdim=True)
    d = x - m
    e = torch.exp(d)
    s = e.sum(dim=-1, keepdim=True)
    o = e / s
    return o
)", {T({8, 16})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %o schedule * nodes: %m=amax %d=sub %e=exp %s=sum %o=div"}));
}

TEST(FusionDecisions, FunctionalizedNormalizeIsOneGroup) {
  // The select_revs' bases are made inside the group (the clones), so they
  // fuse as index arithmetic.
  Fused f = fuse({"normalize", R"(
def f(src: torch.Tensor, mean: float, scale: float):
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    o = (dup - mean) * scale
    return o
)", {T({4, 5, 3}), F(0.5), F(2.0)}});
  ASSERT_EQ(f.plan.groups.size(), 1u);
  EXPECT_EQ(f.plan.groups[0].nodes.size(), 8u);  // 2 clones, 2 selects, 2 select_revs, sub, mul
  EXPECT_EQ(f.plan.groups[0].roots, std::vector<const Value*>{f.graph->outputs()[0]});
}

TEST(FusionDecisions, NothingFusesWhenFusionIsOff) {
  FusionOptions options = testOptions();
  options.fuse = false;
  Fused f = fuse({"off", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = a + 1.0
    return b
)", {T({8})}}, options);
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %a schedule * nodes: %a=exp", "group g1 root %b schedule * nodes: %b=add"}));
}

// A -> B -> C with B not fusable: A and C read the same input, but one group
// {A, C} would have to run before B (C needs it) and after it (B needs A).
TEST(FusionDecisions, NoCycleThroughAnUnfusableNode) {
  FusionOptions options = testOptions();
  options.kernelOp = [](const Node* n) { return testKernelOp(n) && !n->is("abs"); };
  Fused f = fuse({"cycle", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = torch.abs(a)
    c = b * x
    return c
)", {T({8})}}, options);
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %a schedule * nodes: %a=exp", "group g1 root %c schedule * nodes: %c=mul"}));
}

// The same with a direct edge A -> C as well: deep fusion must refuse too.
TEST(FusionDecisions, NoCycleWithADirectEdge) {
  FusionOptions options = testOptions();
  options.kernelOp = [](const Node* n) { return testKernelOp(n) && !n->is("abs"); };
  Fused f = fuse({"cycle2", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = torch.abs(a)
    c = b * a
    d = c + 1.0
    return d
)", {T({8})}}, options);
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %a schedule * nodes: %a=exp",
                                  "group g1 root %d schedule * nodes: %c=mul %d=add"}));
}

// A large contraction is a predefined kernel: the same cycle shape with a
// matmul in the middle.
TEST(FusionDecisions, NoCycleThroughALargeContraction) {
  Fused f = fuse({"cycle3", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    a = x * 2.0
    b = a @ w
    c = b + 1.0
    d = torch.relu(a)
    e = d.sum(dim=1, keepdim=True)
    o = c * e
    return o
)", {T({64, 128}), T({128, 64})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %a schedule * nodes: %a=mul",
                                  "group g1 root %b schedule * nodes: %b=matmul",
                                  "group g2 root %o schedule * nodes: %c=add %d=relu %e=sum %o=mul"}));
}

// Position rule: a non-member reads %a before the group's last node, so %a
// cannot join %b's group even though no cycle would form.
TEST(FusionDecisions, ValueUsedBeforeTheKernelRunsStaysOut) {
  FusionOptions options = testOptions();
  options.kernelOp = [](const Node* n) { return testKernelOp(n) && !n->is("abs"); };
  Fused f = fuse({"position", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    y = torch.abs(a)
    b = a + 1.0
    return b, y
)", {T({8})}}, options);
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %a schedule * nodes: %a=exp", "group g1 root %b schedule * nodes: %b=add"}));
}

// The same program with the outside use after the group: %a becomes a root.
TEST(FusionDecisions, ValueUsedAfterTheKernelIsARoot) {
  FusionOptions options = testOptions();
  options.kernelOp = [](const Node* n) { return testKernelOp(n) && !n->is("abs"); };
  Fused f = fuse({"position2", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = a + 1.0
    y = torch.abs(a)
    return b, y
)", {T({8})}}, options);
  EXPECT_TRUE(sameLines(f.lines, {"group g0 roots %a %b schedule * nodes: %a=exp %b=add"}));
}

// Roots must have one shape: a row sum used outside cannot be a root of the
// group making [8, 16] values.
TEST(FusionDecisions, RootsOfDifferentShapesDoNotFuse) {
  Fused f = fuse({"shapes", R"(
def f(x: torch.Tensor):
    s = x.sum(dim=1, keepdim=True)
    o = x / s
    return o, s
)", {T({8, 16})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %s schedule * nodes: %s=sum", "group g1 root %o schedule * nodes: %o=div"}));
}

// An Assign op whose base comes from outside the group (here a graph input
// written in place) stays a group of one; its source fuses elsewhere.
TEST(FusionDecisions, AssignIntoAnOutsideBaseStaysAlone) {
  Fused f = fuse({"assign_outside", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    e = torch.exp(y)
    v = e + 1.0
    x[0] = v
    o = x * 2.0
    return o
)", {T({4, 8}), T({8})}});
  ASSERT_EQ(f.plan.groups.size(), 3u) << ::testing::PrintToString(f.lines);
  EXPECT_TRUE(sameLines({f.lines[0]}, {"group g0 root %v schedule * nodes: %e=exp %v=add"}));
  EXPECT_EQ(f.plan.groups[1].nodes.size(), 1u);
  EXPECT_EQ(f.plan.groups[1].nodes[0]->kind(), "immut.select_rev");
  EXPECT_EQ(f.plan.groups[2].nodes.size(), 1u);
  EXPECT_EQ(f.plan.groups[2].nodes[0]->kind(), "mul");
}

// With the base made by a clone in the same block, the Assign op fuses with
// it, its source and its consumer.
TEST(FusionDecisions, AssignIntoABaseMadeInsideFuses) {
  Fused f = fuse({"assign_inside", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    z = x.clone()
    v = torch.exp(y) + 1.0
    z[0] = v
    o = z * 2.0
    return o
)", {T({4, 8}), T({8})}});
  ASSERT_EQ(f.plan.groups.size(), 1u) << ::testing::PrintToString(f.lines);
  EXPECT_EQ(f.plan.groups[0].nodes.size(), 5u);  // clone exp add select_rev mul
}

// A state written row by row in a loop: the Assign ops stay alone, the math
// making the row fuses.
TEST(FusionDecisions, LoopStateAssignsStayAlone) {
  Fused f = fuse({"loop_state", R"(
def f(x: torch.Tensor, s: torch.Tensor):
    s = s.clone()
    for i in range(4):
        r = torch.tanh(x[i] * 2.0 + s[i])
        s[i] = r
    return s
)", {T({4, 8}), T({4, 8})}});
  std::vector<std::string> lines = f.lines;
  ASSERT_EQ(lines.size(), 3u) << ::testing::PrintToString(lines);
  EXPECT_NE(lines[0].find("nodes: %s.1=clone"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("root %r "), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("=mul"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("%r=tanh"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("=immut.select_rev"), std::string::npos) << lines[2];
}

// Large contractions are predefined kernels; small ones fuse with their
// consumers.
TEST(FusionDecisions, LargeContractionStaysAloneSmallOneFuses) {
  Fused big = fuse({"big_mm", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    m = x @ w
    o = torch.relu(m)
    return o
)", {T({64, 64}), T({64, 128})}});
  EXPECT_TRUE(sameLines(big.lines, {"group g0 root %m schedule * nodes: %m=matmul",
                                    "group g1 root %o schedule * nodes: %o=relu"}));
  Fused small = fuse({"small_mm", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    m = x @ w
    o = torch.relu(m)
    return o
)", {T({4, 8}), T({8, 8})}});
  EXPECT_TRUE(sameLines(small.lines, {"group g0 root %o schedule * nodes: %m=matmul %o=relu"}));
}

TEST(FusionDecisions, PredefinedKernelPredicateIsHonoured) {
  FusionOptions options = testOptions();
  options.predefinedKernel = [](const Node* n) { return n->is("matmul"); };
  Fused f = fuse({"predef", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    m = x @ w
    o = torch.relu(m)
    return o
)", {T({4, 8}), T({8, 8})}}, options);
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %m schedule * nodes: %m=matmul",
                                  "group g1 root %o schedule * nodes: %o=relu"}));
}

// An expensive producer (a contraction) used inside and outside the group
// would be computed twice: it stays out.
TEST(FusionDecisions, ExpensiveProducerWithOutsideUseStaysOut) {
  Fused f = fuse({"expensive", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    m = x @ w
    o = torch.relu(m)
    return o, m
)", {T({4, 8}), T({8, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %m schedule * nodes: %m=matmul",
                                  "group g1 root %o schedule * nodes: %o=relu"}));
}

// A contraction asks for each operand element once per output it feeds: an
// operand computed in its group would be computed that often (and a chain
// of contractions multiplies the factors). Each recurrence step is a group
// of its own, its product first; index arithmetic on operands still fuses.
TEST(FusionDecisions, ContractionOperandsAreNotComputedInItsGroup) {
  Fused rnn = fuse({"rnn", R"(
def f(x: torch.Tensor, w: torch.Tensor, h: torch.Tensor):
    p1 = h @ w
    h1 = torch.tanh(p1 + x)
    p2 = h1 @ w
    h2 = torch.tanh(p2 + x)
    return h2
)", {T({4, 8}), T({8, 8}), T({4, 8})}});
  EXPECT_TRUE(sameLines(rnn.lines, {"group g0 root %h1 schedule * nodes: %p1=matmul %1=add %h1=tanh",
                                    "group g1 root %h2 schedule * nodes: %p2=matmul %2=add %h2=tanh"}));
  Fused computed = fuse({"computed", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    r = torch.relu(x)
    m = r @ w.t()
    return m
)", {T({4, 8}), T({16, 8})}});
  EXPECT_TRUE(sameLines(computed.lines, {"group g0 root %r schedule * nodes: %r=relu",
                                         "group g1 root %m schedule * nodes: %2=immut.transpose %m=matmul"}));
}

// Two contractions side by side (an LSTM's input and hidden products) fuse.
TEST(FusionDecisions, ParallelContractionsFuse) {
  Fused f = fuse({"gates", R"(
def f(x: torch.Tensor, h: torch.Tensor, wi: torch.Tensor, wh: torch.Tensor):
    a = x @ wi
    b = h @ wh
    g = torch.sigmoid(a + b)
    return g
)", {T({4, 8}), T({4, 8}), T({8, 16}), T({8, 16})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %g schedule * nodes: %a=matmul %b=matmul %1=add %g=sigmoid"}));
}

// A cheap producer used inside and outside joins as a root.
TEST(FusionDecisions, CheapProducerWithOutsideUseIsARoot) {
  Fused f = fuse({"cheap", R"(
def f(x: torch.Tensor):
    a = x * 2.0
    o = torch.relu(a)
    return o, a
)", {T({4, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 roots %a %o schedule * nodes: %a=mul %o=relu"}));
}

// A producer whose consumers sit in two groups joins the one whose kernel
// runs first, as a root; the other reads its stored value.
TEST(FusionDecisions, SharedProducerJoinsOneConsumerGroup) {
  Fused f = fuse({"shared", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    s = a * 2.0
    b = a * 3.0
    t = b.sum(dim=0, keepdim=True)
    return s, t
)", {T({4, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 roots %a %s schedule * nodes: %a=exp %s=mul",
                                  "group g1 root %t schedule * nodes: %b=mul %t=sum"}));
}

// Passes repeat until nothing merges: %a first joins %b's group as a root,
// then that group joins %c's, its other consumer.
TEST(FusionDecisions, GroupsMergeUntilNothingMerges) {
  Fused f = fuse({"repeat", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = torch.sigmoid(a)
    c = torch.tanh(a)
    return b, c
)", {T({4, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 roots %b %c schedule * nodes: %a=exp %b=sigmoid %c=tanh"}));
}

// When joining either consumer group would give it roots of two shapes,
// the producer stays alone.
TEST(FusionDecisions, SharedProducerStaysAloneWithoutAMatchingRoot) {
  Fused f = fuse({"shared2", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    s = a.sum(dim=1, keepdim=True)
    b = a * 3.0
    t = b.sum(dim=0, keepdim=True)
    return s, t
)", {T({4, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %a schedule * nodes: %a=exp",
                                  "group g1 root %s schedule * nodes: %s=sum",
                                  "group g2 root %t schedule * nodes: %b=mul %t=sum"}));
}

TEST(FusionDecisions, SiblingsReadingOneInputFuse) {
  Fused f = fuse({"siblings", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = torch.neg(x)
    return a, b
)", {T({4, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 roots %a %b schedule * nodes: %a=exp %b=neg"}));
}

// Groups whose kernels run one after the other merge even without a shared
// input (one parallel loop instead of two).
TEST(FusionDecisions, AdjacentUnrelatedGroupsFuse) {
  Fused f = fuse({"adjacent", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    a = torch.exp(x)
    b = torch.neg(y)
    return a, b
)", {T({4, 8}), T({4, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 roots %a %b schedule * nodes: %a=exp %b=neg"}));
}

// Not adjacent (a group of another shape runs between) and no shared input:
// apart. Different shapes: apart.
TEST(FusionDecisions, DistantOrDifferentlyShapedSiblingsStayApart) {
  Fused distant = fuse({"distant", R"(
def f(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor):
    a = torch.exp(x)
    s = z.sum(dim=0)
    b = torch.neg(y)
    return a, s, b
)", {T({4, 8}), T({4, 8}), T({3, 5})}});
  EXPECT_TRUE(sameLines(distant.lines, {"group g0 root %a schedule * nodes: %a=exp",
                                        "group g1 root %s schedule * nodes: %s=sum",
                                        "group g2 root %b schedule * nodes: %b=neg"}));
  Fused shapes = fuse({"shapes", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = x.sum(dim=0)
    return a, b
)", {T({4, 8})}});
  EXPECT_TRUE(sameLines(shapes.lines, {"group g0 root %a schedule * nodes: %a=exp",
                                       "group g1 root %b schedule * nodes: %b=sum"}));
}

// Not adjacent, but reading the same input: one kernel reads it once.
TEST(FusionDecisions, DistantSiblingsSharingAnInputFuse) {
  Fused f = fuse({"distant_shared", R"(
def f(x: torch.Tensor, z: torch.Tensor):
    a = torch.exp(x)
    s = z.sum(dim=0)
    b = torch.neg(x)
    return a, s, b
)", {T({4, 8}), T({3, 5})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %s schedule * nodes: %s=sum",
                                  "group g1 roots %a %b schedule * nodes: %a=exp %b=neg"}));
}

// Sibling fusion must keep the position rule: %a's value is read by a host
// op before %b, so {a, b} would run too late for it.
TEST(FusionDecisions, SiblingsKeepThePositionRule) {
  FusionOptions options = testOptions();
  options.kernelOp = [](const Node* n) { return testKernelOp(n) && !n->is("abs"); };
  Fused f = fuse({"sibling_position", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    y = torch.abs(a)
    b = torch.neg(x)
    return a, b, y
)", {T({4, 8})}}, options);
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %a schedule * nodes: %a=exp", "group g1 root %b schedule * nodes: %b=neg"}));
}

// Groups of a loop body come where the loop stands, each block on its own.
TEST(FusionDecisions, LoopBodiesAreFusedSeparately) {
  Fused f = fuse({"loop", R"(
def f(x: torch.Tensor, n: int):
    a = torch.exp(x)
    for i in range(n):
        a = torch.sigmoid(a * 2.0)
    b = a + 1.0
    return b
)", {T({4, 8}), I(3)}});
  ASSERT_EQ(f.lines.size(), 3u) << ::testing::PrintToString(f.lines);
  EXPECT_NE(f.lines[0].find("nodes: %a=exp"), std::string::npos) << f.lines[0];
  EXPECT_NE(f.lines[1].find("=mul %a."), std::string::npos) << f.lines[1];
  EXPECT_NE(f.lines[1].find("=sigmoid"), std::string::npos) << f.lines[1];
  EXPECT_NE(f.lines[2].find("nodes: %b=add"), std::string::npos) << f.lines[2];
}

// A list built for one stack is absorbed into the stack's kernel: the
// stacked values are not roots, and the list does not break the position
// rule.
TEST(FusionDecisions, StackOfFusedValuesIsOneGroup) {
  Fused f = fuse({"stack", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = a * 2.0
    c = a + 1.0
    o = torch.stack([b, c], dim=-1)
    return o
)", {T({4, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %o schedule * nodes: %a=exp %b=mul %c=add %o=stack"}));
}

// A list built for a kernel op outside the group is read where the list
// stands: %a may not join %b's group, whose kernel runs after the list.
TEST(FusionDecisions, ListBuiltBeforeTheKernelKeepsItsElementOut) {
  Fused f = fuse({"early_list", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    l = [a, x]
    b = a * 2.0
    o = torch.stack(l)
    return o, b
)", {T({4, 8})}});
  EXPECT_TRUE(sameLines(f.lines, {"group g0 root %a schedule * nodes: %a=exp", "group g1 root %b schedule * nodes: %b=mul",
                                  "group g2 root %o schedule * nodes: %o=stack"}));
}

// Rule 3 with more than one thread: a cumsum along the only dim runs on one
// block, so merging the large parallel product into it would serialize that
// product; on one thread nothing is lost and they fuse.
TEST(FusionDecisions, MergeThatSerializesALargeParallelGroupIsRefused) {
  Program p{"serial", R"(
def f(x: torch.Tensor):
    a = x * 2.0
    c = torch.cumsum(a, 0)
    return c
)", {T({1 << 16})}};
  Fused two = fuse(p);
  EXPECT_TRUE(sameLines(two.lines, {"group g0 root %a schedule * nodes: %a=mul",
                                    "group g1 root %c schedule * nodes: %c=cumsum"}));
  FusionOptions one = testOptions();
  one.threads = 1;
  Fused single = fuse(p, one);
  EXPECT_TRUE(sameLines(single.lines, {"group g0 root %c schedule * nodes: %a=mul %c=cumsum"}));
  Fused small = fuse({"serial_small", p.source, {T({1024})}});
  EXPECT_TRUE(sameLines(small.lines, {"group g0 root %c schedule * nodes: %a=mul %c=cumsum"}))
      << "too small for its parallel schedule to matter";
}

// A reshape that is its group's root, flattening the dims the group could
// split (only the 3 anchors of [1, 3, 32, 32, 85] survive in [1, 3072, 85]),
// is left to the host (a view of the dense result): the group splits its
// own 5-d result finer. Where the reshape costs the schedule nothing, it
// stays in the group.
TEST(FusionDecisions, RootReshapeThatLimitsTheScheduleRunsOnTheHost) {
  Fused f = fuse({"yolo_like", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y[..., 0:2] = torch.sigmoid(y[..., 0:2])
    return y.view(1, -1, 85)
)", {T({1, 3, 32, 32, 85})}});
  ASSERT_EQ(f.plan.groups.size(), 1u) << printFusionPlan(f.plan);
  const FusedGroup& g = f.plan.groups[0];
  for (const Node* n : g.nodes) EXPECT_FALSE(n->is("immut.view")) << printFusionPlan(f.plan);
  ASSERT_EQ(g.roots.size(), 1u);
  EXPECT_EQ(g.roots[0]->type()->shape()->size(), 5u) << printFusionPlan(f.plan);
  EXPECT_GT(g.schedule.sword, 3) << printFusionPlan(f.plan);
  ASSERT_NE(g.hostReshape, nullptr);
  EXPECT_TRUE(g.hostReshape->is("immut.view"));
  EXPECT_NE(printFusionPlan(f.plan).find("\nhost %"), std::string::npos) << printFusionPlan(f.plan);

  Fused kept = fuse({"flat", R"(
def f(x: torch.Tensor):
    y = torch.exp(x) * 2.0
    return y.view(-1)
)", {T({64, 64})}});
  ASSERT_EQ(kept.plan.groups.size(), 1u) << printFusionPlan(kept.plan);
  EXPECT_TRUE(kept.plan.groups[0].nodes.back()->is("immut.view")) << printFusionPlan(kept.plan);
  EXPECT_EQ(kept.plan.groups[0].hostReshape, nullptr);
}

// A view whose every use reads it in place (an Assign's source: the runtime
// writes it into the base) runs on the host, no copy kernel; the same view
// feeding arithmetic, or returned, is a kernel's work as before.
TEST(FusionDecisions, ViewsReadInPlaceRunOnTheHost) {
  Fused written = fuse({"cache_write", R"(
def f(cache: torch.Tensor, k: torch.Tensor, t: int):
    cache[:, t] = k[t].unsqueeze(0).squeeze(0)
    return cache
)", {T({4, 9, 8}), T({6, 4, 8}), I(2)}});
  const std::string text = printFusionPlan(written.plan);
  ASSERT_EQ(written.plan.hostViews.size(), 3u) << text;
  for (const Node* n : written.plan.hostViews) EXPECT_EQ(written.plan.groupOf.count(n), 0u) << text;
  EXPECT_NE(text.find("host view %"), std::string::npos) << text;
  for (const FusedGroup& g : written.plan.groups)
    for (const Node* n : g.nodes) EXPECT_FALSE(n->is("immut.select")) << text;

  // A view of fused.attention's output (a buffer the program made) goes
  // into the list as a host view, as does the query row (an operand); a
  // view of an input appended to the list stays a kernel's copy.
  Fused listed;
  listed.graph = simplifiedGraph({"listed", R"(
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    outs: List[torch.Tensor] = []
    for t in range(q.shape[0]):
        p = torch.softmax(q[t] @ k.transpose(-1, -2) * 0.5, dim=-1)
        outs.append((p @ v).squeeze(1))
        outs.append(v[:, t])
    return torch.stack(outs)
)", {T({3, 2, 1, 8}), T({2, 5, 8}), T({2, 5, 8})}});
  ASSERT_TRUE(formAttentionChains(*listed.graph));
  eliminateDeadCode(*listed.graph);
  listed.plan = fuseGraph(*listed.graph, testOptions());
  EXPECT_TRUE(planKeepsInvariants(*listed.graph, listed.plan, testOptions()));
  const std::string listedText = printFusionPlan(listed.plan);
  std::vector<std::string> hostKinds;
  for (const Node* n : listed.plan.hostViews) hostKinds.push_back(n->kind());
  EXPECT_EQ(hostKinds, (std::vector<std::string>{"immut.select", "immut.squeeze"})) << listedText;
  ASSERT_EQ(listed.plan.groups.size(), 1u) << listedText;
  EXPECT_TRUE(listed.plan.groups[0].nodes.front()->is("immut.select")) << listedText;

  for (const char* use : {"return k[t] * 2.0", "return k[t]"}) {
    Fused computed = fuse({"computed", std::string("\ndef f(k: torch.Tensor, t: int):\n    ") + use + "\n",
                           {T({6, 4, 8}), I(2)}});
    EXPECT_TRUE(computed.plan.hostViews.empty()) << use << "\n" << printFusionPlan(computed.plan);
    EXPECT_EQ(computed.plan.groups.size(), 1u) << use << "\n" << printFusionPlan(computed.plan);
  }
}

}  // namespace
}  // namespace stitch::fusion_test
