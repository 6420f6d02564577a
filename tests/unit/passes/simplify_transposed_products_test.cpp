// transposed-products: a product of few rows with a transposed operand
// becomes an einsum over the operand as stored (no transposed copy); larger
// products and other operands keep their matmul.
#include "../common/random.h"
#include "passes/dce.h"
#include "passes/transposed_products.h"
#include "simplify_test_util.h"

namespace stitch::simplify_test {
namespace {

bool rewriteAndClean(Graph& g) {
  bool changed = readTransposedOperandsInPlace(g);
  if (changed) eliminateDeadCode(g);
  return changed;
}

TEST(SimplifyTransposedProducts, DecodeScoresReadKeysAsStored) {
  const int64_t heads = testing::randInt(1, 4), rows = testing::randInt(1, kMaxTransposedProductRows),
                positions = testing::randInt(2, 40), dim = testing::randInt(1, 20);
  for (const char* spelling : {"k.transpose(1, 2)", "k.transpose(-1, -2)", "k.permute(0, 2, 1)"}) {
    SCOPED_TRACE(spelling);
    Program p{"scores", std::string(R"(
def f(q: torch.Tensor, k: torch.Tensor):
    return torch.softmax(torch.matmul(q, )") + spelling + R"() * 0.5, dim=-1)
)", {T({heads, rows, dim}), T({heads, positions, dim})}};
    auto before = functionalGraph(p);
    auto after = checkPass(p, *before, rewriteAndClean, true);
    EXPECT_EQ(countKind(after->top(), "einsum"), 1u);
    EXPECT_EQ(countKind(after->top(), "matmul"), 0u);
    EXPECT_EQ(countKind(after->top(), "immut.transpose") + countKind(after->top(), "immut.permute"), 0u);
  }
  Program mm{"mm", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    return torch.mm(x, w.t()), w
)", {T({rows, dim}), T({positions, dim})}};
  auto after = checkPass(mm, *functionalGraph(mm), rewriteAndClean, true);
  EXPECT_EQ(countKind(after->top(), "einsum"), 1u);
}

TEST(SimplifyTransposedProducts, OthersKeepTheirProduct) {
  // Many rows: the library GEMM on a copied operand is faster.
  Program many{"many", R"(
def f(q: torch.Tensor, k: torch.Tensor):
    return torch.matmul(q, k.transpose(1, 2))
)", {T({2, kMaxTransposedProductRows + 1, 8}), T({2, 5, 8})}};
  checkPass(many, *functionalGraph(many), rewriteAndClean, false);
  // Not the last two dims; no transpose at all.
  Program other{"other", R"(
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    return torch.matmul(q, k.transpose(0, 1)), torch.matmul(q, v)
)", {T({3, 2, 4}), T({4, 3, 5}), T({3, 4, 5})}};
  checkPass(other, *functionalGraph(other), rewriteAndClean, false);
}

}  // namespace
}  // namespace stitch::simplify_test
