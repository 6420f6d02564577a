// Selection ops: orders and positions against brute force on fresh random
// inputs (ties, NaN), writes through strided views, accumulation of
// duplicate indices, and PyTorch's errors.
#include <algorithm>
#include <cmath>

#include "interp/selection_ops.h"
#include "interp/view_ops.h"
#include "view_test_util.h"

namespace stitch {
namespace {

using namespace stitch::vtest;

constexpr int kTrials = 20;

// A tensor with many ties (small integers) and, for floats, some NaNs.
Tensor tiedTensor(const Shape& shape, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloating(dtype) && randInt(0, 9) == 0) t.setDouble(i, NAN);
    else t.setDouble(i, (double)randInt(0, 3));
  }
  return t;
}

// PyTorch's order for sort: NaN above every number.
bool ordered(double a, double b, bool descending) {
  if (std::isnan(a) || std::isnan(b)) return descending ? !std::isnan(b) || std::isnan(a) : std::isnan(b);
  return descending ? a >= b : a <= b;
}

TEST(SelectionOps, StableSortKeepsTiesInIndexOrderAndNanLast) {
  for (int trial = 0; trial < kTrials; ++trial) {
    int64_t rank = randInt(1, 3);
    Shape shape = randomShape(rank, 30);
    int64_t dim = randInt(0, rank - 1);
    bool descending = randInt(0, 1) == 1;
    Tensor x = tiedTensor(shape, randInt(0, 1) ? DType::f32 : DType::i64);
    auto [values, indices] = selection::sort(x, dim, descending, /*stable=*/true);
    for (int64_t i = 0; i < values.numel(); ++i) {
      std::vector<int64_t> at = unravel(shape, i);
      std::vector<int64_t> from = at;
      from[dim] = indices.getInt(i);
      double v = values.getDouble(i), source = x.getDouble(linearIndex(shape, from));
      ASSERT_TRUE(v == source || (std::isnan(v) && std::isnan(source))) << "value at " << i;
      if (at[dim] == 0) continue;
      std::vector<int64_t> prev = at;
      --prev[dim];
      int64_t p = linearIndex(shape, prev);
      double pv = values.getDouble(p);
      ASSERT_TRUE(ordered(pv, v, descending)) << pv << " before " << v;
      bool tie = pv == v || (std::isnan(pv) && std::isnan(v));
      if (tie) ASSERT_LT(indices.getInt(p), indices.getInt(i)) << "ties keep their order";
    }
  }
}

TEST(SelectionOps, TopkIsTheSortedPrefixForEveryPath) {
  for (int trial = 0; trial < kTrials; ++trial) {
    // Lines long enough for both of PyTorch's algorithms (k * 64 <= n or not).
    int64_t n = randInt(1, 300), k = randInt(0, std::min<int64_t>(n, 8));
    Tensor x = randomTensor({3, n});
    bool largest = randInt(0, 1) == 1;
    auto [values, indices] = selection::topk(x, k, 1, largest, /*sorted=*/true);
    auto [sortedValues, sortedIndices] = selection::sort(x, 1, largest, true);
    ASSERT_EQ(values.sizes(), (Shape{3, k}));
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t j = 0; j < k; ++j) {
        ASSERT_EQ(values.getDouble(r * k + j), sortedValues.getDouble(r * n + j));
        ASSERT_EQ(x.getDouble(r * n + indices.getInt(r * k + j)), values.getDouble(r * k + j));
      }
  }
  expectError<UserError>([] { selection::topk(randomTensor({2, 3}), 4, 1, true, true); },
                         "selected index k out of range");
}

TEST(SelectionOps, MaskIndexReadsAndWritesThroughAStridedView) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape shape = randomShape(2, 6);
    Tensor base = randomTensor({shape[1], shape[0]});
    Tensor x = views::transpose(base, 0, 1);  // strided
    Tensor mask = randomTensor(shape, DType::b8);
    Tensor got = selection::indexGet(x, 0, mask);
    std::vector<double> want;
    for (int64_t i = 0; i < x.numel(); ++i)
      if (mask.getInt(i)) want.push_back(at(x, unravel(shape, i)));
    ASSERT_EQ(got.sizes(), (Shape{(int64_t)want.size()}));
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got.getDouble((int64_t)i), want[i]);
    EXPECT_EQ(selection::maskedSelect(x, mask).sizes(), got.sizes());
    Tensor put = selection::indexPut(x, 0, mask, scalarTensor(7.0, DType::f32), false);
    for (int64_t i = 0; i < x.numel(); ++i) {
      std::vector<int64_t> idx = unravel(shape, i);
      ASSERT_EQ(at(put, idx), mask.getInt(i) ? 7.0 : at(x, idx));
    }
  }
  expectError<UserError>([] { selection::indexGet(randomTensor({2, 3}), 0, randomTensor({3}, DType::b8)); },
                         "The shape of the mask [3] at index 0 does not match");
}

TEST(SelectionOps, IndexPutAccumulatesDuplicatesAndChecksBounds) {
  Tensor x = randomTensor({4, 3});
  Tensor index = Tensor::empty({5}, DType::i64);
  int64_t rows[] = {1, 3, 1, -1, 0};  // -1 is row 3
  for (int64_t i = 0; i < 5; ++i) index.setInt(i, rows[i]);
  Tensor v = randomTensor({5, 3});
  Tensor out = selection::indexPut(x, 0, index, v, /*accumulate=*/true);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 3; ++c) {
      double want = x.getDouble(r * 3 + c);
      for (int64_t i = 0; i < 5; ++i)
        if ((rows[i] + 4) % 4 == r) want += (double)(float)v.getDouble(i * 3 + c);
      ASSERT_NEAR(out.getDouble(r * 3 + c), want, 1e-6);
    }
  index.setInt(0, 4);
  expectError<RuntimeFailure>([&] { selection::indexGet(x, 0, index); },
                              "index 4 is out of bounds for dimension 0 with size 4");
}

TEST(SelectionOps, ScatterAddSumsDuplicatesAndNonzeroListsPositions) {
  Tensor self = Tensor::empty({2, 4}, DType::i64);
  self.fillInt(0);
  Tensor index = Tensor::empty({2, 3}, DType::i64), src = Tensor::empty({2, 3}, DType::i64);
  int64_t idx[] = {0, 0, 3, 1, 2, 1}, vals[] = {5, 6, 7, 1, 2, 3};
  for (int64_t i = 0; i < 6; ++i) {
    index.setInt(i, idx[i]);
    src.setInt(i, vals[i]);
  }
  Tensor out = selection::scatter(self, 1, index, src, /*add=*/true);
  int64_t want[] = {11, 0, 0, 7, 0, 4, 2, 0};
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(out.getInt(i), want[i]) << i;
  Tensor nz = selection::nonzero(out);
  ASSERT_EQ(nz.sizes(), (Shape{4, 2}));
  int64_t coords[] = {0, 0, 0, 3, 1, 1, 1, 2};
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(nz.getInt(i), coords[i]) << i;
  expectError<UserError>([&] { selection::scatter(self, 1, index, src.to(DType::f32), false); },
                         "Expected self.dtype to be equal to src.dtype");
}

}  // namespace
}  // namespace stitch
