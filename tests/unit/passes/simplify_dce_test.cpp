// dce: dead pure nodes (and dead pure branches) go, effects stay.
#include "passes/dce.h"
#include "simplify_test_util.h"

namespace stitch::simplify_test {
namespace {

TEST(SimplifyDce, RemovesDeadChains) {
  Program p{"dead_chain", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    unused = (x * y).exp().sum()
    return x + y
)", {T({3, 4}), T({3, 4})}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "exp"), 1u);
  auto after = checkPass(p, *before, eliminateDeadCode, true);
  EXPECT_EQ(countKind(after->top(), "exp"), 0u);
  EXPECT_EQ(countKind(after->top(), "mul"), 0u);
  EXPECT_EQ(countKind(after->top(), "sum"), 0u);
  EXPECT_EQ(countKind(after->top(), "add"), 1u);
}

TEST(SimplifyDce, RemovesDeadPureBranchesAndKeepsUsedOnes) {
  Program p{"dead_if", R"(
def f(x: torch.Tensor, n: int):
    if n > 1:
        t = x * 2.0
    else:
        t = x - 1.0
    if n > 2:
        u = x + 3.0
    else:
        u = x.exp()
    return u
)", {T({4}), I(3)}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "prim.if"), 2u);
  auto after = checkPass(p, *before, eliminateDeadCode, true);
  EXPECT_EQ(countKind(after->top(), "prim.if"), 1u);
  EXPECT_EQ(countKind(after->top(), "exp"), 1u);
}

TEST(SimplifyDce, KeepsLiveNodes) {
  Program p{"all_live", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    return (x * y).sum(0), x - y
)", {T({2, 5}), T({2, 5})}};
  auto before = functionalGraph(p);
  auto after = checkPass(p, *before, eliminateDeadCode, std::nullopt);
  for (const char* kind : {"mul", "sum", "sub"})
    EXPECT_EQ(countKind(after->top(), kind), countKind(before->top(), kind)) << kind;
}

TEST(SimplifyDce, KeepsRaise) {
  Program p{"raise_kept", R"(
def f(x: torch.Tensor, n: int):
    if n > 100:
        raise ValueError("too big")
    return x + 1.0
)", {T({3}), I(5)}};
  auto before = functionalGraph(p);
  size_t raises = countKind(before->top(), "prim.raise");
  ASSERT_GE(raises, 1u);
  auto after = before->clone();
  eliminateDeadCode(*after);
  verifyGraph(*after);
  EXPECT_EQ(countKind(after->top(), "prim.raise"), raises);
}

TEST(SimplifyDce, DropsUnusedBranchOutputs) {
  Program p{"dead_if_output", R"(
def f(x: torch.Tensor, n: int):
    if n > 1:
        t = x * 2.0
        u = x.exp()
    else:
        t = x - 1.0
        u = x.sin()
    return t
)", {T({4}), I(3)}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "exp"), 1u);
  auto after = checkPass(p, *before, eliminateDeadCode, true);
  EXPECT_EQ(countKind(after->top(), "prim.if"), 1u);
  EXPECT_EQ(countKind(after->top(), "exp"), 0u);
  EXPECT_EQ(countKind(after->top(), "sin"), 0u);
  EXPECT_EQ(countKind(after->top(), "mul"), 1u);
}

TEST(SimplifyDce, DropsLoopCarriedValuesOnlyFeedingThemselves) {
  Program p{"dead_carried", R"(
def f(x: torch.Tensor, n: int):
    acc = x
    unused = x * 0.0
    for i in range(n):
        acc = acc + x
        unused = unused + acc.exp()
    return acc
)", {T({5}), I(4)}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "exp"), 1u);
  auto after = checkPass(p, *before, eliminateDeadCode, true);
  EXPECT_EQ(countKind(after->top(), "prim.loop"), 1u);
  EXPECT_EQ(countKind(after->top(), "exp"), 0u);
  EXPECT_EQ(countKind(after->top(), "add"), 1u);
}

TEST(SimplifyDce, KeepsCarriedValuesOthersNeed) {
  Program p{"live_carried", R"(
def f(x: torch.Tensor, n: int):
    a = x
    b = x
    for i in range(n):
        b = b * 0.5
        a = a + b
    return a
)", {T({5}), I(3)}};
  auto before = functionalGraph(p);
  auto after = checkPass(p, *before, eliminateDeadCode, std::nullopt);
  EXPECT_EQ(countKind(after->top(), "mul"), 1u);
  EXPECT_EQ(countKind(after->top(), "add"), 1u);
}

TEST(SimplifyDce, RemovesPureLoopsWhoseResultsAreUnused) {
  Program p{"dead_loop", R"(
def f(x: torch.Tensor, n: int):
    y = x
    for i in range(n):
        y = y * 2.0
    return x + 1.0
)", {T({3}), I(3)}};
  auto before = functionalGraph(p);
  auto after = checkPass(p, *before, eliminateDeadCode, true);
  EXPECT_EQ(countKind(after->top(), "prim.loop"), 0u);
}

// A loop that never runs goes even when its body has effects; its results
// are the values it starts from (a peeled loop of one trip leaves one).
TEST(SimplifyDce, RemovesLoopsThatNeverRun) {
  Program p{"never_runs", R"(
def f(x: torch.Tensor, n: int):
    y = x
    z = x * 3.0
    for i in range(0):
        y = y * 2.0
        if i > n:
            raise ValueError("never")
        z = z + y
    return y + 1.0, z
)", {T({3}), I(3)}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "prim.loop"), 1u);
  auto after = checkPass(p, *before, eliminateDeadCode, true);
  EXPECT_EQ(countKind(after->top(), "prim.loop"), 0u);
  EXPECT_EQ(countKind(after->top(), "prim.raise"), 0u);
}

}  // namespace
}  // namespace stitch::simplify_test
