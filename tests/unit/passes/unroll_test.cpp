// unroll: parallel-map loops with small constant trip counts become
// straight-line copies of their body, each with its iteration's exact types;
// results stay equal to the interpreter's on the imperative program.
#include "unroll_test_util.h"

namespace stitch::unroll_test {
namespace {

struct Unrolled {
  std::unique_ptr<Graph> imperative;
  std::unique_ptr<Graph> graph;
};

Unrolled unrolled(const Program& p) {
  Unrolled u;
  u.imperative = specialized(p);
  u.graph = functionalGraph(*u.imperative);
  specializeAndUnroll(*u.graph, exactListTypes(p));
  expectSameOutputs(p, *u.imperative, *u.graph);
  return u;
}

TEST(Unroll, ConstantRangeBecomesStraightLineCode) {
  Program p{"range3", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    out: List[torch.Tensor] = []
    s = 0.5
    for i in range(3):
        out.append(torch.exp(x * s) + y[i])
        s = s * 3.0
    return torch.stack(out, 0)
)", {T({2, 5}), T({3, 5})}};
  Unrolled u = unrolled(p);
  EXPECT_EQ(countKind(u.graph->top(), "prim.loop"), 0u);
  EXPECT_EQ(countKind(u.graph->top(), "exp"), 3u);
  EXPECT_EQ(countKind(u.graph->top(), "list.append"), 0u);  // one list_construct
  EXPECT_EQ(countKind(u.graph->top(), "scalar.mul"), 0u);   // strides folded
  std::string first;
  EXPECT_TRUE(allTensorsStatic(u.graph->top(), first)) << first;
}

TEST(Unroll, ListOfDifferentShapesGetsExactTypesPerIteration) {
  Program p{"scales", R"(
def f(xs: List[torch.Tensor], ys: List[torch.Tensor]):
    out: List[torch.Tensor] = []
    s = 8.0
    for x, y in zip(xs, ys):
        out.append(torch.clamp(x[..., 0:2] * s + y[..., 2:4], min=0.0))
        s = s * 2.0
    return torch.cat(out, 0)
)", {TL({{12, 4}, {5, 4}, {1, 4}}), TL({{12, 4}, {5, 4}, {1, 4}})}};
  Unrolled u = unrolled(p);
  EXPECT_EQ(countKind(u.graph->top(), "prim.loop"), 0u);
  EXPECT_EQ(countKind(u.graph->top(), "clamp"), 3u);
  std::string first;
  EXPECT_TRUE(allTensorsStatic(u.graph->top(), first)) << first;
  // The concatenation's shape is known: 12 + 5 + 1 rows.
  const Value* out = u.graph->outputs().at(0);
  EXPECT_EQ(out->type()->str(), "f32[18,2]");
}

TEST(Unroll, RunTimeTripCountStaysALoop) {
  Program p{"runtime_n", R"(
def f(x: torch.Tensor, n: int):
    out: List[torch.Tensor] = [x]
    for i in range(n):
        out.append(x * i)
    return torch.cat(out, 0)
)", {T({4}), I(3)}};
  Unrolled u = unrolled(p);
  std::vector<const Node*> loops = loopsOf(u.graph->top());
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_TRUE(isMarked(loops[0]));
}

TEST(Unroll, LargeTripCountStaysALoop) {
  Program p{"range100", R"(
def f(x: torch.Tensor):
    out: List[torch.Tensor] = []
    for i in range(100):
        out.append(x + i)
    return torch.stack(out, 0)
)", {T({4})}};
  static_assert(kMaxUnrolledTrips < 100);
  Unrolled u = unrolled(p);
  EXPECT_EQ(countKind(u.graph->top(), "prim.loop"), 1u);
}

TEST(Unroll, ZeroTripsGiveTheInitialValues) {
  Program p{"range0", R"(
def f(x: torch.Tensor):
    out: List[torch.Tensor] = [x]
    k = 2
    for i in range(0):
        out.append(x * k)
        k = k + 1
    return torch.cat(out, 0) * k
)", {T({4})}};
  Unrolled u = unrolled(p);
  EXPECT_EQ(countKind(u.graph->top(), "prim.loop"), 0u);
}

TEST(Unroll, DependentLoopStaysALoop) {
  Program p{"accumulate", R"(
def f(x: torch.Tensor):
    acc = x
    for i in range(3):
        acc = acc * 2 + i
    return acc
)", {T({4})}};
  Unrolled u = unrolled(p);
  EXPECT_EQ(countKind(u.graph->top(), "prim.loop"), 1u);
}

TEST(Unroll, InnerParallelMapUnrolledInsideItsOuterLoop) {
  Program p{"nested", R"(
def f(x: torch.Tensor, n: int):
    out: List[torch.Tensor] = []
    for i in range(n):
        for j in range(3):
            out.append(x * i + j)
    return torch.stack(out)
)", {T({4}), I(2)}};
  Unrolled u = unrolled(p);
  std::vector<const Node*> loops = loopsOf(u.graph->top());
  ASSERT_EQ(loops.size(), 1u);  // the outer one: its trip count is n
  EXPECT_EQ(countKind(loops[0]->block(0), "list.append"), 3u);
}

TEST(Unroll, OuterLoopUnrolledOnceItsInnerLoopIs) {
  Program p{"nested_constant", R"(
def f(x: torch.Tensor):
    out: List[torch.Tensor] = []
    for i in range(2):
        for j in range(3):
            out.append(x[j] * i + j)
    return torch.stack(out)
)", {T({3, 4})}};
  Unrolled u = unrolled(p);
  EXPECT_EQ(countKind(u.graph->top(), "prim.loop"), 0u);
  EXPECT_EQ(countKind(u.graph->top(), "list.append"), 0u);
  EXPECT_EQ(u.graph->outputs()[0]->type()->str(), "f32[6,4]");
}

TEST(Unroll, MarkedLoopOfOtherKindIsLeftAlone) {
  // The mark is the parallel-map pass's; unroll only trusts it when set.
  Program p{"unmarked", R"(
def f(x: torch.Tensor):
    out: List[torch.Tensor] = []
    for i in range(3):
        out.append(x * i)
    return torch.stack(out)
)", {T({4})}};
  std::unique_ptr<Graph> imperative = specialized(p);
  std::unique_ptr<Graph> g = functionalGraph(*imperative);
  EXPECT_FALSE(unrollParallelMaps(*g));
  EXPECT_EQ(countKind(g->top(), "prim.loop"), 1u);
  EXPECT_TRUE(markParallelMaps(*g));
  EXPECT_TRUE(unrollParallelMaps(*g));
  EXPECT_EQ(countKind(g->top(), "prim.loop"), 0u);
  expectSameOutputs(p, *imperative, *g);
}

}  // namespace
}  // namespace stitch::unroll_test
