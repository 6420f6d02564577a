// canonicalize's list folding: elements taken out of constructed lists,
// appends to a fresh constructed list merged into it; with constant folding,
// the length of a constructed list is a constant.
#include "passes/canonicalize.h"
#include "passes/constant_folding.h"
#include "passes/dce.h"
#include "simplify_test_util.h"

namespace stitch::simplify_test {
namespace {

bool canonicalizeAndClean(Graph& g) {
  bool changed = canonicalize(g);
  eliminateDeadCode(g);
  return changed;
}

TEST(SimplifyListFolding, ConstantIndexTakesTheElement) {
  Program p{"get", R"(
def f(a: torch.Tensor, b: torch.Tensor):
    xs = [a, b, a * 2]
    return xs[1] + xs[-1] + xs[0]
)", {T({3}), T({3})}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "list.get"), 3u);
  auto after = checkPass(p, *before, canonicalizeAndClean, true);
  EXPECT_EQ(countKind(after->top(), "list.get"), 0u);
  EXPECT_EQ(countKind(after->top(), "prim.list_construct"), 0u);
}

TEST(SimplifyListFolding, OutOfRangeOrRunTimeIndexStays) {
  Program p{"dynamic", R"(
def f(a: torch.Tensor, i: int):
    xs = [a, a * 2]
    return xs[i]
)", {T({3}), I(1)}};
  auto before = functionalGraph(p);
  auto after = checkPass(p, *before, canonicalizeAndClean, false);
  EXPECT_EQ(countKind(after->top(), "list.get"), 1u);
}

TEST(SimplifyListFolding, AppendsExtendTheConstructedList) {
  Program p{"appends", R"(
def f(a: torch.Tensor, b: torch.Tensor):
    xs: List[torch.Tensor] = []
    xs.append(a)
    xs.append(b * 2)
    xs.append(a + b)
    return torch.cat(xs, 0), len(xs)
)", {T({2, 3}), T({2, 3})}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "list.append"), 3u);
  auto after = checkPass(p, *before, [](Graph& g) {
    bool changed = canonicalizeAndClean(g);
    foldConstants(g);
    eliminateDeadCode(g);
    return changed;
  }, true);
  EXPECT_EQ(countKind(after->top(), "list.append"), 0u);
  EXPECT_EQ(countKind(after->top(), "prim.list_construct"), 1u);
  EXPECT_EQ(countKind(after->top(), "list.len"), 0u);
}

TEST(SimplifyListFolding, AppendToAListUsedElsewhereStays) {
  // Merging would copy the construct for the other use: left alone.
  Program p{"shared", R"(
def f(a: torch.Tensor, i: int):
    ys = [a, a + 1]
    first = ys[i]
    ys.append(a * 3)
    return torch.cat(ys, 0).sum() * first
)", {T({3}), I(1)}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "list.append"), 1u);
  auto after = checkPass(p, *before, canonicalizeAndClean, false);
  EXPECT_EQ(countKind(after->top(), "list.append"), 1u);
}

}  // namespace
}  // namespace stitch::simplify_test
