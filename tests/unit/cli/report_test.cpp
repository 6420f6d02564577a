// Outputs and JSON: the pieces `stitch run` reports with.
#include <gtest/gtest.h>

#include <cmath>

#include "cli_test_util.h"
#include "json_writer.h"
#include "outputs.h"

namespace stitch::cli {
namespace {

using testing::freshSeed;
using testing::randomTensor;

TEST(Outputs, FlattensNestedListsAndTuplesInOrder) {
  std::mt19937_64 rng(freshSeed());
  api::Tensor a = randomTensor(rng, api::DType::f32, {2});
  api::Tensor b = randomTensor(rng, api::DType::i64, {3, 1});
  std::vector<api::Value> results = {api::Value::tuple({a, api::Value::list({b, 2.5})}), api::Value(7)};
  std::vector<NamedOutput> outs = flattenOutputs(results);
  ASSERT_EQ(outs.size(), 4u);
  EXPECT_EQ(outs[0].name, "out0");
  EXPECT_EQ(outs[0].value.tensor().data, a.data);  // the same memory, no copy
  EXPECT_EQ(outs[1].value.tensor().data, b.data);
  EXPECT_EQ(outs[2].name, "out2");
  EXPECT_EQ(outputDType(outs[2].value), "float");
  EXPECT_EQ(outputDType(outs[3].value), "int");
  EXPECT_EQ(outputShape(outs[1].value), (std::vector<int64_t>{3, 1}));

  std::vector<NamedTensor> arrays = outputsAsArrays(outs);
  ASSERT_EQ(arrays.size(), 4u);
  EXPECT_EQ(arrays[2].tensor.dtype, api::DType::f64);
  EXPECT_TRUE(arrays[2].tensor.sizes.empty());
  EXPECT_EQ(*static_cast<const double*>(arrays[2].tensor.data), 2.5);
  EXPECT_EQ(arrays[3].tensor.dtype, api::DType::i64);
  EXPECT_EQ(*static_cast<const int64_t*>(arrays[3].tensor.data), 7);
  EXPECT_THROW(outputsAsArrays({{"out0", api::Value()}}), api::CompileError);
}

TEST(Outputs, SummaryMatchesAStraightSum) {
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  api::Tensor base = randomTensor(rng, api::DType::f64, {5, 4});
  api::Tensor view = base;  // transposed
  view.sizes = {4, 5};
  view.strides = {1, 4};
  TensorSummary s = summarize(view, 3);
  const double* p = static_cast<const double*>(base.data);
  double sum = 0;
  for (int64_t i = 0; i < 20; ++i) sum += p[i];
  EXPECT_NEAR(s.sum, sum, 1e-9 * (1 + std::fabs(sum)));
  EXPECT_NEAR(s.mean, sum / 20, 1e-9 * (1 + std::fabs(sum)));
  ASSERT_EQ(s.first.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(s.first[i], p[i * 4]);  // view[0, i] = base[i, 0]
  std::string line = describeOutput({"out0", view});
  EXPECT_EQ(line.rfind("out0: f64[4, 5]", 0), 0u) << line;
}

TEST(Outputs, ScalarsPrintAsPython) {
  EXPECT_EQ(describeOutput({"out0", api::Value(2.0)}), "out0: float 2.0");
  EXPECT_EQ(describeOutput({"out1", api::Value(-3)}), "out1: int -3");
  EXPECT_EQ(describeOutput({"out2", api::Value(true)}), "out2: bool True");
  EXPECT_EQ(describeOutput({"out3", api::Value()}), "out3: None None");
}

TEST(Json, WritesNestedValues) {
  JsonWriter j;
  j.beginObject();
  j.key("name").value("a\"b\n");
  j.key("shape").intArray({2, 3});
  j.key("t").beginObject().key("median").value(1.5).key("nan").value(std::nan("")).endObject();
  j.key("ok").value(true);
  j.key("empty").beginArray().endArray();
  j.endObject();
  EXPECT_EQ(j.str(),
            "{\"name\": \"a\\\"b\\n\", \"shape\": [2, 3], \"t\": {\"median\": 1.5, \"nan\": null}, "
            "\"ok\": true, \"empty\": []}");
}

}  // namespace
}  // namespace stitch::cli
