// Reduction lowerings against the interpreter: sums and means (f32
// accumulation for f32, i64 for ints), products, extrema, all / any,
// logsumexp, softmax / log_softmax, keepdim and negative dims.
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

// Two ops of a group that reduce the same rows each build the reduction
// over fresh variables (a layer norm's mean, and its variance's): one node
// serves both. Any difference in the combine, the extent, the dtype or
// the body, nested reductions included, keeps them apart.
TEST(LowerReduction, EqualReductionsOverFreshVariablesAreOneNode) {
  ThreadGraph tg({4, 9});
  const int row = tg.alu(AluOp::Mul, DType::i64, {tg.iterVar(0), tg.constInt(9)});
  auto element = [&](int input, int r) {
    return tg.load(input, DType::f32, tg.alu(AluOp::Add, DType::i64, {row, r}));
  };
  auto rowReduce = [&](ReduceOp op, int64_t extent, int input, DType acc = DType::f32) {
    const int r = tg.newReduceVar(extent);
    return tg.reduce(op, acc, tg.cast(element(input, r), acc), {r});
  };
  const int sum = rowReduce(ReduceOp::Sum, 9, 0);
  EXPECT_EQ(rowReduce(ReduceOp::Sum, 9, 0), sum);
  EXPECT_NE(rowReduce(ReduceOp::Max, 9, 0), sum);
  EXPECT_NE(rowReduce(ReduceOp::Sum, 8, 0), sum);
  EXPECT_NE(rowReduce(ReduceOp::Sum, 9, 1), sum);
  EXPECT_NE(rowReduce(ReduceOp::Sum, 9, 0, DType::f64), sum);
  // sum_r (x[r] - sum_s x[s])^2, built twice: the inner sums map too.
  auto centered = [&](int64_t innerExtent) {
    const int r = tg.newReduceVar(9);
    const int d = tg.alu(AluOp::Sub, DType::f32, {element(0, r), rowReduce(ReduceOp::Sum, innerExtent, 0)});
    return tg.reduce(ReduceOp::Sum, DType::f32, tg.alu(AluOp::Mul, DType::f32, {d, d}), {r});
  };
  const int var = centered(9);
  EXPECT_EQ(centered(9), var);
  EXPECT_NE(centered(8), var);
  // A body of the outer variable is not one of the reduction's own.
  const int r = tg.newReduceVar(9);
  EXPECT_NE(tg.reduce(ReduceOp::Sum, DType::f32, element(0, tg.iterVar(1)), {r}), sum);
}

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
