// Work/span analysis: spans (depth from the block's roots), layers, work,
// and the layer property (no node uses another node of its layer).
#include "fusion/block_deps.h"
#include "fusion/work_span.h"
#include "fusion_test_util.h"

namespace stitch::fusion_test {
namespace {

const Node* nodeNamed(const Block* b, const std::string& name) {
  for (const Node* n : *b)
    if (n->outputs().size() == 1 && n->output()->debugName() == name) return n;
  return nullptr;
}

std::vector<std::string> layerNames(const WorkSpan& ws) {
  std::vector<std::string> out;
  for (const auto& layer : ws.layers) {
    std::string s;
    for (const Node* n : layer) s += (s.empty() ? "" : " ") + n->output()->debugName();
    out.push_back(s);
  }
  return out;
}

TEST(FusionWorkSpan, SoftmaxLayersFromTheRoot) {
  auto g = simplifiedGraph({"softmax", R"(
def f(x: torch.Tensor):
    m = torch.amax(x, dim=-1, keepdim=True)
    d = x - m
    e = torch.exp(d)
    s = e.sum(dim=-1, keepdim=True)
    o = e / s
    return o
)", {T({8, 16})}});
  BlockDeps deps = analyzeBlockDeps(g->top(), testKernelOp);
  WorkSpan ws = analyzeWorkSpan(deps, testKernelOp);
  EXPECT_EQ(ws.span.at(nodeNamed(g->top(), "o")), 0);
  EXPECT_EQ(ws.span.at(nodeNamed(g->top(), "s")), 1);
  EXPECT_EQ(ws.span.at(nodeNamed(g->top(), "e")), 2);  // longest path: e -> s -> o
  EXPECT_EQ(ws.span.at(nodeNamed(g->top(), "m")), 4);
  EXPECT_EQ(layerNames(ws), (std::vector<std::string>{"o", "s", "e", "d", "m"}));
  EXPECT_EQ(ws.work, 5);
}

TEST(FusionWorkSpan, IndependentNodesShareALayerInProgramOrder) {
  auto g = simplifiedGraph({"wide", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    a = torch.exp(x)
    b = torch.neg(y)
    c = a * b
    d = torch.sigmoid(x)
    return c, d
)", {T({4}), T({4})}});
  BlockDeps deps = analyzeBlockDeps(g->top(), testKernelOp);
  WorkSpan ws = analyzeWorkSpan(deps, testKernelOp);
  EXPECT_EQ(layerNames(ws), (std::vector<std::string>{"c d", "a b"}));
}

// A host op on the chain still orders its producer after its consumer, but
// only selected nodes appear in the layers.
TEST(FusionWorkSpan, HostOpsCountInSpansButNotInLayers) {
  auto select = [](const Node* n) { return testKernelOp(n) && !n->is("abs"); };
  auto g = simplifiedGraph({"host", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    b = torch.abs(a)
    c = b + 1.0
    return c
)", {T({4})}});
  BlockDeps deps = analyzeBlockDeps(g->top(), select);
  WorkSpan ws = analyzeWorkSpan(deps, select);
  EXPECT_EQ(ws.span.at(nodeNamed(g->top(), "a")), 2);
  EXPECT_EQ(layerNames(ws), (std::vector<std::string>{"c", "", "a"}));
  EXPECT_EQ(ws.work, 2);
}

// A use inside a loop body counts as a use by the loop node.
TEST(FusionWorkSpan, UsesInsideALoopCountAsTheLoops) {
  auto g = simplifiedGraph({"loopuse", R"(
def f(x: torch.Tensor, n: int):
    a = torch.exp(x)
    b = torch.neg(x)
    for i in range(n):
        b = b + a
    return b
)", {T({4}), I(3)}});
  BlockDeps deps = analyzeBlockDeps(g->top(), testKernelOp);
  const Node* a = nodeNamed(g->top(), "a");
  ASSERT_EQ(deps.usersOf(a).size(), 1u);
  EXPECT_TRUE(deps.usersOf(a)[0]->is("prim.loop"));
  WorkSpan ws = analyzeWorkSpan(deps, testKernelOp);
  EXPECT_EQ(ws.span.at(a), 1);
  EXPECT_EQ(ws.span.at(deps.usersOf(a)[0]), 0);
}

// The list built for one stack is absorbed: its elements' user is the stack.
TEST(FusionWorkSpan, ListForOneKernelOpIsAbsorbed) {
  auto g = simplifiedGraph({"stack", R"(
def f(x: torch.Tensor):
    a = torch.exp(x)
    o = torch.stack([a, x], dim=0)
    return o
)", {T({4})}});
  BlockDeps deps = analyzeBlockDeps(g->top(), testKernelOp);
  const Node* a = nodeNamed(g->top(), "a");
  ASSERT_EQ(deps.usersOf(a).size(), 1u);
  EXPECT_TRUE(deps.usersOf(a)[0]->is("stack"));
  EXPECT_EQ(deps.absorbedLists.size(), 1u);
}

// On the examples, in every block: no layer
// holds a node and one of its users, and users have smaller spans.
TEST(FusionWorkSpan, LayersHoldNoDependenceOnExamples) {
  for (const char* name : {"normalize.py", "softmax.py", "layernorm.py", "lstm.py"}) {
    std::string path = std::string(STITCH_SOURCE_DIR) + "/examples/" + name;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_FALSE(text.str().empty()) << path;
    std::string source = text.str();
    // The examples import torch themselves; the harness prepends it again.
    std::vector<functionalize_test::Arg> args;
    if (std::string(name) == "normalize.py") args = {T({8, 6, 3}), F(0.5), F(2.0)};
    if (std::string(name) == "softmax.py") args = {T({4, 10})};
    if (std::string(name) == "layernorm.py") args = {T({4, 16}), T({16}), T({16}), F(1e-5)};
    if (std::string(name) == "lstm.py")
      args = {T({3, 2, 4}), T({2, 16, 4}), T({2, 16, 4}), T({2, 16}), T({2, 2, 4}), T({2, 2, 4})};
    auto g = simplifiedGraph({name, source, args});
    std::function<void(const Block*)> walk = [&](const Block* b) {
      BlockDeps deps = analyzeBlockDeps(b, testKernelOp);
      WorkSpan ws = analyzeWorkSpan(deps, testKernelOp);
      for (const auto& layer : ws.layers) {
        std::unordered_set<const Node*> here(layer.begin(), layer.end());
        for (const Node* n : layer)
          for (const Node* u : deps.usersOf(n)) EXPECT_FALSE(here.count(u)) << name << ": " << n->kind();
      }
      for (const Node* n : deps.nodes)
        for (const Node* u : deps.usersOf(n)) EXPECT_LT(ws.span.at(u), ws.span.at(n)) << name;
      for (const Node* n : b->nodes())
        for (const Block* sub : n->blocks()) walk(sub);
    };
    walk(g->top());
  }
}

}  // namespace
}  // namespace stitch::fusion_test
