// attention-chains: softmax(q @ k^T * c, -1) @ v becomes one fused.attention
// node, in every spelling of the scale and the transpose and inside loops
// (keys of a loop-dependent length); a chain whose intermediates are used
// elsewhere, a softmax over another dim, float64, broadcast batches and a
// scale that is not a constant keep their ops. checkPass interprets both
// graphs on random inputs: the node's interpreter kernel gives the chain's
// values bit for bit (power-of-two scales, so 1 / c is exact).
#include "../common/random.h"
#include "passes/attention_chains.h"
#include "passes/dce.h"
#include "simplify_test_util.h"

namespace stitch::simplify_test {
namespace {

bool rewriteAndClean(Graph& g) {
  bool changed = formAttentionChains(g);
  if (changed) eliminateDeadCode(g);
  return changed;
}

TEST(SimplifyAttentionChains, EverySpellingBecomesOneNode) {
  const int64_t heads = testing::randInt(1, 4), rows = testing::randInt(1, 6), positions = testing::randInt(1, 40),
                dim = testing::randInt(1, 20), dimV = testing::randInt(1, 20);
  for (const char* transpose : {"k.transpose(1, 2)", "k.transpose(-1, -2)", "k.transpose(2, 1)", "k.permute(0, 2, 1)"})
    for (const char* scaled : {"s / 8.0", "s * 0.125", "0.5 * s", "s"}) {
      SCOPED_TRACE(std::string(transpose) + ", " + scaled);
      Program p{"attend", std::string(R"(
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    s = torch.matmul(q, )") + transpose + R"()
    return torch.matmul(torch.softmax()" + scaled + R"(, dim=-1), v)
)", {T({heads, rows, dim}), T({heads, positions, dim}), T({heads, positions, dimV})}};
      auto after = checkPass(p, *functionalGraph(p), rewriteAndClean, true);
      EXPECT_EQ(countKind(after->top(), "fused.attention"), 1u);
      for (const char* gone : {"matmul", "softmax", "immut.transpose", "immut.permute", "mul", "div"})
        EXPECT_EQ(countKind(after->top(), gone), 0u) << gone;
    }
}

TEST(SimplifyAttentionChains, DecodeStepsOverTheKeysWrittenSoFar) {
  Program p{"decode", R"(
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, n: int):
    outs: List[torch.Tensor] = []
    for t in range(n):
        keys = k[:, :, :t + 1]
        scores = (q @ keys.transpose(-1, -2)) * 0.25
        outs.append((torch.softmax(scores, dim=-1) @ v[:, :, :t + 1]).squeeze(2))
    return torch.stack(outs)
)", {T({2, 3, 1, 16}), T({2, 3, 9, 16}), T({2, 3, 9, 16}), I(testing::randInt(1, 9))}};
  auto after = checkPass(p, *functionalGraph(p), rewriteAndClean, true);
  EXPECT_EQ(countKind(after->top(), "fused.attention"), 1u);
  EXPECT_EQ(countKind(after->top(), "softmax"), 0u);
}

TEST(SimplifyAttentionChains, OtherChainsKeepTheirOps) {
  const std::vector<functionalize_test::Arg> f32Args = {T({2, 3, 8}), T({2, 5, 8}), T({2, 5, 4})};
  // The scores or the probabilities are used again; the softmax runs over
  // another dim; the scale is a tensor.
  for (const char* body : {"s = torch.matmul(q, k.transpose(1, 2))\n    return torch.softmax(s, dim=-1) @ v, s",
                           "p = torch.softmax(q @ k.transpose(1, 2), dim=-1)\n    return p @ v, p.sum()",
                           "p = torch.softmax(q @ k.transpose(1, 2), dim=1)\n    return p @ v",
                           "p = torch.softmax(q @ k.transpose(1, 2) * q.sum(), dim=-1)\n    return p @ v"}) {
    SCOPED_TRACE(body);
    Program p{"other", std::string("\ndef f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):\n    ") + body + "\n",
              f32Args};
    checkPass(p, *functionalGraph(p), rewriteAndClean, false);
  }
  // float64, and batches that broadcast.
  const char* plain = R"(
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
)";
  Program f64{"f64", plain, {T({2, 3, 8}, DType::f64), T({2, 5, 8}, DType::f64), T({2, 5, 4}, DType::f64)}};
  checkPass(f64, *functionalGraph(f64), rewriteAndClean, false);
  Program broadcast{"broadcast", plain, {T({1, 3, 8}), T({2, 5, 8}), T({2, 5, 4})}};
  checkPass(broadcast, *functionalGraph(broadcast), rewriteAndClean, false);
}

}  // namespace
}  // namespace stitch::simplify_test
