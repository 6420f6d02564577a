// Reductions against naive double references on fresh random tensors of
// random shapes (size-1 and empty dims, non-contiguous views), random dims
// (negative spellings), keepdim, dtypes, ties and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "interp/reduce_ops.h"
#include "reduction_test_util.h"

namespace stitch {
namespace {

using namespace rtest;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Checks `out` against one expected value per group.
void expectGroups(const Tensor& out, const Shape& expectedShape,
                  const std::vector<double>& expected, double rtol, double atol = 1e-6) {
  ASSERT_EQ(out.sizes(), expectedShape);
  ASSERT_EQ(out.numel(), (int64_t)expected.size());
  for (int64_t o = 0; o < out.numel(); ++o)
    EXPECT_TRUE(close(out.getDouble(o), expected[o], rtol, atol))
        << "output " << o << ": got " << out.getDouble(o) << ", expected " << expected[o];
}

template <typename F>
std::vector<double> perGroup(const Groups& g, F f) {
  std::vector<double> out;
  for (const auto& v : g.values) out.push_back(f(v));
  return out;
}

double sumOf(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

TEST(ReductionOps, SumMatchesReferenceOnRandomShapesAndDims) {
  for (int iter = 0; iter < 60; ++iter) {
    DType t = randomDType();
    Tensor x = randomTensor(randomShape(randInt(0, 4)), t);
    std::vector<int64_t> dims = randomDims(x.dim());
    bool keepdim = coin();
    Tensor out = reduceSum(x, dims, keepdim, std::nullopt);
    EXPECT_EQ(out.dtype(), isFloating(t) ? t : DType::i64);
    Groups g = groupForReduction(x, dims);
    Shape shape = keepdim ? keepdimShape(x.sizes(), dims) : g.outShape;
    expectGroups(out, shape, perGroup(g, sumOf), rtolFor(out.dtype()));
  }
}

TEST(ReductionOps, SumWithDTypeConvertsFirst) {
  Tensor x = randomTensor({3, 4}, DType::f32);
  Tensor out = reduceSum(x, {1}, false, DType::i64);
  EXPECT_EQ(out.dtype(), DType::i64);
  Groups g = groupForReduction(x, {1});
  expectGroups(out, {3},
               perGroup(g,
                        [](const std::vector<double>& v) {
                          double s = 0;
                          for (double e : v) s += std::trunc(e);
                          return s;
                        }),
               0, 0);
}

TEST(ReductionOps, MeanMatchesReferenceAndEmptyIsNaN) {
  for (int iter = 0; iter < 40; ++iter) {
    DType t = randomFloatDType();
    Tensor x = randomTensor(randomShape(randInt(0, 4), 0.15), t);
    std::vector<int64_t> dims = randomDims(x.dim());
    bool keepdim = coin();
    Tensor out = reduceMean(x, dims, keepdim, std::nullopt);
    Groups g = groupForReduction(x, dims);
    Shape shape = keepdim ? keepdimShape(x.sizes(), dims) : g.outShape;
    expectGroups(out, shape,
                 perGroup(g,
                          [](const std::vector<double>& v) {
                            return v.empty() ? kNaN : sumOf(v) / (double)v.size();
                          }),
                 rtolFor(t));
  }
}

TEST(ReductionOps, MeanOfIntegersIsAnError) {
  Tensor x = randomTensor({2, 3}, DType::i64);
  EXPECT_EQ(userErrorOf([&] { reduceMean(x, {}, false, std::nullopt); }),
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            "complex dtype. Got: Long");
  Tensor m = reduceMean(x, {0}, false, DType::f64);
  Groups g = groupForReduction(x, {0});
  expectGroups(
      m, {3}, perGroup(g, [](const std::vector<double>& v) { return sumOf(v) / (double)v.size(); }),
      1e-12);
}

TEST(ReductionOps, ProdMatchesReference) {
  for (int iter = 0; iter < 40; ++iter) {
    DType t = randomDType();
    Tensor x = randomTensor(randomShape(randInt(0, 3)), t, -3, 3);
    std::optional<int64_t> dim;
    if (x.dim() > 0 && coin(0.7)) dim = randInt(-x.dim(), x.dim() - 1);
    bool keepdim = coin();
    Tensor out = reduceProd(x, dim, keepdim, std::nullopt);
    EXPECT_EQ(out.dtype(), isFloating(t) ? t : DType::i64);
    std::vector<int64_t> dims = dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{};
    Groups g = groupForReduction(x, dims);
    Shape shape = keepdim ? keepdimShape(x.sizes(), dims) : g.outShape;
    expectGroups(out, shape,
                 perGroup(g,
                          [](const std::vector<double>& v) {
                            double p = 1;
                            for (double e : v) p *= e;
                            return p;
                          }),
                 rtolFor(out.dtype()), 1e-7);
  }
}

TEST(ReductionOps, AmaxAminMatchReferenceAndRejectEmptyReductions) {
  for (int iter = 0; iter < 50; ++iter) {
    DType t = randomDType();
    Tensor x = randomTensor(randomShape(randInt(0, 4), 0.0), t);
    std::vector<int64_t> dims = randomDims(x.dim());
    bool keepdim = coin();
    bool isMax = coin();
    Tensor out = reduceExtremum(x, isMax ? Extremum::Max : Extremum::Min, dims, keepdim);
    EXPECT_EQ(out.dtype(), t);
    Groups g = groupForReduction(x, dims);
    Shape shape = keepdim ? keepdimShape(x.sizes(), dims) : g.outShape;
    expectGroups(out, shape,
                 perGroup(g,
                          [&](const std::vector<double>& v) {
                            return isMax ? *std::max_element(v.begin(), v.end())
                                         : *std::min_element(v.begin(), v.end());
                          }),
                 0, 0);
  }
  Tensor e = randomTensor({0, 3}, DType::f32);
  EXPECT_EQ(reduceExtremum(e, Extremum::Max, {1}, false).sizes(), Shape({0}));
  EXPECT_EQ(userErrorOf([&] { reduceExtremum(e, Extremum::Max, {0}, false); }),
            "amax(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_NE(userErrorOf([&] {
              reduceExtremum(e, Extremum::Min, {}, false);
            }).find("amin(): Expected reduction dim to be specified for input.numel() == 0"),
            std::string::npos);
}

// Index of the first max (or min) within a group; NaN wins.
int64_t firstExtremeIndex(const std::vector<double>& v, bool isMax) {
  int64_t best = 0;
  for (int64_t i = 1; i < (int64_t)v.size(); ++i) {
    if (std::isnan(v[best])) break;
    bool better = std::isnan(v[i]) || (isMax ? v[i] > v[best] : v[i] < v[best]);
    if (better) best = i;
  }
  return best;
}

TEST(ReductionOps, MaxMinAlongDimGiveValuesAndFirstIndexOnTies) {
  for (int iter = 0; iter < 50; ++iter) {
    DType t = randomDType();
    // Few distinct values, so ties are common.
    Tensor x = randomTensor(randomShape(randInt(1, 4), 0.0), t, 0, 2);
    if (isFloating(t))
      for (int64_t i = 0; i < x.numel(); ++i) x.setDouble(i, (double)randInt(0, 2));
    int64_t dim = randInt(-x.dim(), x.dim() - 1);
    bool keepdim = coin(), isMax = coin();
    auto [values, indices] =
        reduceExtremumDim(x, isMax ? Extremum::Max : Extremum::Min, dim, keepdim);
    EXPECT_EQ(values.dtype(), t);
    EXPECT_EQ(indices.dtype(), DType::i64);
    Groups g = groupForReduction(x, {dim});
    Shape shape = keepdim ? keepdimShape(x.sizes(), {dim}) : g.outShape;
    std::vector<double> idx = perGroup(
        g, [&](const std::vector<double>& v) { return (double)firstExtremeIndex(v, isMax); });
    expectGroups(indices, shape, idx, 0, 0);
    std::vector<double> val;
    for (size_t o = 0; o < g.values.size(); ++o) val.push_back(g.values[o][(size_t)idx[o]]);
    expectGroups(values, shape, val, 0, 0);
  }
}

TEST(ReductionOps, MaxOfAllIsZeroDimAndPropagatesNaN) {
  Tensor x = randomTensor({4, 5}, DType::f32);
  Groups g = groupForReduction(x, {});
  double expected = *std::max_element(g.values[0].begin(), g.values[0].end());
  expectGroups(reduceExtremumAll(x, Extremum::Max), {}, {expected}, 0, 0);
  int64_t nanAt = randInt(0, 19);
  x.setDouble(nanAt, kNaN);
  EXPECT_TRUE(std::isnan(reduceExtremumAll(x, Extremum::Min).item()));
  EXPECT_EQ(argExtremum(x, Extremum::Max, std::nullopt, false).getInt(0), nanAt);
  Tensor e = randomTensor({2, 0}, DType::f64);
  EXPECT_NE(userErrorOf([&] {
              reduceExtremumAll(e, Extremum::Max);
            }).find("max(): Expected reduction dim to be specified"),
            std::string::npos);
}

TEST(ReductionOps, ArgmaxArgminMatchReference) {
  for (int iter = 0; iter < 50; ++iter) {
    DType t = randomDType(false);
    Tensor x = randomTensor(randomShape(randInt(0, 4), 0.0), t, 0, 3);
    std::optional<int64_t> dim;
    if (x.dim() > 0 && coin(0.7)) dim = randInt(-x.dim(), x.dim() - 1);
    bool keepdim = coin(), isMax = coin();
    Tensor out = argExtremum(x, isMax ? Extremum::Max : Extremum::Min, dim, keepdim);
    EXPECT_EQ(out.dtype(), DType::i64);
    std::vector<int64_t> dims = dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{};
    Groups g = groupForReduction(x, dims);
    Shape shape = keepdim ? keepdimShape(x.sizes(), dims) : g.outShape;
    expectGroups(
        out, shape,
        perGroup(g,
                 [&](const std::vector<double>& v) { return (double)firstExtremeIndex(v, isMax); }),
        0, 0);
  }
  Tensor b = randomTensor({3}, DType::b8);
  EXPECT_EQ(userErrorOf([&] { argExtremum(b, Extremum::Max, std::nullopt, false); }),
            "\"argmax_cpu\" not implemented for 'Bool'");
}

double varianceOf(const std::vector<double>& v, bool unbiased) {
  double n = (double)v.size();
  if (n - (unbiased ? 1 : 0) <= 0) return kNaN;
  double mean = sumOf(v) / n, ss = 0;
  for (double e : v) ss += (e - mean) * (e - mean);
  return ss / (n - (unbiased ? 1 : 0));
}

TEST(ReductionOps, VarStdMatchReference) {
  for (int iter = 0; iter < 50; ++iter) {
    DType t = randomFloatDType();
    Tensor x = randomTensor(randomShape(randInt(0, 4)), t);
    std::optional<std::vector<int64_t>> dims;
    if (coin(0.7)) dims = randomDims(x.dim());
    bool unbiased = coin(), keepdim = coin(), isStd = coin();
    Tensor out = reduceVariance(x, dims, unbiased, keepdim, isStd);
    std::vector<int64_t> d = dims.value_or(std::vector<int64_t>{});
    Groups g = groupForReduction(x, d);
    Shape shape = keepdim ? keepdimShape(x.sizes(), d) : g.outShape;
    expectGroups(out, shape,
                 perGroup(g,
                          [&](const std::vector<double>& v) {
                            double var = varianceOf(v, unbiased);
                            return isStd ? std::sqrt(var) : var;
                          }),
                 rtolFor(t) * 5, 1e-6);
  }
  EXPECT_EQ(userErrorOf([] {
              reduceVariance(randomTensor({2}, DType::i32), std::nullopt, true, false, false);
            }),
            "std and var only support floating point and complex dtypes");
}

TEST(ReductionOps, LogSumExpIsStableAndMatchesReference) {
  for (int iter = 0; iter < 40; ++iter) {
    DType t = randomDType(false);
    Tensor x = randomTensor(randomShape(randInt(0, 4)), t);
    double scale = isFloating(t) ? (coin() ? 1.0 : 200.0) : 1.0;
    if (isFloating(t))
      for (int64_t i = 0; i < x.numel(); ++i) x.setDouble(i, x.getDouble(i) * scale);
    std::vector<int64_t> dims = randomDims(x.dim());
    bool keepdim = coin();
    Tensor out = reduceLogSumExp(x, dims, keepdim);
    EXPECT_EQ(out.dtype(), isFloating(t) ? t : DType::f32);
    Groups g = groupForReduction(x, dims);
    Shape shape = keepdim ? keepdimShape(x.sizes(), dims) : g.outShape;
    expectGroups(out, shape,
                 perGroup(g,
                          [](const std::vector<double>& v) {
                            if (v.empty()) return -kInf;
                            double m = *std::max_element(v.begin(), v.end()), s = 0;
                            for (double e : v) s += std::exp(e - m);
                            return m + std::log(s);
                          }),
                 rtolFor(out.dtype()), 1e-5);
  }
}

TEST(ReductionOps, AllAnyGiveBool) {
  for (int iter = 0; iter < 40; ++iter) {
    DType t = randomDType();
    Tensor x = randomTensor(randomShape(randInt(0, 3)), t, 0, 2);
    if (isFloating(t))
      for (int64_t i = 0; i < x.numel(); ++i) x.setDouble(i, coin(0.8) ? 0.5 : 0.0);
    std::optional<int64_t> dim;
    if (x.dim() > 0 && coin(0.7)) dim = randInt(-x.dim(), x.dim() - 1);
    bool keepdim = coin(), isAll = coin();
    Tensor out = isAll ? reduceAll(x, dim, keepdim) : reduceAny(x, dim, keepdim);
    EXPECT_EQ(out.dtype(), DType::b8);
    std::vector<int64_t> dims = dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{};
    Groups g = groupForReduction(x, dims);
    Shape shape = keepdim ? keepdimShape(x.sizes(), dims) : g.outShape;
    expectGroups(out, shape,
                 perGroup(g,
                          [&](const std::vector<double>& v) {
                            bool r = isAll;
                            for (double e : v) r = isAll ? (r && e != 0) : (r || e != 0);
                            return r ? 1.0 : 0.0;
                          }),
                 0, 0);
  }
}

TEST(ReductionOps, NormForSeveralP) {
  for (double p : {2.0, 1.0, kInf, -kInf, 0.0, 3.0}) {
    DType t = randomFloatDType();
    Tensor x = randomTensor(randomShape(randInt(1, 3), 0.0), t);
    Tensor out = reduceNorm(x, p);
    Groups g = groupForReduction(x, {});
    const auto& v = g.values[0];
    double expected = 0;
    if (p == kInf || p == -kInf) {
      expected = std::fabs(v[0]);
      for (double e : v)
        expected = p > 0 ? std::max(expected, std::fabs(e)) : std::min(expected, std::fabs(e));
    } else if (p == 0) {
      for (double e : v) expected += e != 0;
    } else {
      for (double e : v) expected += std::pow(std::fabs(e), p);
      expected = std::pow(expected, 1 / p);
    }
    expectGroups(out, {}, {expected}, rtolFor(t) * 5, 1e-6);
  }
  EXPECT_EQ(userErrorOf([] { reduceNorm(randomTensor({2}, DType::i64), 2); }),
            "norm(): input dtype should be either floating point or complex. Got Long instead.");
}

TEST(ReductionOps, DimErrors) {
  Tensor x = randomTensor({2, 3}, DType::f32);
  EXPECT_EQ(userErrorOf([&] {
              reduceSum(x, {1, -1}, false, std::nullopt);
            }),
            "dim 1 appears multiple times in the list of dims");
  EXPECT_EQ(userErrorOf([&] { reduceSum(x, {2}, false, std::nullopt); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  Tensor s = randomTensor({}, DType::f32);
  EXPECT_EQ(reduceSum(s, {-1}, true, std::nullopt).sizes(), Shape{});
  EXPECT_EQ(userErrorOf([&] { reduceExtremumDim(s, Extremum::Max, 1, false); }),
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

TEST(ReductionOps, LargeReductionsInBothWalkOrders) {
  // Reducing the contiguous dim and the strided dim of a big matrix (and of
  // its transpose) exercises both walks of the reduction loop.
  Tensor x = randomTensor({257, 300}, DType::f32);
  for (int64_t dim : {0, 1}) {
    for (bool transposed : {false, true}) {
      Tensor v = transposed ? x.asStrided({300, 257}, {1, 300}, x.offset()) : x;
      Groups g = groupForReduction(v, {dim});
      expectGroups(reduceSum(v, {dim}, false, std::nullopt), g.outShape, perGroup(g, sumOf), 2e-5);
      auto [values, indices] = reduceExtremumDim(v, Extremum::Max, dim, false);
      for (size_t o = 0; o < g.values.size(); ++o)
        EXPECT_EQ(indices.getInt((int64_t)o), firstExtremeIndex(g.values[o], true));
    }
  }
}

TEST(ReductionOps, MaximumMinimumBroadcastAndPromote) {
  for (int iter = 0; iter < 30; ++iter) {
    DType ta = randomDType(), tb = randomDType();
    Shape sa = randomShape(randInt(0, 3), 0.0);
    Shape sb = sa;
    for (auto& d : sb)
      if (coin(0.3)) d = 1;
    if (coin(0.3) && !sb.empty()) sb.erase(sb.begin());
    if (coin()) std::swap(sa, sb);
    Tensor a = randomTensor(sa, ta), b = randomTensor(sb, tb);
    bool isMax = coin();
    Tensor out = binaryExtremum(a, b, isMax ? Extremum::Max : Extremum::Min);
    Shape shape = sa.size() >= sb.size() ? sa : sb;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t da = i + sa.size() >= shape.size() ? sa[i + sa.size() - shape.size()] : 1;
      int64_t db = i + sb.size() >= shape.size() ? sb[i + sb.size() - shape.size()] : 1;
      shape[i] = std::max(da, db);
    }
    ASSERT_EQ(out.sizes(), shape);
    for (int64_t i = 0; i < out.numel(); ++i) {
      std::vector<int64_t> idx = unravel(shape, i);
      auto valueAt = [&](const Tensor& t) {
        int64_t lin = 0;
        size_t lead = shape.size() - t.sizes().size();
        for (size_t d = 0; d < t.sizes().size(); ++d)
          lin = lin * t.size((int64_t)d) + (t.size((int64_t)d) == 1 ? 0 : idx[lead + d]);
        return t.getDouble(lin);
      };
      double u = valueAt(a), w = valueAt(b);
      double expected = isMax ? std::max(u, w) : std::min(u, w);
      EXPECT_TRUE(close(out.getDouble(i), expected, rtolFor(out.dtype()), 0)) << i;
    }
  }
}

}  // namespace
}  // namespace stitch
