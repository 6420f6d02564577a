// canonicalize: Access of an Assign at the same place, same-type assign,
// view and dtype conversion give back the value at hand.
#include "passes/canonicalize.h"
#include "passes/dce.h"
#include "simplify_test_util.h"

namespace stitch::simplify_test {
namespace {

bool canonicalizeThenDce(Graph& g) {
  bool changed = canonicalize(g);
  eliminateDeadCode(g);
  return changed;
}

TEST(SimplifyCanonicalize, SelectOfSelectRevIsTheWrittenValue) {
  Program p{"select_pair", R"(
def f(b: torch.Tensor, n: int):
    b = b.clone()
    for i in range(n):
        b[i] = b[i] + 1
        b[i] = b[i] * 2.0
    return b
)", {T({6, 3}), I(4)}};
  auto before = functionalGraph(p);
  size_t selects = countKind(before->top(), "immut.select");
  auto after = checkPass(p, *before, canonicalizeThenDce, true);
  EXPECT_LT(countKind(after->top(), "immut.select"), selects);
  EXPECT_EQ(countKind(after->top(), "immut.select_rev"), countKind(before->top(), "immut.select_rev"));
}

TEST(SimplifyCanonicalize, SliceOfSliceRevIsTheWrittenValue) {
  Program p{"slice_pair", R"(
def f(x: torch.Tensor):
    x = x.clone()
    x[1:3] = x[1:3] * 2.0
    y = x[1:3]
    return y + 1.0, x
)", {T({5, 2})}};
  auto before = functionalGraph(p);
  size_t slices = countKind(before->top(), "immut.slice");
  ASSERT_GE(slices, 2u);
  auto after = checkPass(p, *before, canonicalizeThenDce, true);
  EXPECT_LT(countKind(after->top(), "immut.slice"), slices);
}

TEST(SimplifyCanonicalize, SameTypeConversionsDisappear) {
  Program p{"conversions", R"(
def f(x: torch.Tensor):
    y = x.to(torch.float32)
    z = y.view([4, 3])
    return z * 2.0
)", {T({4, 3})}};
  auto before = functionalGraph(p);
  auto after = checkPass(p, *before, canonicalizeThenDce, true);
  EXPECT_EQ(countKind(after->top(), "to"), 0u);
  EXPECT_EQ(countKind(after->top(), "immut.view"), 0u);
}

TEST(SimplifyCanonicalize, KeepsRealConversions) {
  Program p{"real_conversions", R"(
def f(x: torch.Tensor):
    y = x.to(torch.float64)
    z = x.view([2, 6])
    return y.sum(), z * 2.0
)", {T({4, 3})}};
  auto before = functionalGraph(p);
  auto after = checkPass(p, *before, canonicalize, false);
  EXPECT_EQ(countKind(after->top(), "to"), 1u);
  EXPECT_EQ(countKind(after->top(), "immut.view"), 1u);
}

}  // namespace
}  // namespace stitch::simplify_test
