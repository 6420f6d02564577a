// In-place ops write through views into their base and follow PyTorch's
// casting and shape rules.
#include "core_test_util.h"

namespace stitch {
namespace {

using namespace itest;

// A column of a random matrix as a strided view.
struct ColumnView {
  Tensor base, before, column;
  int64_t rows, cols, c;
};

ColumnView makeColumn(DType dtype) {
  ColumnView v;
  v.rows = randInt(2, 8);
  v.cols = randInt(2, 8);
  v.c = randInt(0, v.cols - 1);
  v.base = randomTensor({v.rows, v.cols}, dtype, -9, 9);
  v.before = v.base.clone();
  v.column = v.base.asStrided({v.rows}, {v.base.stride(0)}, v.base.offset() + v.c * v.base.stride(1));
  return v;
}

// Checks base: column c transformed by f, everything else unchanged.
template <typename F>
void expectColumnUpdated(const ColumnView& v, F f) {
  for (int64_t r = 0; r < v.rows; ++r) {
    for (int64_t j = 0; j < v.cols; ++j) {
      double old = v.before.getDouble(r * v.cols + j);
      double want = j == v.c ? f(old, r) : old;
      ASSERT_TRUE(closeEnough(v.base.getDouble(r * v.cols + j), want, v.base.dtype()))
          << "at " << r << "," << j;
    }
  }
}

TEST(ElementwiseInPlace, AddThroughAViewUpdatesTheBase) {
  ColumnView v = makeColumn(DType::f32);
  Tensor other = randomTensor({v.rows}, DType::f32);
  double alpha = randReal(-2, 2);
  Tensor out = runTensorOp("add_", {IValue(v.column), IValue(other), IValue(alpha)});
  EXPECT_TRUE(out.sameStorage(v.base));
  expectColumnUpdated(v, [&](double old, int64_t r) {
    return (double)(float)(old + (double)(float)alpha * other.getDouble(r));
  });
}

TEST(ElementwiseInPlace, UnaryOpsThroughAView) {
  ColumnView v = makeColumn(DType::f64);
  runTensorOp("sigmoid_", {IValue(v.column)});
  expectColumnUpdated(v, [](double old, int64_t) { return 1 / (1 + std::exp(-old)); });
  ColumnView w = makeColumn(DType::i64);
  runTensorOp("relu_", {IValue(w.column)});
  expectColumnUpdated(w, [](double old, int64_t) { return old > 0 ? old : 0; });
  ColumnView z = makeColumn(DType::i32);
  runTensorOp("zero_", {IValue(z.column)});
  expectColumnUpdated(z, [](double, int64_t) { return 0.0; });
}

TEST(ElementwiseInPlace, CopyBroadcastsAndConvertsIntoAView) {
  ColumnView v = makeColumn(DType::i64);
  double s = randReal(-20, 20);
  Tensor src = Tensor::empty({}, DType::f64);
  src.setDouble(0, s);
  runTensorOp("copy_", {IValue(v.column), IValue(src)});
  expectColumnUpdated(v, [&](double, int64_t) { return (double)(int64_t)s; });
}

TEST(ElementwiseInPlace, ClampAndFillAndMaskedFill) {
  ColumnView v = makeColumn(DType::f32);
  double lo = randReal(-5, 0), hi = randReal(0, 5);
  runTensorOp("clamp_", {IValue(v.column), IValue(lo), IValue(hi)});
  expectColumnUpdated(v, [&](double old, int64_t) {
    return std::min(std::max(old, (double)(float)lo), (double)(float)hi);
  });
  ColumnView w = makeColumn(DType::i64);
  int64_t k = randInt(-100, 100);
  runTensorOp("fill_", {IValue(w.column), IValue(k)});
  expectColumnUpdated(w, [&](double, int64_t) { return (double)k; });
  ColumnView m = makeColumn(DType::f64);
  Tensor mask = randomTensor({m.rows}, DType::b8);
  double fill = randReal(-1, 1);
  runTensorOp("masked_fill_", {IValue(m.column), IValue(mask), IValue(fill)});
  expectColumnUpdated(m, [&](double old, int64_t r) { return mask.getInt(r) ? fill : old; });
}

TEST(ElementwiseInPlace, OverlappingDenseOperandsAreRejectedLikePyTorch) {
  int64_t n = randInt(3, 30);
  Tensor x = Tensor::empty({n}, DType::f64);
  fillRandom(x);
  // x[1:] += x[:-1] and x[1:] = x[:-1]
  Tensor tail = x.asStrided({n - 1}, {1}, x.offset() + 1);
  Tensor head = x.asStrided({n - 1}, {1}, x.offset());
  const char* msg = "some elements of the input tensor and the written-to tensor refer to a single memory location";
  expectError<UserError>([&] { runTensorOp("add_", {IValue(tail), IValue(head), IValue(int64_t(1))}); }, msg);
  expectError<UserError>([&] { runTensorOp("copy_", {IValue(tail), IValue(head)}); }, msg);
  Tensor old = x.clone();
  runTensorOp("mul_", {IValue(x), IValue(x)});  // the very same view is fine
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(x.getDouble(i), old.getDouble(i) * old.getDouble(i));
}

TEST(ElementwiseInPlace, UndecidableOverlapReadsOldValues) {
  int64_t n = randInt(2, 9);
  Tensor x = Tensor::empty({n, n}, DType::f64);
  fillRandom(x);
  Tensor old = x.clone();
  // x[:, 0] += x[0, :]: a strided column and a row sharing x[0, 0].
  Tensor column = x.asStrided({n}, {n}, 0);
  Tensor row = x.asStrided({n}, {1}, 0);
  runTensorOp("add_", {IValue(column), IValue(row), IValue(int64_t(1))});
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = j == 0 ? old.getDouble(i * n) + old.getDouble(i) : old.getDouble(i * n + j);
      EXPECT_DOUBLE_EQ(x.getDouble(i * n + j), want);
    }
  }
}

TEST(ElementwiseInPlace, WritesIntoExpandedViewsAreRejected) {
  Tensor x = randomTensor({1, randInt(2, 6)}, DType::f32);
  Tensor expanded = x.expandTo({randInt(2, 4), x.size(1)});
  const char* msg = "more than one element of the written-to tensor refers to a single memory location";
  expectError<UserError>([&] { runTensorOp("add_", {IValue(expanded), IValue(1.0), IValue(int64_t(1))}); }, msg);
  expectError<UserError>([&] { runTensorOp("relu_", {IValue(expanded)}); }, msg);
  expectError<UserError>([&] { runTensorOp("copy_", {IValue(expanded), IValue(x)}); }, msg);
  double v = randReal(-1, 1);
  runTensorOp("fill_", {IValue(expanded), IValue(v)});  // PyTorch allows fills
  for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(x.getDouble(i), (double)(float)v);
}

TEST(ElementwiseInPlace, IntegerSelfAcceptsIntegerResultsOnly) {
  Tensor ints = randomTensor({3}, DType::i64, -9, 9);
  Tensor before = ints.clone();
  int64_t k = randInt(-5, 5);
  runTensorOp("mul_", {IValue(ints), IValue(k)});
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(ints.getInt(i), before.getInt(i) * k);
  expectError<UserError>([&] { runTensorOp("add_", {IValue(ints), IValue(2.5), IValue(int64_t(1))}); },
                         "result type Float can't be cast to the desired output type Long");
  expectError<UserError>([&] { runTensorOp("div_", {IValue(ints), IValue(ints)}); },
                         "result type Float can't be cast to the desired output type Long");
  expectError<UserError>([&] { runTensorOp("sqrt_", {IValue(ints)}); },
                         "result type Float can't be cast to the desired output type Long");
  Tensor bools = randomTensor({3}, DType::b8);
  expectError<UserError>([&] { runTensorOp("add_", {IValue(bools), IValue(int64_t(1)), IValue(int64_t(1))}); },
                         "result type Long can't be cast to the desired output type Bool");
}

TEST(ElementwiseInPlace, FloatSelfTakesWiderResultsRounded) {
  Tensor x = randomTensor({randInt(1, 9)}, DType::f32);
  Tensor before = x.clone();
  Tensor y = randomTensor(x.sizes(), DType::f64);
  runTensorOp("mul_", {IValue(x), IValue(y)});
  for (int64_t i = 0; i < x.numel(); ++i)
    EXPECT_EQ(x.getDouble(i), (double)(float)(before.getDouble(i) * y.getDouble(i)));
}

TEST(ElementwiseInPlace, SelfShapeCannotGrow) {
  Tensor row = Tensor::empty({1, 3}, DType::f32);
  Tensor full = Tensor::empty({2, 3}, DType::f32);
  expectError<UserError>([&] { runTensorOp("add_", {IValue(row), IValue(full), IValue(int64_t(1))}); },
                         "output with shape [1, 3] doesn't match the broadcast shape [2, 3]");
  expectError<UserError>([&] { runTensorOp("fill_", {IValue(row), IValue(full)}); },
                         "fill_ only supports 0-dimension value tensor but got tensor with 2 dimensions.");
}

}  // namespace
}  // namespace stitch
