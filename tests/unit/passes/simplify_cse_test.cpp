// cse: identical pure nodes merge when the earlier one dominates.
#include "passes/cse.h"
#include "passes/dce.h"
#include "simplify_test_util.h"

namespace stitch::simplify_test {
namespace {

TEST(SimplifyCse, MergesIdenticalNodes) {
  Program p{"dup", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    a = x * y
    b = x * y
    return a.exp() + b.exp()
)", {T({3, 4}), T({3, 4})}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "mul"), 2u);
  auto after = checkPass(p, *before, eliminateCommonSubexpressions, true);
  EXPECT_EQ(countKind(after->top(), "mul"), 1u);
  EXPECT_EQ(countKind(after->top(), "exp"), 1u);
}

TEST(SimplifyCse, DifferentInputsOrConstantsStayApart) {
  Program p{"apart", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    return x * y, y * x, x.sum(0), x.sum(1)
)", {T({3, 3}), T({3, 3})}};
  auto before = functionalGraph(p);
  auto after = checkPass(p, *before, eliminateCommonSubexpressions, std::nullopt);
  EXPECT_EQ(countKind(after->top(), "mul"), 2u);
  EXPECT_EQ(countKind(after->top(), "sum"), 2u);
}

TEST(SimplifyCse, UsesOuterValueInsideBranchButNotSiblingBranch) {
  Program p{"branches", R"(
def f(x: torch.Tensor, n: int):
    a = x.exp()
    if n > 0:
        b = x.exp() + x.tanh()
    else:
        b = x.tanh() - 1.0
    return a + b
)", {T({5}), I(1)}};
  auto before = functionalGraph(p);
  ASSERT_EQ(countKind(before->top(), "exp"), 2u);
  ASSERT_EQ(countKind(before->top(), "tanh"), 2u);
  auto after = checkPass(p, *before, eliminateCommonSubexpressions, true);
  EXPECT_EQ(countKind(after->top(), "exp"), 1u);  // the branch's exp is the outer one
  EXPECT_EQ(countKind(after->top(), "tanh"), 2u);  // one per branch: neither dominates
}

}  // namespace
}  // namespace stitch::simplify_test
