// hoisted-products: a loop's products of the counter's row of a tensor by
// fixed weights (one matrix, or entries of a stack of them) run for every
// row before the loop, one product per stack; the loop reads its row.
// Products whose rows the loop does not all walk, stacks mostly unused and
// rows of several vectors keep their place.
#include "../common/random.h"
#include "passes/canonicalize.h"
#include "passes/constant_folding.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/hoisted_products.h"
#include "simplify_test_util.h"

namespace stitch::simplify_test {
namespace {

// The graph as the pipeline hands it over: trip counts folded.
std::unique_ptr<Graph> simplified(const Program& p) {
  std::unique_ptr<Graph> g = functionalGraph(p);
  canonicalize(*g);
  foldConstants(*g);
  eliminateCommonSubexpressions(*g);
  eliminateDeadCode(*g);
  return g;
}

bool hoistAndClean(Graph& g) {
  bool changed = hoistLoopInvariantProducts(g);
  if (changed) {
    eliminateCommonSubexpressions(g);
    eliminateDeadCode(g);
  }
  return changed;
}

size_t productsInLoops(const Block* b) {
  size_t n = 0;
  for (const Node* node : b->nodes())
    for (const Block* sub : node->blocks()) n += countKind(sub, "matmul");
  return n;
}

const char* kCell = R"(
def f(xs: torch.Tensor, h: torch.Tensor, w_x: torch.Tensor, w_h: torch.Tensor, u: torch.Tensor):
    for t in range(xs.shape[0]):
        a = xs[t] @ w_x[0]
        b = xs[t] @ w_x[2]
        h = torch.tanh(a + b * (h @ w_h) + xs[t] @ u)
    return h
)";

TEST(SimplifyHoistedProducts, RowProductsRunBeforeTheLoop) {
  const int64_t steps = testing::randInt(2, 6), k = testing::randInt(1, 9);
  // x_t a row [1, K] (an RNN's batch of one) or a vector [K].
  for (bool row : {true, false}) {
    SCOPED_TRACE(row ? "rows" : "vectors");
    std::vector<int64_t> xs = row ? std::vector<int64_t>{steps, 1, k} : std::vector<int64_t>{steps, k};
    std::vector<int64_t> h = row ? std::vector<int64_t>{1, k} : std::vector<int64_t>{k};
    Program p{"cell", kCell, {T(xs), T(h), T({3, k, k}), T({k, k}), T({k, k})}};
    auto before = simplified(p);
    ASSERT_EQ(productsInLoops(before->top()), 4u);
    auto after = checkPass(p, *before, hoistAndClean, true);
    // One product for the stack (entries 0 and 2 of 3), one for u; the
    // loop keeps h @ w_h.
    EXPECT_EQ(countKind(after->top(), "matmul"), 3u);
    EXPECT_EQ(productsInLoops(after->top()), 1u);
  }
}

TEST(SimplifyHoistedProducts, OthersKeepTheirPlace) {
  // The loop walks two of five rows: the whole product would be mostly waste.
  Program partial{"partial", R"(
def f(xs: torch.Tensor, w: torch.Tensor):
    h = torch.zeros(1, 4)
    for t in range(2):
        h = h + xs[t] @ w
    return h
)", {T({5, 1, 4}), T({4, 4})}};
  checkPass(partial, *simplified(partial), hoistAndClean, false);
  // One entry of a stack of four.
  Program sparse{"sparse", R"(
def f(xs: torch.Tensor, w: torch.Tensor):
    h = torch.zeros(1, 4)
    for t in range(xs.shape[0]):
        h = h + xs[t] @ w[1]
    return h
)", {T({3, 1, 4}), T({4, 4, 4})}};
  checkPass(sparse, *simplified(sparse), hoistAndClean, false);
  // x_t of several rows; weights that change in the loop.
  Program other{"other", R"(
def f(xs: torch.Tensor, w: torch.Tensor):
    h = torch.zeros(2, 4)
    for t in range(xs.shape[0]):
        h = h + xs[t] @ w
        w = w * 0.5
    return h
)", {T({3, 2, 4}), T({4, 4})}};
  checkPass(other, *simplified(other), hoistAndClean, false);
  // A whole product over kMaxHoistedProductBytes (not run: only the
  // decision is checked).
  const int64_t columns = kMaxHoistedProductBytes / 4 / 1024 + 1;
  Program large{"large", R"(
def f(xs: torch.Tensor, w: torch.Tensor, h: torch.Tensor):
    for t in range(xs.shape[0]):
        h = h + xs[t] @ w
    return h
)", {T({1024, 1, 1}), T({1, columns}), T({1, columns})}};
  checkPass(large, *simplified(large), hoistAndClean, false, 0);
}

}  // namespace
}  // namespace stitch::simplify_test
