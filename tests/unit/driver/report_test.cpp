// Flattened outputs and their comparison: what --check reports.
#include <gtest/gtest.h>

#include <cmath>

#include "driver/compare.h"
#include "driver/outputs.h"
#include "test_util.h"

namespace stitch {
namespace {

using testing::freshSeed;
using testing::randomTensor;

TEST(Outputs, FlattensNestedListsAndTuplesInOrder) {
  std::mt19937_64 rng(freshSeed());
  Tensor a = randomTensor(rng, DType::f32, {2});
  Tensor b = randomTensor(rng, DType::i64, {3, 1});
  IValueList results = {IValue::tuple({IValue(a), IValue::list({IValue(b), IValue(2.5)})}),
                        IValue((int64_t)7)};
  std::vector<NamedOutput> outs = flattenOutputs(results);
  ASSERT_EQ(outs.size(), 4u);
  EXPECT_EQ(outs[0].name, "out0");
  EXPECT_TRUE(outs[0].value.toTensor().sameStorage(a));
  EXPECT_TRUE(outs[1].value.toTensor().sameStorage(b));
  EXPECT_EQ(outs[2].name, "out2");
  EXPECT_EQ(outputDType(outs[2].value), "float");
  EXPECT_EQ(outputDType(outs[3].value), "int");
  EXPECT_EQ(outputDType(outs[1].value), "i64");
  EXPECT_EQ(outputDType(IValue()), "None");
}

TEST(Compare, ToleranceAndMismatches) {
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Tensor a = randomTensor(rng, DType::f32, {64});
  Tensor near = a.clone();
  Tensor far = a.clone();
  int64_t i = (int64_t)(rng() % 64);
  near.setDouble(i, a.getDouble(i) * (1 + 1e-6));
  far.setDouble(i, a.getDouble(i) + 1.0);

  CheckResult same = compareOutputs({{"out0", IValue(a)}}, {{"out0", IValue(near)}});
  EXPECT_TRUE(same.ok) << same.mismatch;
  CheckResult diff = compareOutputs({{"out0", IValue(far)}}, {{"out0", IValue(a)}});
  EXPECT_FALSE(diff.ok);
  EXPECT_NEAR(diff.maxAbsError, 1.0, 1e-4);
  EXPECT_NE(diff.mismatch.find("element " + std::to_string(i)), std::string::npos) << diff.mismatch;

  Tensor reshaped = a.asStrided({8, 8}, {8, 1}, 0);
  EXPECT_FALSE(compareOutputs({{"out0", IValue(reshaped)}}, {{"out0", IValue(a)}}).ok);
  EXPECT_FALSE(compareOutputs({{"out0", IValue(a.to(DType::f64))}}, {{"out0", IValue(a)}}).ok);
  EXPECT_FALSE(compareOutputs({}, {{"out0", IValue(a)}}).ok);
  EXPECT_FALSE(compareOutputs({{"out0", IValue((int64_t)3)}}, {{"out0", IValue(3.0)}}).ok);
  EXPECT_TRUE(compareOutputs({{"out0", IValue(std::nan(""))}}, {{"out0", IValue(std::nan(""))}}).ok);
}

// An element near zero out of large cancelling terms may be off by a few
// ulps of the tensor's scale; more than the scale term is a mismatch, and
// integer tensors stay exact.
TEST(Compare, ToleranceScalesWithTheTensorsMagnitude) {
  Tensor expected = Tensor::empty({4}, DType::f32);
  for (int64_t i = 0; i < 4; ++i) expected.setDouble(i, 1000.0 * (i + 1));
  expected.setDouble(2, 0.5);
  double slack = 8 * std::ldexp(1.0, -23) * 4000.0;  // 3.8e-3
  Tensor close = expected.clone();
  close.setDouble(2, 0.5 + 0.7 * slack);
  EXPECT_TRUE(compareOutputs({{"out0", IValue(close)}}, {{"out0", IValue(expected)}}).ok);
  Tensor off = expected.clone();
  off.setDouble(2, 0.5 + 1.5 * slack);
  CheckResult r = compareOutputs({{"out0", IValue(off)}}, {{"out0", IValue(expected)}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.mismatch.find("element 2"), std::string::npos) << r.mismatch;
  Tensor ints = Tensor::empty({2}, DType::i64);
  ints.setInt(0, 1 << 30);
  Tensor intsOff = ints.clone();
  intsOff.setInt(1, 1);
  EXPECT_FALSE(compareOutputs({{"out0", IValue(intsOff)}}, {{"out0", IValue(ints)}}).ok);
}

}  // namespace
}  // namespace stitch
