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

}  // namespace
}  // namespace stitch
