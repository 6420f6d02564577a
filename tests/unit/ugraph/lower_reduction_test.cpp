// Reduction lowerings against the interpreter: sums and means (f32
// accumulation for f32, i64 for ints), products, extrema, all / any,
// logsumexp, softmax / log_softmax, keepdim and negative dims.
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

TEST(LowerReduction, SumMeanOverDims) {
  Program p{"sums", R"(
def f(x: torch.Tensor):
    return x.sum(), x.sum(1), x.sum([0, 2], keepdim=True), x.mean(-1), x.mean([0, 1]), torch.sum(x, dim=1, dtype=torch.float64)
)", {T({5, 6, 7})}};
  Checked c = checkLowering(p, 2, 1e-6);
  EXPECT_TRUE(allLowered(c, "sum"));
  EXPECT_TRUE(allLowered(c, "mean"));
}

TEST(LowerReduction, IntegerAndBoolSums) {
  Program p{"intsums", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    return x.sum(0), y.sum(), (x > 4).sum(1), x.prod(1), y.float().mean(0), x.sum(1, dtype=torch.float32)
)", {T({4, 9}, DType::i64), T({3, 4}, DType::i32)}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "sum"));
  EXPECT_TRUE(allLowered(c, "prod"));
}

TEST(LowerReduction, ExtremaAllAny) {
  Program p{"extrema", R"(
def f(x: torch.Tensor, k: torch.Tensor):
    return x.amax(1), x.amin([0, 2], keepdim=True), torch.max(x), torch.min(x), (x > 0).all(1), (x > 0.9).any(), k.amax(0), torch.all(k)
)", {T({3, 8, 5}), T({6, 2}, DType::i64)}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "amax"));
  EXPECT_TRUE(allLowered(c, "all"));
  EXPECT_TRUE(allLowered(c, "any"));
}

TEST(LowerReduction, SoftmaxLogSoftmaxLogSumExp) {
  Program p{"softmax", R"(
def f(x: torch.Tensor):
    return torch.softmax(x, -1), torch.softmax(x, 0), torch.log_softmax(x, 1), torch.logsumexp(x, [1]), torch.logsumexp(x * 30.0, [0, 1], keepdim=True)
)", {T({6, 10})}};
  Checked c = checkLowering(p, 2, 1e-5);
  EXPECT_TRUE(allLowered(c, "softmax"));
  EXPECT_TRUE(allLowered(c, "log_softmax"));
  EXPECT_TRUE(allLowered(c, "logsumexp"));
}

TEST(LowerReduction, SoftmaxOfDoubles) {
  Program p{"softmax64", R"(
def f(x: torch.Tensor):
    return torch.softmax(x, 1), torch.log_softmax(x, 0), x.sum(0), x.prod(0)
)", {T({4, 3}, DType::f64)}};
  checkLowering(p, 2, 1e-12);
}

TEST(LowerReduction, EmptyReductionsGiveIdentities) {
  Program p{"empty", R"(
def f(x: torch.Tensor):
    return x.sum(1), x.prod(1), (x > 0).all(1), (x > 0).any(1), x.mean(1)
)", {T({3, 0})}};
  Checked c = checkLowering(p);
  EXPECT_EQ(countLowered(c, "sum", true), 1);
  EXPECT_EQ(countLowered(c, "all", true), 1);
}

}  // namespace
}  // namespace stitch::ugraph_test
