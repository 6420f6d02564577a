// View ops: values against index arithmetic, aliasing (writes through a view
// reach the base), and PyTorch's errors.
#include <algorithm>
#include <numeric>

#include "interp/view_ops.h"
#include "view_test_util.h"

namespace stitch {
namespace {

using namespace stitch::vtest;

constexpr int kTrials = 20;

// Writes a fresh value through every element of `view` and checks that the
// base sees it at `baseIndex(viewIndex)`.
void expectAliases(const Tensor& base, const Tensor& view,
                   const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& baseIndex) {
  ASSERT_TRUE(view.sameStorage(base));
  for (int64_t i = 0; i < view.numel(); ++i) {
    double v = (double)randInt(1000, 2000);
    view.setDouble(i, v);
    ASSERT_EQ(at(base, baseIndex(unravel(view.sizes(), i))), v);
  }
}

// A non-contiguous tensor with the given logical shape: a permuted and
// sliced view of a larger base.
Tensor stridedTensor(const Shape& shape) {
  int64_t rank = (int64_t)shape.size();
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng());
  Shape baseShape(rank);
  for (int64_t d = 0; d < rank; ++d) baseShape[perm[d]] = shape[d] * 2;
  Tensor base = randomTensor(baseShape);
  Tensor t = views::permute(base, perm);
  for (int64_t d = 0; d < rank; ++d) t = views::slice(t, d, 0, std::nullopt, 2);
  return t;
}

TEST(ViewOps, ViewRegroupsContiguousData) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Tensor x = randomTensor(randomShape(randInt(1, 4)));
    int64_t n = x.numel();
    // Every split of n into two factors, with an inferred -1 half the time.
    int64_t a = 1;
    for (int64_t f = 1; f <= n; ++f)
      if (n % f == 0 && randInt(0, 1)) a = f;
    Shape req = randInt(0, 1) ? Shape{a, -1} : Shape{a, n / a};
    Tensor v = views::view(x, req);
    EXPECT_EQ(v.sizes(), (Shape{a, n / a}));
    expectElements(v, [&](const std::vector<int64_t>& i) { return x.getDouble(i[0] * (n / a) + i[1]); });
    expectAliases(x, v, [&](const std::vector<int64_t>& i) { return unravel(x.sizes(), i[0] * (n / a) + i[1]); });
  }
}

TEST(ViewOps, ViewOfStridedTensorWhereStridesAllow) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape shape = randomShape(3);
    Tensor x = stridedTensor(shape);
    // Splitting one dim into (1, d) or (d, 1) is always expressible.
    int64_t d = randInt(0, 2);
    Shape req = shape;
    req.insert(req.begin() + d + randInt(0, 1), 1);
    Tensor v = views::view(x, req);
    EXPECT_TRUE(v.sameStorage(x));
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(v.getDouble(i), x.getDouble(i));
  }
}

TEST(ViewOps, ViewOfTransposedRejectsMerging) {
  Shape s = randomShape(2, 5, 2);
  Tensor x = views::transpose(randomTensor(s), 0, 1);
  expectError<UserError>([&] { views::view(x, {s[0] * s[1]}); },
                         "view size is not compatible with input tensor's size and stride (at least "
                         "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                         "instead.");
  expectError<UserError>([&] { views::view(x, {s[0] * s[1] + 1}); }, "is invalid for input of size");
  expectError<UserError>([&] { views::view(x, {-1, -1}); }, "only one dimension can be inferred");
}

TEST(ViewOps, ReshapeViewsWhenPossibleElseCopies) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(3, 4, 2);
    Tensor x = randomTensor(s);
    Tensor flat = views::reshape(x, {-1});
    EXPECT_TRUE(flat.sameStorage(x));
    Tensor tr = views::transpose(x, 0, 2);
    Tensor copy = views::reshape(tr, {-1});
    EXPECT_FALSE(copy.sameStorage(x));
    expectElements(copy, [&](const std::vector<int64_t>& i) { return tr.getDouble(i[0]); });
  }
}

TEST(ViewOps, PermuteMovesDims) {
  for (int trial = 0; trial < kTrials; ++trial) {
    int64_t rank = randInt(1, 4);
    Tensor x = randomTensor(randomShape(rank));
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng());
    std::vector<int64_t> given = perm;
    for (auto& p : given)
      if (randInt(0, 1)) p -= rank;  // negative dims wrap
    Tensor y = views::permute(x, given);
    auto baseIndex = [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src(rank);
      for (int64_t d = 0; d < rank; ++d) src[perm[d]] = i[d];
      return src;
    };
    expectElements(y, [&](const std::vector<int64_t>& i) { return at(x, baseIndex(i)); });
    expectAliases(x, y, baseIndex);
  }
  Tensor x = randomTensor({2, 3});
  expectError<UserError>([&] { views::permute(x, {0}); },
                         "input.dim() = 2 is not equal to len(dims) = 1");
  expectError<UserError>([&] { views::permute(x, {0, 0}); }, "permute(): duplicate dims are not allowed.");
  expectError<UserError>([&] { views::permute(x, {0, 2}); },
                         "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(ViewOps, TransposeTAndMovedim) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(3);
    Tensor x = randomTensor(s);
    int64_t a = randInt(-3, 2), b = randInt(-3, 2);
    Tensor y = views::transpose(x, a, b);
    int64_t na = (a + 3) % 3, nb = (b + 3) % 3;
    auto swapped = [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      std::swap(j[na], j[nb]);
      return j;
    };
    expectElements(y, [&](const std::vector<int64_t>& i) { return at(x, swapped(i)); });
    expectAliases(x, y, swapped);

    int64_t src = randInt(0, 2), dst = randInt(0, 2);
    Tensor m = views::movedim(x, src, dst);
    std::vector<int64_t> order = {0, 1, 2};
    order.erase(order.begin() + src);
    order.insert(order.begin() + dst, src);
    for (int64_t d = 0; d < 3; ++d) EXPECT_EQ(m.size(d), s[order[d]]);
    expectElements(m, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j(3);
      for (int64_t d = 0; d < 3; ++d) j[order[d]] = i[d];
      return at(x, j);
    });
  }
  Tensor m = randomTensor(randomShape(2));
  Tensor mt = views::t(m);
  expectElements(mt, [&](const std::vector<int64_t>& i) { return at(m, {i[1], i[0]}); });
  Tensor v = randomTensor(randomShape(1));
  EXPECT_EQ(views::t(v).sizes(), v.sizes());
  expectError<UserError>([&] { views::t(randomTensor({2, 2, 2})); },
                         "t() expects a tensor with <= 2 dimensions, but self is 3D");
}

TEST(ViewOps, UnsqueezeAndSqueeze) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(3, 3);
    Tensor x = randomTensor(s);
    int64_t d = randInt(-4, 3);
    Tensor u = views::unsqueeze(x, d);
    int64_t nd = d < 0 ? d + 4 : d;
    Shape expect = s;
    expect.insert(expect.begin() + nd, 1);
    EXPECT_EQ(u.sizes(), expect);
    auto dropped = [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      j.erase(j.begin() + nd);
      return j;
    };
    expectElements(u, [&](const std::vector<int64_t>& i) { return at(x, dropped(i)); });
    expectAliases(x, u, dropped);

    Tensor sq = views::squeeze(x);
    Shape kept;
    for (int64_t v : s)
      if (v != 1) kept.push_back(v);
    EXPECT_EQ(sq.sizes(), kept);
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(sq.getDouble(i), x.getDouble(i));

    int64_t one = randInt(0, 2);
    Tensor sd = views::squeeze(x, one);
    Shape expectOne = s;
    if (s[one] == 1) expectOne.erase(expectOne.begin() + one);
    EXPECT_EQ(sd.sizes(), expectOne);
    EXPECT_TRUE(sd.sameStorage(x));
  }
  expectError<UserError>([&] { views::unsqueeze(randomTensor({2}), 2); },
                         "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(ViewOps, ExpandBroadcastsWithZeroStrides) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(2, 4);
    for (auto& d : s)
      if (randInt(0, 1)) d = 1;
    Tensor x = randomTensor(s);
    int64_t lead = randInt(0, 2);
    Shape req = randomShape(lead, 3);
    Shape target = req;
    for (int64_t d : s) {
      int64_t want = d == 1 ? randInt(1, 4) : d;
      req.push_back(randInt(0, 1) && want == d ? -1 : want);
      target.push_back(want);
    }
    Tensor e = views::expand(x, req);
    EXPECT_EQ(e.sizes(), target);
    for (int64_t d = 0; d < (int64_t)target.size(); ++d)
      if (d < lead || (s[d - lead] == 1 && target[d] != 1)) EXPECT_EQ(e.stride(d), 0);
    expectElements(e, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j;
      for (int64_t d = 0; d < (int64_t)s.size(); ++d) j.push_back(s[d] == 1 ? 0 : i[lead + d]);
      return at(x, j);
    });
    EXPECT_TRUE(e.sameStorage(x));
  }
  Tensor x = randomTensor({2, 3});
  expectError<UserError>([&] { views::expand(x, {2, 4}); },
                         "The expanded size of the tensor (4) must match the existing size (3) at "
                         "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]");
  expectError<UserError>([&] { views::expand(x, {3}); },
                         "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to the number of "
                         "dimensions in the tensor (2)");
  expectError<UserError>([&] { views::expand(x, {-1, 2, 3}); },
                         "The expanded size of the tensor (-1) isn't allowed in a leading, "
                         "non-existing dimension 0");
}

TEST(ViewOps, SelectSliceNarrowOfViewsOfViewsReachTheBase) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(3, 6, 2);
    Tensor base = randomTensor(s);
    // base.transpose(0, 2)[i] then [:, a:b:step]: base[j, k, i] with k = a + step * m.
    Tensor tr = views::transpose(base, 0, 2);
    int64_t i = randInt(-s[2], s[2] - 1);
    Tensor sel = views::select(tr, 0, i);
    int64_t ni = i < 0 ? i + s[2] : i;
    int64_t step = randInt(1, 3);
    int64_t start = randInt(-s[1] - 1, s[1] + 1), end = randInt(-s[1] - 1, s[1] + 1);
    Tensor sl = views::slice(sel, 0, start, end, step);
    // Python's clamping, computed independently.
    auto clampIdx = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + s[1] : v, 0, s[1]); };
    int64_t cs = clampIdx(start), ce = clampIdx(end);
    int64_t len = ce > cs ? (ce - cs + step - 1) / step : 0;
    EXPECT_EQ(sl.sizes(), (Shape{len, s[0]}));
    auto baseIndex = [&](const std::vector<int64_t>& m) {
      return std::vector<int64_t>{m[1], cs + step * m[0], ni};
    };
    expectElements(sl, [&](const std::vector<int64_t>& m) { return at(base, baseIndex(m)); });
    expectAliases(base, sl, baseIndex);

    int64_t nstart = randInt(0, s[0] - 1), nlen = randInt(0, s[0] - nstart);
    Tensor nw = views::narrow(sel, 1, nstart, nlen);
    auto narrowIndex = [&](const std::vector<int64_t>& m) {
      return std::vector<int64_t>{nstart + m[1], m[0], ni};
    };
    expectAliases(base, nw, narrowIndex);
  }
}

TEST(ViewOps, SelectSliceNarrowErrors) {
  Tensor x = randomTensor({3, 4});
  // Out-of-range indices reach the kernel only when computed from data.
  expectError<RuntimeFailure>([&] { views::select(x, 0, 5); },
                         "index 5 is out of bounds for dimension 0 with size 3");
  expectError<RuntimeFailure>([&] { views::select(x, 1, -5); },
                         "index -5 is out of bounds for dimension 1 with size 4");
  expectError<UserError>([&] { views::select(randomTensor({}), 0, 0); },
                         "select() cannot be applied to a 0-dim tensor.");
  expectError<UserError>([&] { views::slice(x, 0, 0, 2, 0); }, "slice step must be positive");
  expectError<UserError>([&] { views::slice(x, 0, 0, 2, -1); }, "slice step must be positive");
  expectError<UserError>([&] { views::narrow(x, 1, 2, 3); },
                         "start (2) + length (3) exceeds dimension size (4).");
  EXPECT_EQ(views::narrow(x, 1, -1, 1).size(1), 1);
  EXPECT_EQ(views::narrow(x, 1, 4, 0).size(1), 0);
}

TEST(ViewOps, ChunkSplitUnbindCoverTheDimAsViews) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(2, 9);
    Tensor x = randomTensor(s);
    int64_t dim = randInt(0, 1);
    int64_t chunks = randInt(1, 5);
    std::vector<Tensor> pieces;
    int64_t mode = randInt(0, 2);
    if (mode == 0) pieces = views::chunk(x, chunks, dim);
    if (mode == 1) pieces = views::split(x, chunks, dim);
    std::vector<int64_t> sizes;
    if (mode == 2) {
      int64_t left = s[dim];
      while (left > 0) {
        sizes.push_back(randInt(0, left));
        left -= sizes.back();
      }
      pieces = views::splitWithSizes(x, sizes, dim);
    }
    // Independent piece lengths.
    std::vector<int64_t> expectLens;
    if (mode == 0) {
      int64_t size = (s[dim] + chunks - 1) / chunks;
      for (int64_t at = 0; at < s[dim]; at += size) expectLens.push_back(std::min(size, s[dim] - at));
    }
    if (mode == 1)
      for (int64_t at = 0; at < s[dim]; at += chunks) expectLens.push_back(std::min(chunks, s[dim] - at));
    if (mode == 2) expectLens = sizes;
    ASSERT_EQ(pieces.size(), expectLens.size());
    int64_t offset = 0;
    for (size_t p = 0; p < pieces.size(); ++p) {
      EXPECT_EQ(pieces[p].size(dim), expectLens[p]);
      auto baseIndex = [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j = i;
        j[dim] += offset;
        return j;
      };
      expectElements(pieces[p], [&](const std::vector<int64_t>& i) { return at(x, baseIndex(i)); });
      expectAliases(x, pieces[p], baseIndex);
      offset += expectLens[p];
    }
    std::vector<Tensor> rows = views::unbind(x, dim);
    ASSERT_EQ((int64_t)rows.size(), s[dim]);
    for (int64_t r = 0; r < s[dim]; ++r) {
      expectAliases(x, rows[r], [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j = i;
        j.insert(j.begin() + dim, r);
        return j;
      });
    }
  }
  Tensor x = randomTensor({2, 3});
  expectError<UserError>([&] { views::chunk(x, 0, 0); }, "chunk expects `chunks` to be greater than 0, got: 0");
  expectError<UserError>([&] { views::split(x, -1, 0); },
                         "split expects split_size be non-negative, but got split_size=-1");
  expectError<UserError>([&] { views::splitWithSizes(x, {1, 1}, 1); },
                         "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's "
                         "size at dimension 1), but got split_sizes=[1, 1]");
  expectError<UserError>([&] { views::unbind(randomTensor({}), 0); },
                         "Dimension specified as 0 but tensor has no dimensions");
}

TEST(ViewOps, FlattenAndContiguous) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(4, 3);
    Tensor x = randomTensor(s);
    int64_t a = randInt(0, 3), b = randInt(a, 3);
    Tensor f = views::flatten(x, a, b - 4);
    Shape expect(s.begin(), s.begin() + a);
    int64_t merged = 1;
    for (int64_t d = a; d <= b; ++d) merged *= s[d];
    expect.push_back(merged);
    expect.insert(expect.end(), s.begin() + b + 1, s.end());
    EXPECT_EQ(f.sizes(), expect);
    EXPECT_TRUE(f.sameStorage(x));
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(f.getDouble(i), x.getDouble(i));

    // Dims of at least 2 with every stride doubled: no view can merge them.
    Tensor st = stridedTensor(randomShape(4, 3, 2));
    Tensor fc = views::flatten(st, 0, -1);
    EXPECT_FALSE(fc.sameStorage(st));
    for (int64_t i = 0; i < st.numel(); ++i) ASSERT_EQ(fc.getDouble(i), st.getDouble(i));
    Tensor c = views::contiguous(st);
    EXPECT_TRUE(c.isContiguous());
    EXPECT_FALSE(c.sameStorage(st));
    EXPECT_TRUE(views::contiguous(x).sameStorage(x));
  }
  EXPECT_EQ(views::flatten(randomTensor({}), 0, -1).sizes(), (Shape{1}));
  expectError<UserError>([&] { views::flatten(randomTensor({2, 3}), 1, 0); },
                         "flatten() has invalid args: start_dim cannot come after end_dim");
}

}  // namespace
}  // namespace stitch
