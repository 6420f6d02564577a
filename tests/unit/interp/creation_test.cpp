// Creation ops: shapes, default dtypes as PyTorch 1.13, arange lengths.
#include "core_test_util.h"

namespace stitch {
namespace {

using namespace itest;

IValue sizeList(const Shape& s) {
  IValueList elems;
  for (int64_t d : s) elems.emplace_back(d);
  return IValue::list(elems);
}

TEST(Creation, ZerosOnesFullShapesAndDtypes) {
  Shape shape = randomShape(randInt(0, 3));
  Tensor z = runTensorOp("zeros", {sizeList(shape), IValue()});
  EXPECT_EQ(z.sizes(), shape);
  EXPECT_EQ(z.dtype(), DType::f32);
  Tensor o = runTensorOp("ones", {sizeList(shape), IValue(DType::i32)});
  EXPECT_EQ(o.dtype(), DType::i32);
  for (int64_t i = 0; i < o.numel(); ++i) {
    EXPECT_EQ(o.getInt(i), 1);
    EXPECT_EQ(z.getDouble(i), 0.0);
  }
  int64_t k = randInt(-100, 100);
  Tensor fi = runTensorOp("full", {sizeList(shape), IValue(k), IValue()});
  EXPECT_EQ(fi.dtype(), DType::i64);
  Tensor fb = runTensorOp("full", {sizeList(shape), IValue(true), IValue()});
  EXPECT_EQ(fb.dtype(), DType::b8);
  double v = randReal(-3, 3);
  Tensor ff = runTensorOp("full", {sizeList(shape), IValue(v), IValue()});
  EXPECT_EQ(ff.dtype(), DType::f32);
  Tensor fc = runTensorOp("full", {sizeList(shape), IValue(v), IValue(DType::i64)});
  for (int64_t i = 0; i < fi.numel(); ++i) {
    EXPECT_EQ(fi.getInt(i), k);
    EXPECT_EQ(fb.getInt(i), 1);
    EXPECT_EQ(ff.getDouble(i), (double)(float)v);
    EXPECT_EQ(fc.getInt(i), (int64_t)v);
  }
  expectError<UserError>([&] { runTensorOp("zeros", {sizeList({2, -1}), IValue()}); },
                         "Trying to create tensor with negative dimension -1: [2, -1]");
}

TEST(Creation, ArangeLengthsValuesAndDtypes) {
  for (int round = 0; round < 20; ++round) {
    bool floats = coin();
    double start = floats ? randReal(-5, 5) : (double)randInt(-5, 5);
    double step = floats ? randReal(0.1, 2) : (double)randInt(1, 3);
    if (coin()) step = -step;
    double end = start + step * randReal(0, 12);
    if (!floats) end = std::round(end);
    if ((step > 0 && end < start) || (step < 0 && end > start)) end = start;
    IValue s = floats ? IValue(start) : IValue((int64_t)start);
    IValue e = floats ? IValue(end) : IValue((int64_t)end);
    IValue st = floats ? IValue(step) : IValue((int64_t)step);
    Tensor out = runTensorOp("arange", {s, e, st, IValue()});
    EXPECT_EQ(out.dtype(), floats ? DType::f32 : DType::i64);
    int64_t want = 0;
    for (double x = start; step > 0 ? x < end : x > end; x = start + step * (double)(++want)) {}
    ASSERT_EQ(out.numel(), want) << start << " " << end << " " << step;
    for (int64_t i = 0; i < want; ++i)
      EXPECT_TRUE(closeEnough(out.getDouble(i), (double)(float)(start + step * (double)i), out.dtype()));
  }
  int64_t n = randInt(0, 20);
  Tensor simple = runTensorOp("arange", {IValue(n), IValue()});
  ASSERT_EQ(simple.numel(), n);
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(simple.getInt(i), i);
  expectError<UserError>([&] { runTensorOp("arange", {IValue(int64_t(0)), IValue(int64_t(5)), IValue(int64_t(0)), IValue()}); },
                         "step must be nonzero");
  expectError<UserError>([&] { runTensorOp("arange", {IValue(int64_t(-5)), IValue()}); },
                         "upper bound and larger bound inconsistent with step sign");
}

// torch.rand_like's range is [0, 1): a double drawn in [0, 1) and rounded
// to float can become 1.0f, so every value must be exact in its dtype.
TEST(Creation, RandLikeStaysBelowOneAndExact) {
  for (DType dtype : {DType::f32, DType::f64}) {
    Tensor like = randomTensor({1 << 16}, dtype);
    Tensor r = runTensorOp("rand_like", {IValue(like), IValue()});
    ASSERT_EQ(r.dtype(), dtype);
    double sum = 0, unit = std::ldexp(1.0, dtype == DType::f32 ? 24 : 53);
    for (int64_t i = 0; i < r.numel(); ++i) {
      double v = r.getDouble(i);
      ASSERT_GE(v, 0.0);
      ASSERT_LT(v, 1.0);
      ASSERT_EQ(v * unit, std::floor(v * unit)) << v;
      sum += v;
    }
    EXPECT_NEAR(sum / (double)r.numel(), 0.5, 0.01);
  }
}

TEST(Creation, LikeOpsKeepShapeAndDtype) {
  Tensor a = randomTensor(randomShape(3), DType::i32);
  Tensor z = runTensorOp("zeros_like", {IValue(a), IValue()});
  Tensor o = runTensorOp("ones_like", {IValue(a), IValue(DType::f64)});
  double v = randReal(-9, 9);
  Tensor f = runTensorOp("full_like", {IValue(a), IValue(v), IValue()});
  EXPECT_EQ(z.sizes(), a.sizes());
  EXPECT_EQ(z.dtype(), DType::i32);
  EXPECT_EQ(o.dtype(), DType::f64);
  EXPECT_EQ(f.dtype(), DType::i32);
  for (int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_EQ(o.getDouble(i), 1.0);
    EXPECT_EQ(f.getInt(i), (int64_t)v);
  }
  Tensor s = runTensorOp("scalar_tensor", {IValue(randInt(-9, 9)), IValue()});
  EXPECT_EQ(s.dtype(), DType::f32);
  EXPECT_EQ(s.dim(), 0);
}

}  // namespace
}  // namespace stitch
