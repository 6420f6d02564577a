// Strided tensors: views alias their base, copies convert and broadcast,
// the walkers visit every element once.
#include "interp/strided_loop.h"
#include "core_test_util.h"

namespace stitch {
namespace {

using namespace itest;

TEST(CoreTensor, EmptyIsZeroedAlignedAndContiguous) {
  Shape shape = randomShape(3);
  Tensor t = Tensor::empty(shape, DType::f64);
  EXPECT_EQ(t.numel(), shape[0] * shape[1] * shape[2]);
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.rawData()) % 64, 0u);
  for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t.getDouble(i), 0.0);
  EXPECT_EQ(t.strides(), contiguousStrides(shape));
}

TEST(CoreTensor, WriteThroughStridedViewIsSeenByBase) {
  int64_t rows = randInt(2, 6), cols = randInt(2, 6);
  Tensor base = randomTensor({rows, cols}, DType::f32);
  Tensor before = base.clone();
  // Column c as a strided view.
  int64_t c = randInt(0, cols - 1);
  Tensor column = base.asStrided({rows}, {base.stride(0)}, base.offset() + c * base.stride(1));
  std::vector<double> written(rows);
  for (int64_t r = 0; r < rows; ++r) {
    written[r] = randReal(-5, 5);
    column.setDouble(r, written[r]);
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      double want = j == c ? (double)(float)written[r] : before.getDouble(r * cols + j);
      EXPECT_EQ(base.getDouble(r * cols + j), want);
    }
  }
  EXPECT_TRUE(column.sameStorage(base));
}

TEST(CoreTensor, TransposedViewReadsTransposedElements) {
  int64_t m = randInt(2, 5), n = randInt(2, 5);
  Tensor a = randomTensor({m, n}, DType::i64, -100, 100);
  Tensor at = a.asStrided({n, m}, {a.stride(1), a.stride(0)}, a.offset());
  EXPECT_FALSE(at.isContiguous());
  Tensor c = at.contiguous();
  EXPECT_TRUE(c.isContiguous());
  EXPECT_FALSE(c.sameStorage(a));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) EXPECT_EQ(c.getInt(i * m + j), a.getInt(j * n + i));
}

TEST(CoreTensor, CopyFromBroadcastsAndConverts) {
  Shape shape = randomShape(3);
  Shape srcShape = broadcastPartner(shape);
  Tensor src = randomTensor(srcShape, DType::f64, -50, 50);
  Tensor dst = randomTensor(shape, DType::i32);
  dst.copyFrom(src);
  for (int64_t i = 0; i < dst.numel(); ++i) {
    double s = broadcastElement(src, unravel(shape, i));
    EXPECT_EQ(dst.getInt(i), (int64_t)(int32_t)s) << "at " << i;
  }
}

TEST(CoreTensor, CopyFromToBoolIsNonzero) {
  Shape shape = randomShape(2);
  Tensor src = randomTensor(shape, DType::i64, -2, 2);
  Tensor dst = Tensor::empty(shape, DType::b8);
  dst.copyFrom(src);
  for (int64_t i = 0; i < dst.numel(); ++i) EXPECT_EQ(dst.getInt(i), src.getInt(i) != 0 ? 1 : 0);
}

TEST(CoreTensor, CopyFromRejectsShapesThatDoNotBroadcast) {
  Tensor dst = Tensor::empty({2, 3}, DType::f32);
  expectError<UserError>([&] { dst.copyFrom(Tensor::empty({4}, DType::f32)); },
                         "The size of tensor a (3) must match the size of tensor b (4) at "
                         "non-singleton dimension 1");
  expectError<UserError>([&] { dst.copyFrom(Tensor::empty({2, 2, 3}, DType::f32)); },
                         "output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]");
}

TEST(CoreTensor, OverlappingCopyReadsOldValues) {
  int64_t n = randInt(4, 40);
  Tensor x = randomTensor({n}, DType::f32);
  Tensor old = x.clone();
  // x[1:] = x[:-1]: every element must come from the old contents.
  Tensor tail = x.asStrided({n - 1}, {x.stride(0)}, x.offset() + x.stride(0));
  Tensor head = x.asStrided({n - 1}, {x.stride(0)}, x.offset());
  tail.copyFrom(head);
  EXPECT_EQ(x.getDouble(0), old.getDouble(0));
  for (int64_t i = 1; i < n; ++i) EXPECT_EQ(x.getDouble(i), old.getDouble(i - 1));
  // And the other way, x[:-1] = x[1:] (dense views: one block copy).
  Tensor before = x.clone();
  head.copyFrom(tail);
  for (int64_t i = 0; i + 1 < n; ++i) EXPECT_EQ(x.getDouble(i), before.getDouble(i + 1));
  EXPECT_EQ(x.getDouble(n - 1), before.getDouble(n - 1));
}

TEST(CoreTensor, ToAndCloneMakeIndependentCopies) {
  Tensor a = randomTensor(randomShape(2), DType::f32);
  Tensor b = a.to(DType::f64), c = a.clone();
  a.fill(7.5);
  for (int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_EQ(a.getDouble(i), 7.5);
    EXPECT_EQ(b.getDouble(i), c.getDouble(i));
    EXPECT_NE(c.getDouble(i), 7.5);
  }
  EXPECT_EQ(b.dtype(), DType::f64);
}

TEST(CoreTensor, FillIntIsExactForLargeInt64) {
  int64_t big = (int64_t(1) << 62) + randInt(1, 1000);
  Tensor t = randomTensor(randomShape(2), DType::i64);
  t.fillInt(big);
  for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t.getInt(i), big);
}

TEST(CoreTensor, ExpandToGivesZeroStrides) {
  Tensor row = randomTensor({1, randInt(2, 5)}, DType::f32);
  int64_t rows = randInt(2, 5);
  Tensor e = row.expandTo({rows, row.size(1)});
  EXPECT_EQ(e.stride(0), 0);
  for (int64_t i = 0; i < e.numel(); ++i) EXPECT_EQ(e.getDouble(i), row.getDouble(i % row.size(1)));
  expectError<UserError>([&] { row.expandTo({row.size(1) + 1}); }, "");
}

TEST(CoreTensor, ForEachIndexVisitsEveryElementOnce) {
  Shape shape = randomShape(3);
  Tensor a = randomTensor(shape, DType::i64, 0, 1000);
  std::vector<int64_t> seen;
  forEachIndex(shape, {&a.strides()}, {a.offset()}, [&](const int64_t* off) {
    seen.push_back(a.data<int64_t>()[off[0] - a.offset()]);
  });
  ASSERT_EQ((int64_t)seen.size(), a.numel());
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(seen[i], a.getInt(i));
}

TEST(CoreTensor, ForEachRowCoversLargeStridedTensorsInParallel) {
  // Big enough to take the parallel path; the select of channel 1 of an
  // [H, W, 3] image is one long row with stride 3.
  int64_t h = randInt(100, 200), w = randInt(100, 200);
  Tensor img = Tensor::empty({h, w, 3}, DType::i64);
  Tensor channel = img.asStrided({h, w}, {w * 3, 3}, 1);
  int64_t* base = img.data<int64_t>();
  forEachRow<1>(channel.sizes(), {&channel.strides()}, {channel.offset()},
                [base](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& st) {
                  for (int64_t i = 0; i < n; ++i) base[off[0] + i * st[0]] += 1 + (off[0] + i * st[0]);
                });
  for (int64_t i = 0; i < img.numel(); ++i) EXPECT_EQ(img.getInt(i), i % 3 == 1 ? 1 + i : 0);
}

TEST(CoreIValue, ConstantsAndLists) {
  int64_t k = randInt(-100, 100);
  EXPECT_EQ(IValue::fromConstant(Constant(k)).toInt(), k);
  EXPECT_TRUE(IValue::fromConstant(Constant()).isNone());
  std::vector<int64_t> list = {randInt(0, 9), randInt(0, 9)};
  IValue l = IValue::fromConstant(Constant(list));
  EXPECT_TRUE(l.isList());
  EXPECT_EQ(l.toIntList(), list);
  IValue t = IValue::tuple({IValue(1.5), IValue(true)});
  EXPECT_EQ(t.str(), "(1.5, True)");
  EXPECT_EQ(IValue(Tensor::empty({2, 3}, DType::f32)).str(), "f32[2, 3]");
}

}  // namespace
}  // namespace stitch
