// softmax, log_softmax, cumsum and cumprod against naive double references
// on fresh random tensors, along every dim (negative spellings too).
#include <gtest/gtest.h>

#include <cmath>

#include "interp/along_dim_ops.h"
#include "reduction_test_util.h"

namespace stitch {
namespace {

using namespace rtest;

// Visits every line of x along dim: f(flat indices of the line's elements).
template <typename F>
void forEachLine(const Shape& sizes, int64_t dim, F f) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  int64_t n = sizes.empty() ? 1 : sizes[dim];
  int64_t inner = 1;
  for (size_t d = dim + 1; d < sizes.size(); ++d) inner *= sizes[d];
  if (n == 0) return;
  for (int64_t start = 0; start < numel; ++start) {
    if ((start / inner) % n != 0) continue;
    std::vector<int64_t> line;
    for (int64_t k = 0; k < n; ++k) line.push_back(start + k * inner);
    f(line);
  }
}

TEST(AlongDimOps, SoftmaxAndLogSoftmaxMatchReference) {
  for (int iter = 0; iter < 50; ++iter) {
    DType t = randomFloatDType();
    Tensor x = randomTensor(randomShape(randInt(0, 4)), t);
    double scale = coin() ? 1.0 : 500.0;  // large logits: needs the max subtracted
    for (int64_t i = 0; i < x.numel(); ++i) x.setDouble(i, x.getDouble(i) * scale);
    int64_t rank = std::max<int64_t>(x.dim(), 1);
    int64_t dim = randInt(-rank, rank - 1);
    bool isLog = coin();
    Tensor out = softmaxAlongDim(x, dim, std::nullopt, isLog);
    ASSERT_EQ(out.sizes(), x.sizes());
    EXPECT_EQ(out.dtype(), t);
    forEachLine(
        x.sizes(), x.dim() == 0 ? 0 : (dim + rank) % rank, [&](const std::vector<int64_t>& line) {
          double m = -INFINITY, s = 0;
          for (int64_t i : line) m = std::max(m, x.getDouble(i));
          for (int64_t i : line) s += std::exp(x.getDouble(i) - m);
          for (int64_t i : line) {
            double e = isLog ? x.getDouble(i) - m - std::log(s) : std::exp(x.getDouble(i) - m) / s;
            EXPECT_TRUE(close(out.getDouble(i), e, rtolFor(t) * 5, 1e-6))
                << out.getDouble(i) << " vs " << e;
          }
        });
  }
}

TEST(AlongDimOps, SoftmaxDTypeRules) {
  Tensor xi = randomTensor({2, 3}, DType::i64);
  EXPECT_EQ(userErrorOf([&] { softmaxAlongDim(xi, 1, std::nullopt, false); }),
            "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  EXPECT_EQ(userErrorOf([&] { softmaxAlongDim(xi, 0, std::nullopt, true); }),
            "\"softmax_kernel_impl\" not implemented for 'Long'");
  Tensor out = softmaxAlongDim(xi, 0, DType::f64, false);
  EXPECT_EQ(out.dtype(), DType::f64);
  for (int64_t j = 0; j < 3; ++j) EXPECT_NEAR(out.getDouble(j) + out.getDouble(3 + j), 1.0, 1e-12);
  EXPECT_EQ(userErrorOf([&] { softmaxAlongDim(xi, 2, DType::f32, false); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(AlongDimOps, CumsumCumprodMatchReference) {
  for (int iter = 0; iter < 50; ++iter) {
    DType t = randomDType();
    Tensor x = randomTensor(randomShape(randInt(0, 4)), t, -3, 3);
    int64_t rank = std::max<int64_t>(x.dim(), 1);
    int64_t dim = randInt(-rank, rank - 1);
    bool isProd = coin();
    Tensor out = cumulativeAlongDim(x, dim, std::nullopt, isProd);
    ASSERT_EQ(out.sizes(), x.sizes());
    EXPECT_EQ(out.dtype(), isFloating(t) ? t : DType::i64);
    forEachLine(x.sizes(), x.dim() == 0 ? 0 : (dim + rank) % rank,
                [&](const std::vector<int64_t>& line) {
                  double acc = isProd ? 1 : 0;
                  for (int64_t i : line) {
                    acc = isProd ? acc * x.getDouble(i) : acc + x.getDouble(i);
                    EXPECT_TRUE(close(out.getDouble(i), acc, rtolFor(out.dtype()), 1e-6));
                  }
                });
  }
  Tensor x = randomTensor({4, 3}, DType::f32);
  EXPECT_EQ(cumulativeAlongDim(x, 0, DType::f64, false).dtype(), DType::f64);
}

}  // namespace
}  // namespace stitch
