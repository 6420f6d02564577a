// parallel-map: which loops of a functional graph have independent
// iterations (FuncTs' pmap). Marking never changes what the graph computes.
#include <fstream>
#include <sstream>

#include "unroll_test_util.h"

namespace stitch::unroll_test {
namespace {

// The marks on the functional graph's loops, outermost first.
std::vector<bool> marks(const Program& p) {
  std::unique_ptr<Graph> imperative = specialized(p);
  std::unique_ptr<Graph> g = functionalGraph(*imperative);
  std::unique_ptr<Graph> before = g->clone();
  markParallelMaps(*g);
  expectSameOutputs(p, *imperative, *g, 2);
  std::vector<bool> out;
  for (const Node* loop : loopsOf(g->top())) out.push_back(isMarked(loop));
  return out;
}

TEST(ParallelMap, AppendAndInductionScalarIsParallel) {
  Program p{"scales", R"(
def f(xs: List[torch.Tensor], ys: List[torch.Tensor]):
    out: List[torch.Tensor] = []
    s = 1.0
    for x, y in zip(xs, ys):
        out.append(x * s + y)
        s = s * 2.0
    return torch.cat(out, 0)
)", {TL({{6, 4}, {3, 4}}), TL({{6, 4}, {3, 4}})}};
  EXPECT_EQ(marks(p), std::vector<bool>{true});
}

TEST(ParallelMap, InductionFromCounterAndInvariantsIsParallel) {
  Program p{"counter", R"(
def f(x: torch.Tensor, n: int):
    out: List[torch.Tensor] = []
    k = 0
    for i in range(n):
        k = k + i * n
        out.append(x * k + x.sum())
    return torch.stack(out), k
)", {T({5}), I(4)}};
  EXPECT_EQ(marks(p), std::vector<bool>{true});
}

TEST(ParallelMap, TensorAccumulationIsNotParallel) {
  Program p{"accumulate", R"(
def f(xs: List[torch.Tensor]):
    acc = torch.zeros(4)
    for x in xs:
        acc = acc + x
    return acc
)", {TL({{4}, {4}, {4}})}};
  EXPECT_EQ(marks(p), std::vector<bool>{false});
}

TEST(ParallelMap, ScalarReducedFromTensorsIsNotParallel) {
  Program p{"scalar_sum", R"(
def f(xs: List[torch.Tensor]):
    total = 0.0
    out: List[torch.Tensor] = []
    for x in xs:
        out.append(x * 2)
        total = total + float(x.sum())
    return torch.cat(out, 0), total
)", {TL({{4}, {3}})}};
  EXPECT_EQ(marks(p), std::vector<bool>{false});
}

TEST(ParallelMap, ListReadInTheBodyIsNotParallel) {
  Program p{"read_list", R"(
def f(x: torch.Tensor, n: int):
    out: List[torch.Tensor] = [x]
    for i in range(n):
        out.append(out[-1] * 2)
    return torch.stack(out)
)", {T({3}), I(3)}};
  EXPECT_EQ(marks(p), std::vector<bool>{false});
}

TEST(ParallelMap, RowWritesCarryATensorAndAreNotParallel) {
  Program p{"rows", R"(
def f(b: torch.Tensor, n: int):
    b = b.clone()
    for i in range(n):
        b[i] = b[i] + 1
    return b
)", {T({6, 3}), I(4)}};
  EXPECT_EQ(marks(p), std::vector<bool>{false});
}

TEST(ParallelMap, DataDependentExitIsNotParallel) {
  Program p{"exit", R"(
def f(x: torch.Tensor, n: int):
    out: List[torch.Tensor] = []
    for i in range(n):
        if i * 2 > n:
            break
        out.append(x * i)
    return torch.stack(out)
)", {T({3}), I(5)}};
  std::vector<bool> m = marks(p);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_FALSE(m[0]);
}

TEST(ParallelMap, LstmTimeAndLayerLoopsAreNotParallel) {
  std::ifstream file(std::string(STITCH_SOURCE_DIR) + "/examples/lstm.py");
  std::stringstream source;
  source << file.rdbuf();
  Program p{"lstm", source.str(),
            {T({3, 2, 8}), T({2, 32, 8}), T({2, 32, 8}), T({2, 32}), T({2, 2, 8}), T({2, 2, 8})}};
  std::vector<bool> m = marks(p);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_FALSE(m[0]);  // time steps: the states carry over
  EXPECT_FALSE(m[1]);  // layers: each takes the previous one's output
}

TEST(ParallelMap, InnerLoopMarkedWhereTheOuterCarriesItsList) {
  Program p{"nested", R"(
def f(x: torch.Tensor):
    out: List[torch.Tensor] = []
    for i in range(2):
        for j in range(3):
            out.append(x * i + j)
    return torch.stack(out)
)", {T({4})}};
  // The outer body passes its list through the inner loop (not a plain
  // append), so only the inner loop is a parallel map.
  EXPECT_EQ(marks(p), (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace stitch::unroll_test
