// Copy ops: values against index arithmetic on fresh random inputs, dtype
// promotion, no aliasing of results, and PyTorch's errors.
#include <algorithm>
#include <cmath>

#include "interp/copy_ops.h"
#include "interp/view_ops.h"
#include "view_test_util.h"

namespace stitch {
namespace {

using namespace stitch::vtest;

constexpr int kTrials = 20;
const DType kDTypes[] = {DType::b8, DType::i32, DType::i64, DType::f32, DType::f64};

DType randomDType() { return kDTypes[randInt(0, 4)]; }

// The value an element of `src` takes after conversion to `to`.
double converted(double v, DType to) {
  if (to == DType::b8) return v != 0 ? 1 : 0;
  if (isIntegral(to)) return std::trunc(v);
  if (to == DType::f32) return (double)(float)v;
  return v;
}

TEST(CopyOps, CatJoinsAlongDimWithPromotion) {
  for (int trial = 0; trial < kTrials; ++trial) {
    int64_t rank = randInt(1, 3);
    Shape common = randomShape(rank);
    int64_t dim = randInt(-rank, rank - 1);
    int64_t nd = dim < 0 ? dim + rank : dim;
    std::vector<Tensor> parts;
    std::vector<int64_t> starts;
    int64_t total = 0;
    DType expectDType = randomDType();
    for (int64_t k = randInt(1, 4); k > 0; --k) {
      Shape s = common;
      s[nd] = randInt(0, 4);
      DType dt = randomDType();
      if (parts.empty()) dt = expectDType;
      expectDType = promoteTypes(expectDType, dt);
      parts.push_back(randomTensor(s, dt));
      starts.push_back(total);
      total += s[nd];
    }
    // A 1-d empty tensor takes part in promotion only.
    if (rank > 1 && randInt(0, 1)) {
      DType dt = randomDType();
      expectDType = promoteTypes(expectDType, dt);
      parts.insert(parts.begin() + randInt(0, (int64_t)parts.size()), Tensor::empty({0}, dt));
    }
    Tensor out = copies::cat(parts, dim);
    Shape expectShape = common;
    expectShape[nd] = total;
    EXPECT_EQ(out.sizes(), expectShape);
    EXPECT_EQ(out.dtype(), expectDType);
    std::vector<Tensor> real;
    for (const Tensor& p : parts)
      if (!(p.dim() == 1 && p.size(0) == 0 && rank > 1)) real.push_back(p);
    expectElements(out, [&](const std::vector<int64_t>& i) {
      size_t k = 0;
      while (k + 1 < real.size() && i[nd] >= starts[k + 1]) ++k;
      std::vector<int64_t> j = i;
      j[nd] -= starts[k];
      return converted(at(real[k], j), expectDType);
    });
    for (const Tensor& p : parts) EXPECT_FALSE(out.sameStorage(p));
  }
}

TEST(CopyOps, CatErrors) {
  Tensor x = randomTensor({2, 3});
  expectError<UserError>([&] { copies::cat({}, 0); }, "torch.cat(): expected a non-empty list of Tensors");
  expectError<UserError>([&] { copies::cat({x, randomTensor({2, 4})}, 0); },
                         "Sizes of tensors must match except in dimension 0. Expected size 3 but got "
                         "size 4 for tensor number 1 in the list.");
  expectError<UserError>([&] { copies::cat({x, Tensor::empty({0}, DType::f32), randomTensor({3, 4})}, 1); },
                         "Expected size 2 but got size 3 for tensor number 2 in the list.");
  expectError<UserError>([&] { copies::cat({x, randomTensor({2, 3, 1})}, 1); },
                         "Tensors must have same number of dimensions: got 2 and 3");
  expectError<UserError>([&] { copies::cat({x, randomTensor({})}, 0); },
                         "zero-dimensional tensor (at position 1) cannot be concatenated");
  expectError<UserError>([&] { copies::cat({x, x}, 2); },
                         "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(CopyOps, StackInsertsADim) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(randInt(0, 3));
    int64_t rank = (int64_t)s.size();
    int64_t dim = randInt(-rank - 1, rank);
    int64_t nd = dim < 0 ? dim + rank + 1 : dim;
    std::vector<Tensor> parts;
    for (int64_t k = randInt(1, 4); k > 0; --k) parts.push_back(randomTensor(s));
    Tensor out = copies::stack(parts, dim);
    Shape expect = s;
    expect.insert(expect.begin() + nd, (int64_t)parts.size());
    EXPECT_EQ(out.sizes(), expect);
    expectElements(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      j.erase(j.begin() + nd);
      return at(parts[i[nd]], j);
    });
  }
  expectError<UserError>([&] { copies::stack({randomTensor({2, 3}), randomTensor({2, 4})}, 0); },
                         "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and "
                         "[2, 4] at entry 1");
  expectError<UserError>([&] { copies::stack({}, 0); }, "stack expects a non-empty TensorList");
}

Tensor randomIndex(const Shape& shape, int64_t bound, DType dtype = DType::i64) {
  Tensor idx = Tensor::empty(shape, dtype);
  for (int64_t i = 0; i < idx.numel(); ++i) idx.setInt(i, randInt(0, bound - 1));
  return idx;
}

TEST(CopyOps, IndexSelectPicksSlices) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(randInt(1, 3));
    int64_t rank = (int64_t)s.size();
    int64_t dim = randInt(0, rank - 1);
    DType dt = randomDType();
    Tensor x = randomTensor(s, dt);
    if (rank == 2 && randInt(0, 1)) x = views::transpose(randomTensor({s[1], s[0]}, dt), 0, 1);
    Tensor idx = randomIndex({randInt(0, 6)}, s[dim], randInt(0, 1) ? DType::i64 : DType::i32);
    Tensor out = copies::indexSelect(x, dim - (randInt(0, 1) ? rank : 0), idx);
    Shape expect = s;
    expect[dim] = idx.numel();
    EXPECT_EQ(out.sizes(), expect);
    EXPECT_EQ(out.dtype(), x.dtype());
    expectElements(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      j[dim] = idx.getInt(i[dim]);
      return at(x, j);
    });
  }
  Tensor x = randomTensor({3, 2});
  Tensor bad = randomIndex({2}, 3);
  bad.setInt(randInt(0, 1), randInt(0, 1) ? 3 : -1);
  expectError<RuntimeFailure>([&] { copies::indexSelect(x, 0, bad); }, "index out of range in self");
  expectError<UserError>([&] { copies::indexSelect(x, 0, randomIndex({1, 1}, 3)); },
                         "index_select(): Index is supposed to be a vector");
  expectError<UserError>([&] { copies::indexSelect(x, 0, randomTensor({2})); },
                         "index_select(): Expected dtype int32 or int64 for index");
}

TEST(CopyOps, GatherReadsAlongDim) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(randInt(1, 3));
    int64_t rank = (int64_t)s.size();
    int64_t dim = randInt(0, rank - 1);
    Shape is = s;
    for (int64_t d = 0; d < rank; ++d) is[d] = d == dim ? randInt(0, 5) : randInt(0, s[d]);
    DType dt = randomDType();
    Tensor x = randomTensor(s, dt);
    // Also a strided self of the same shape: gather must follow strides.
    if (rank == 2 && randInt(0, 1)) x = views::transpose(randomTensor({s[1], s[0]}, dt), 0, 1);
    Tensor idx = randomIndex(is, s[dim]);
    Tensor out = copies::gather(x, dim, idx);
    EXPECT_EQ(out.sizes(), idx.sizes());
    expectElements(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      j[dim] = idx.getInt(linearIndex(idx.sizes(), i));
      return at(x, j);
    });
  }
  Tensor x = randomTensor({2, 3});
  Tensor bad = randomIndex({1, 2}, 3);
  bad.setInt(1, 5);
  expectError<RuntimeFailure>([&] { copies::gather(x, 1, bad); },
                              "index 5 is out of bounds for dimension 1 with size 3");
  expectError<UserError>([&] { copies::gather(x, 1, randomIndex({2}, 3)); },
                         "Index tensor must have the same number of dimensions as input tensor");
  expectError<UserError>([&] { copies::gather(x, 1, randomIndex({1, 1}, 3, DType::i32)); },
                         "gather(): Expected dtype int64 for index");
  expectError<UserError>([&] { copies::gather(x, 1, randomIndex({3, 1}, 3)); },
                         "Size does not match at dimension 0 expected index [3, 1] to be smaller "
                         "than self [2, 3] apart from dimension 1");
}

TEST(CopyOps, ToConvertsOrReturnsSelf) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Tensor x = randomTensor(randomShape(2), randomDType());
    DType to = randomDType();
    Tensor y = copies::to(x, to);
    EXPECT_EQ(y.dtype(), to);
    EXPECT_EQ(y.sameStorage(x), to == x.dtype());
    expectElements(y, [&](const std::vector<int64_t>& i) { return converted(at(x, i), to); });
  }
}

TEST(CopyOps, RepeatTiles) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(randInt(0, 3), 3);
    Tensor x = randomTensor(s);
    if (s.size() == 2 && randInt(0, 1)) x = views::transpose(randomTensor({s[1], s[0]}), 0, 1);
    size_t lead = randInt(0, 2);
    std::vector<int64_t> reps = randomShape((int64_t)(s.size() + lead), 3, 0);
    Tensor out = copies::repeat(x, reps);
    Shape expect(reps.size());
    for (size_t d = 0; d < reps.size(); ++d) expect[d] = reps[d] * (d < lead ? 1 : s[d - lead]);
    EXPECT_EQ(out.sizes(), expect);
    expectElements(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j;
      for (size_t d = lead; d < i.size(); ++d) j.push_back(i[d] % s[d - lead]);
      return at(x, j);
    });
  }
  expectError<UserError>([&] { copies::repeat(randomTensor({2, 3}), {2}); },
                         "Number of dimensions of repeat dims can not be smaller than number of "
                         "dimensions of tensor");
  expectError<UserError>([&] { copies::repeat(randomTensor({2, 3}), {2, -1}); },
                         "Trying to create tensor with negative dimension -3: [4, -3]");
}

TEST(CopyOps, FlipReverses) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(3, 4, 0);
    Tensor x = randomTensor(s, randomDType());
    std::vector<int64_t> dims;
    std::vector<bool> flipped(3, false);
    for (int64_t d = 0; d < 3; ++d) {
      if (!randInt(0, 1)) continue;
      dims.push_back(randInt(0, 1) ? d : d - 3);
      flipped[d] = true;
    }
    Tensor out = copies::flip(x, dims);
    EXPECT_FALSE(out.sameStorage(x));
    expectElements(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      for (int64_t d = 0; d < 3; ++d)
        if (flipped[d]) j[d] = s[d] - 1 - i[d];
      return at(x, j);
    });
  }
  expectError<UserError>([&] { copies::flip(randomTensor({2, 3}), {0, -2}); },
                         "dim 0 appears multiple times in the list of dims");
}

TEST(CopyOps, TrilTriuKeepTriangles) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(randInt(2, 3));
    Tensor x = randomTensor(s, randomDType());
    int64_t diag = randInt(-3, 3);
    Tensor lo = copies::tril(x, diag), up = copies::triu(x, diag);
    size_t r = s.size() - 2, c = s.size() - 1;
    expectElements(lo, [&](const std::vector<int64_t>& i) {
      return i[c] - i[r] <= diag ? at(x, i) : 0.0;
    });
    expectElements(up, [&](const std::vector<int64_t>& i) {
      return i[c] - i[r] >= diag ? at(x, i) : 0.0;
    });
  }
  expectError<UserError>([&] { copies::tril(randomTensor({3}), 0); }, "Dimension out of range");
}

}  // namespace
}  // namespace stitch
