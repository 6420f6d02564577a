// constant-folding: static scalar/list/size computations become constants.
// Tested on the specialized graph before functionalize (which folds first).
#include "passes/constant_folding.h"
#include "passes/dce.h"
#include "simplify_test_util.h"

namespace stitch::simplify_test {
namespace {

TEST(SimplifyFolding, FoldsSizesAndScalarArithmetic) {
  Program p{"sizes", R"(
def f(x: torch.Tensor):
    n = x.size(0) * 2 + x.dim()
    return x.reshape([x.size(1), x.size(0)]) * n
)", {T({3, 4})}};
  auto before = functionalize_test::specialize(p);
  ASSERT_GE(countKind(before->top(), "size"), 1u);
  auto after = checkPass(p, *before, [](Graph& g) {
    bool changed = foldConstants(g);
    eliminateDeadCode(g);
    return changed;
  }, true);
  EXPECT_EQ(countKind(after->top(), "size"), 0u);
  EXPECT_EQ(countKind(after->top(), "dim"), 0u);
  EXPECT_EQ(countKind(after->top(), "scalar.mul"), 0u);
  EXPECT_EQ(countKind(after->top(), "scalar.add"), 0u);
}

TEST(SimplifyFolding, LeavesRuntimeScalarsAlone) {
  Program p{"runtime", R"(
def f(x: torch.Tensor, k: int):
    m = k * 3 + 1
    return x * m
)", {T({5}), I(4)}};
  auto before = functionalize_test::specialize(p);
  size_t arithmetic = countKind(before->top(), "scalar.mul") + countKind(before->top(), "scalar.add");
  ASSERT_GE(arithmetic, 1u);
  auto after = checkPass(p, *before, foldConstants, false);
  EXPECT_EQ(countKind(after->top(), "scalar.mul") + countKind(after->top(), "scalar.add"), arithmetic);
}

TEST(SimplifyFolding, FoldsConstantListOps) {
  Program p{"lists", R"(
def f(x: torch.Tensor):
    shape = [x.size(0)]
    shape.append(x.size(1) * x.size(2))
    return x.reshape(shape).sum(1) + len(shape)
)", {T({2, 3, 4})}};
  auto before = functionalize_test::specialize(p);
  auto after = checkPass(p, *before, [](Graph& g) {
    bool changed = foldConstants(g);
    eliminateDeadCode(g);
    return changed;
  }, true);
  EXPECT_EQ(countKind(after->top(), "list.append"), 0u);
  EXPECT_EQ(countKind(after->top(), "list.len"), 0u);
}

}  // namespace
}  // namespace stitch::simplify_test
