// --input specs and --inputs arrays bound to a function's parameters, and
// the random tensors behind the specs.
#include "input_binding.h"

#include <gtest/gtest.h>

#include <map>

#include "cli_test_util.h"
#include "random_inputs.h"

namespace stitch::cli {
namespace {

using testing::freshSeed;

const char* const kSource = R"(import torch
from typing import List, Tuple

def scalars(src: torch.Tensor, mean: float, n: int, flag: bool) -> torch.Tensor:
    return src

def pair(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a

def total(xs: List[torch.Tensor]) -> torch.Tensor:
    return xs[0]

def mixed(x: torch.Tensor, xs: List[torch.Tensor], scale: float) -> torch.Tensor:
    return x

def two(x: torch.Tensor, n: int) -> torch.Tensor:
    return x

def defaults(x: torch.Tensor, eps: float = 0.5, n: int = 2) -> torch.Tensor:
    return x

def tupled(t: Tuple[torch.Tensor, int]) -> torch.Tensor:
    return t[0]
)";

api::Function function(const std::string& name) {
  return api::Module::fromSource(kSource, "binding.py").function(name);
}

InputSources specs(std::vector<std::string> texts, uint64_t seed = 0) {
  InputSources s;
  for (const std::string& t : texts) s.specs.push_back(parseNamedInputSpec(t));
  s.seed = seed;
  return s;
}

std::map<std::string, api::Value> bind(const api::Function& fn, const InputSources& sources) {
  std::map<std::string, api::Value> byName;
  for (auto& [name, value] : bindInputs(fn, sources)) byName.emplace(name, value);
  return byName;
}

std::string errorOf(const api::Function& fn, const InputSources& sources) {
  try {
    bindInputs(fn, sources);
  } catch (const api::CompileError& e) {
    std::string text = e.what();
    EXPECT_EQ(text.rfind("stitch: error: ", 0), 0u) << text;
    return text;
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

template <typename T>
T elementOf(const api::Tensor& t, int64_t i) {
  return static_cast<const T*>(t.data)[i];
}

TEST(RandomInputs, RangesAndDeterminism) {
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  InputRandom a(seed), b(seed), c(seed + 1);
  api::Tensor fa = a.tensor(api::DType::f32, {1000});
  api::Tensor fb = b.tensor(api::DType::f32, {1000});
  api::Tensor fc = c.tensor(api::DType::f32, {1000});
  double lo = 1, hi = -1;
  bool differs = false;
  for (int64_t i = 0; i < 1000; ++i) {
    double v = elementOf<float>(fa, i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    EXPECT_EQ(v, elementOf<float>(fb, i));
    differs |= v != elementOf<float>(fc, i);
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);  // 1000 draws cover the range
  EXPECT_GT(hi, 0.9);
  EXPECT_TRUE(differs);

  api::Tensor ints = a.tensor(api::DType::i64, {1000});
  std::vector<int> seen(10, 0);
  for (int64_t i = 0; i < 1000; ++i) {
    int64_t v = elementOf<int64_t>(ints, i);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 10);
    seen[v]++;
  }
  for (int count : seen) EXPECT_GT(count, 0);
  api::Tensor bools = a.tensor(api::DType::b8, {200});
  int64_t trues = 0;
  for (int64_t i = 0; i < 200; ++i) trues += elementOf<uint8_t>(bools, i);
  EXPECT_GT(trues, 0);
  EXPECT_LT(trues, 200);
}

// The mapping random_inputs.h documents, draw by draw, for every dtype.
TEST(RandomInputs, MatchesTheDocumentedGenerator) {
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 engine(seed);
  InputRandom random(seed);
  api::Tensor f64 = random.tensor(api::DType::f64, {4});
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(elementOf<double>(f64, i), (double)(engine() >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  api::Tensor f32 = random.tensor(api::DType::f32, {2, 2});
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(elementOf<float>(f32, i), (float)((double)(engine() >> 40) * 0x1.0p-24 * 2.0 - 1.0));
  api::Tensor i32 = random.tensor(api::DType::i32, {3});
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(elementOf<int32_t>(i32, i), (int32_t)(engine() % 10));
  api::Tensor i64 = random.tensor(api::DType::i64, {3});
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(elementOf<int64_t>(i64, i), (int64_t)(engine() % 10));
  api::Tensor bools = random.tensor(api::DType::b8, {3});
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(elementOf<uint8_t>(bools, i), (uint8_t)(engine() >> 63));
}

TEST(InputBinding, BindsTensorsAndTypesScalarsByAnnotation) {
  std::map<std::string, api::Value> in =
      bind(function("scalars"), specs({"flag=true", "src=f32[4,5,3]", "mean=2", "n=-3"}));
  ASSERT_EQ(in.size(), 4u);
  ASSERT_EQ(in["src"].kind(), api::Value::Kind::Tensor);
  EXPECT_EQ(in["src"].tensor().sizes, (std::vector<int64_t>{4, 5, 3}));
  EXPECT_EQ(in["src"].tensor().dtype, api::DType::f32);
  EXPECT_TRUE(in["src"].tensor().contiguous());
  ASSERT_EQ(in["mean"].kind(), api::Value::Kind::Float);  // an int literal for a float parameter
  EXPECT_EQ(in["mean"].toDouble(), 2.0);
  ASSERT_EQ(in["n"].kind(), api::Value::Kind::Int);
  EXPECT_EQ(in["n"].toInt(), -3);
  ASSERT_EQ(in["flag"].kind(), api::Value::Kind::Bool);
  EXPECT_TRUE(in["flag"].toBool());
}

TEST(InputBinding, KeywordsFollowParameterOrder) {
  std::vector<std::pair<std::string, api::Value>> in =
      bindInputs(function("scalars"), specs({"flag=true", "src=f32[2]", "mean=2", "n=-3"}));
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(in[0].first, "src");
  EXPECT_EQ(in[1].first, "mean");
  EXPECT_EQ(in[2].first, "n");
  EXPECT_EQ(in[3].first, "flag");
}

TEST(InputBinding, RandomValuesFollowParameterOrderAndSeed) {
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  api::Function fn = function("pair");
  std::map<std::string, api::Value> one = bind(fn, specs({"a=f32[3]", "b=f32[2]"}, seed));
  std::map<std::string, api::Value> other = bind(fn, specs({"b=f32[2]", "a=f32[3]"}, seed));
  InputRandom expected(seed);
  api::Tensor a = expected.tensor(api::DType::f32, {3});
  api::Tensor b = expected.tensor(api::DType::f32, {2});
  testing::expectSameTensor(one["a"].tensor(), a);
  testing::expectSameTensor(one["b"].tensor(), b);
  testing::expectSameTensor(other["a"].tensor(), a);
}

TEST(InputBinding, ListsOfTensors) {
  std::map<std::string, api::Value> in = bind(function("total"), specs({"xs=[f32[2,3],f32[4]]"}));
  ASSERT_EQ(in["xs"].kind(), api::Value::Kind::List);
  ASSERT_EQ(in["xs"].items().size(), 2u);
  EXPECT_EQ(in["xs"].items()[1].tensor().sizes, (std::vector<int64_t>{4}));
}

TEST(InputBinding, TuplesTakeOneSpecPerElement) {
  std::map<std::string, api::Value> in = bind(function("tupled"), specs({"t=[f32[2],3]"}));
  ASSERT_EQ(in["t"].kind(), api::Value::Kind::Tuple);
  ASSERT_EQ(in["t"].items().size(), 2u);
  EXPECT_EQ(in["t"].items()[1].toInt(), 3);
  EXPECT_TRUE(contains(errorOf(function("tupled"), specs({"t=[f32[2]]"})), "give a list of 2 specs"));
}

TEST(InputBinding, ReadsArraysIncludingListMembers) {
  std::mt19937_64 rng(freshSeed());
  InputSources s;
  s.arraysFile = "in.npz";
  api::Tensor x = testing::randomTensor(rng, api::DType::f64, {2, 2});
  api::Tensor x0 = testing::randomTensor(rng, api::DType::f32, {3});
  api::Tensor x1 = testing::randomTensor(rng, api::DType::i64, {1, 2});
  api::Tensor scale = testing::randomTensor(rng, api::DType::f32, {});
  s.arrays = {{"xs_1", x1}, {"x", x}, {"xs_0", x0}, {"scale", scale}};
  std::map<std::string, api::Value> in = bind(function("mixed"), s);
  EXPECT_EQ(in["x"].tensor().data, x.data);  // the array itself, no copy
  testing::expectSameTensor(in["x"].tensor(), x);
  ASSERT_EQ(in["xs"].items().size(), 2u);
  testing::expectSameTensor(in["xs"].items()[0].tensor(), x0);
  testing::expectSameTensor(in["xs"].items()[1].tensor(), x1);
  EXPECT_EQ(in["scale"].toDouble(), *static_cast<const float*>(scale.data));
}

TEST(InputBinding, DefaultsAreLeftToTheFunction) {
  api::Function fn = function("defaults");
  std::vector<std::pair<std::string, api::Value>> in = bindInputs(fn, specs({"x=f32[2]", "n=5"}));
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].first, "x");
  EXPECT_EQ(in[1].first, "n");
  std::vector<api::Value> args = fn.bind({}, in);
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[1].toDouble(), 0.5);  // eps's default
  EXPECT_EQ(args[2].toInt(), 5);
  EXPECT_TRUE(contains(errorOf(fn, specs({"eps=1"})), "missing input 'x' (give --input x=SPEC or --inputs FILE)"));
}

TEST(InputBinding, Errors) {
  api::Function fn = function("two");
  EXPECT_TRUE(contains(errorOf(fn, specs({"x=f32[2]"})), "missing input 'n' (give --input n=SPEC or --inputs FILE)"));
  EXPECT_TRUE(contains(errorOf(fn, specs({"x=f32[2]", "n=1", "y=2"})), "unknown input 'y'"));
  EXPECT_TRUE(contains(errorOf(fn, specs({"x=f32[2]", "n=1", "y=2"})), "(function two has parameters x, n)"));
  EXPECT_TRUE(contains(errorOf(fn, specs({"x=f32[2]", "n=1", "n=2"})), "given twice"));
  EXPECT_TRUE(contains(errorOf(fn, specs({"x=2", "n=1"})), "input 'x'"));
  EXPECT_TRUE(contains(errorOf(fn, specs({"x=f32[2]", "n=f32[3]"})), "input 'n'"));
  EXPECT_TRUE(contains(errorOf(fn, specs({"x=f32[2]", "n=0.5"})), "input 'n'"));
  EXPECT_TRUE(contains(errorOf(fn, specs({"x=f32[2]", "n=true"})), "input 'n'"));

  InputSources both = specs({"x=f32[2]", "n=1"});
  both.arraysFile = "in.npz";
  both.arrays = {{"x", api::Tensor::empty(api::DType::f32, {2})}};
  EXPECT_TRUE(contains(errorOf(fn, both), "given both"));

  InputSources extra = specs({"x=f32[2]", "n=1"});
  extra.arraysFile = "in.npz";
  extra.arrays = {{"zz", api::Tensor::empty(api::DType::f32, {2})}};
  EXPECT_TRUE(contains(errorOf(fn, extra), "unknown input 'zz'"));

  InputSources floatForInt = specs({"x=f32[2]"});
  floatForInt.arraysFile = "in.npz";
  floatForInt.arrays = {{"n", api::Tensor::empty(api::DType::f32, {})}};
  EXPECT_TRUE(contains(errorOf(fn, floatForInt), "'n'"));

  InputSources notZeroDim = specs({"x=f32[2]"});
  notZeroDim.arraysFile = "in.npz";
  notZeroDim.arrays = {{"n", api::Tensor::empty(api::DType::i64, {2, 3})}};
  EXPECT_TRUE(contains(errorOf(fn, notZeroDim), "must be a 0-dim array, not shape [2, 3]"));
}

TEST(InputBinding, TypesOnlyBindingAllocatesNothingAndLeavesMissingInputsOut) {
  std::vector<std::optional<api::Value>> types = bindInputTypes(function("two"), specs({"x=f32[100000,100000]"}));
  ASSERT_EQ(types.size(), 2u);
  ASSERT_TRUE(types[0].has_value());
  EXPECT_EQ(types[0]->tensor().sizes, (std::vector<int64_t>{100000, 100000}));
  EXPECT_EQ(types[0]->tensor().dtype, api::DType::f32);
  EXPECT_EQ(types[0]->tensor().data, nullptr);
  EXPECT_FALSE(types[1].has_value());  // n keeps its annotation
}

}  // namespace
}  // namespace stitch::cli
