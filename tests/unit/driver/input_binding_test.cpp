#include "driver/input_binding.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "driver/random_inputs.h"
#include "test_util.h"

namespace stitch {
namespace {

using testing::freshSeed;

FunctionSignature signature(std::vector<std::pair<std::string, TypePtr>> params) {
  FunctionSignature fn;
  fn.name = "f";
  for (auto& [name, type] : params) {
    fn.argNames.push_back(name);
    fn.argTypes.push_back(type);
  }
  return fn;
}

InputSources specs(std::vector<std::string> texts, uint64_t seed = 0) {
  InputSources s;
  for (const std::string& t : texts) s.specs.push_back(parseNamedInputSpec(t));
  s.seed = seed;
  return s;
}

std::string errorOf(const FunctionSignature& fn, const InputSources& sources) {
  try {
    bindInputs(fn, sources);
  } catch (const UserError& e) {
    return e.message();
  }
  return "";
}

TEST(RandomInputs, RangesAndDeterminism) {
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  InputRandom a(seed), b(seed), c(seed + 1);
  Tensor fa = a.tensor(DType::f32, {1000});
  Tensor fb = b.tensor(DType::f32, {1000});
  Tensor fc = c.tensor(DType::f32, {1000});
  double lo = 1, hi = -1;
  bool differs = false;
  for (int64_t i = 0; i < 1000; ++i) {
    double v = fa.getDouble(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    EXPECT_EQ(v, fb.getDouble(i));
    differs |= v != fc.getDouble(i);
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);  // 1000 draws cover the range
  EXPECT_GT(hi, 0.9);
  EXPECT_TRUE(differs);

  Tensor ints = a.tensor(DType::i64, {1000});
  std::vector<int> seen(10, 0);
  for (int64_t i = 0; i < 1000; ++i) {
    int64_t v = ints.getInt(i);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 10);
    seen[v]++;
  }
  for (int count : seen) EXPECT_GT(count, 0);
  Tensor bools = a.tensor(DType::b8, {200});
  int64_t trues = 0;
  for (int64_t i = 0; i < 200; ++i) trues += bools.getInt(i);
  EXPECT_GT(trues, 0);
  EXPECT_LT(trues, 200);
}

TEST(RandomInputs, MatchesTheDocumentedGenerator) {
  uint64_t seed = freshSeed();
  std::mt19937_64 engine(seed);
  Tensor t = InputRandom(seed).tensor(DType::f64, {4});
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(t.getDouble(i), (double)(engine() >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

TEST(InputBinding, BindsTensorsAndTypesScalarsByAnnotation) {
  FunctionSignature fn = signature({{"src", Type::tensor()}, {"mean", Type::floatT()},
                                    {"n", Type::intT()}, {"flag", Type::boolT()}});
  BoundInputs in = bindInputs(fn, specs({"flag=true", "src=f32[4,5,3]", "mean=2", "n=-3"}));
  ASSERT_EQ(in.values.size(), 4u);
  ASSERT_TRUE(in.values[0].isTensor());
  EXPECT_EQ(in.values[0].toTensor().sizes(), (Shape{4, 5, 3}));
  EXPECT_EQ(in.types[0]->str(), Type::tensor(DType::f32, Shape{4, 5, 3})->str());
  ASSERT_TRUE(in.values[1].isDouble());  // an int literal for a float parameter
  EXPECT_EQ(in.values[1].toDouble(), 2.0);
  EXPECT_EQ(in.types[1]->kind(), TypeKind::Float);
  ASSERT_TRUE(in.values[2].isInt());
  EXPECT_EQ(in.values[2].toInt(), -3);
  ASSERT_TRUE(in.values[3].isBool());
  EXPECT_TRUE(in.values[3].toBool());
}

TEST(InputBinding, RandomValuesFollowParameterOrderAndSeed) {
  uint64_t seed = freshSeed();
  FunctionSignature fn = signature({{"a", Type::tensor()}, {"b", Type::tensor()}});
  BoundInputs one = bindInputs(fn, specs({"a=f32[3]", "b=f32[2]"}, seed));
  BoundInputs other = bindInputs(fn, specs({"b=f32[2]", "a=f32[3]"}, seed));
  InputRandom expected(seed);
  Tensor a = expected.tensor(DType::f32, {3});
  Tensor b = expected.tensor(DType::f32, {2});
  testing::expectSameTensor(one.values[0].toTensor(), a);
  testing::expectSameTensor(one.values[1].toTensor(), b);
  testing::expectSameTensor(other.values[0].toTensor(), a);
}

TEST(InputBinding, ListsOfTensors) {
  FunctionSignature fn = signature({{"xs", Type::list(Type::tensor())}});
  BoundInputs in = bindInputs(fn, specs({"xs=[f32[2,3],f32[4]]"}));
  ASSERT_TRUE(in.values[0].isList());
  ASSERT_EQ(in.values[0].toList().size(), 2u);
  EXPECT_EQ(in.values[0].toList()[1].toTensor().sizes(), (Shape{4}));
  EXPECT_EQ(in.types[0]->kind(), TypeKind::List);
}

TEST(InputBinding, ReadsArraysIncludingListMembers) {
  std::mt19937_64 rng(freshSeed());
  FunctionSignature fn = signature({{"x", Type::tensor()}, {"xs", Type::list(Type::tensor())},
                                    {"scale", Type::floatT()}});
  InputSources s;
  s.arraysFile = "in.npz";
  Tensor x = testing::randomTensor(rng, DType::f64, {2, 2});
  Tensor x0 = testing::randomTensor(rng, DType::f32, {3});
  Tensor x1 = testing::randomTensor(rng, DType::i64, {1, 2});
  Tensor scale = testing::randomTensor(rng, DType::f32, {});
  s.arrays = {{"xs_1", x1}, {"x", x}, {"xs_0", x0}, {"scale", scale}};
  BoundInputs in = bindInputs(fn, s);
  testing::expectSameTensor(in.values[0].toTensor(), x);
  ASSERT_EQ(in.values[1].toList().size(), 2u);
  testing::expectSameTensor(in.values[1].toList()[0].toTensor(), x0);
  testing::expectSameTensor(in.values[1].toList()[1].toTensor(), x1);
  EXPECT_EQ(in.values[2].toDouble(), scale.item());
}

TEST(InputBinding, Errors) {
  FunctionSignature fn = signature({{"x", Type::tensor()}, {"n", Type::intT()}});
  EXPECT_NE(errorOf(fn, specs({"x=f32[2]"})).find(
                "missing input 'n' (give --input n=SPEC or --inputs FILE)"),
            std::string::npos);
  EXPECT_NE(errorOf(fn, specs({"x=f32[2]", "n=1", "y=2"})).find("unknown input 'y'"),
            std::string::npos);
  EXPECT_NE(errorOf(fn, specs({"x=f32[2]", "n=1", "n=2"})).find("given twice"), std::string::npos);
  EXPECT_NE(errorOf(fn, specs({"x=2", "n=1"})).find("input 'x'"), std::string::npos);
  EXPECT_NE(errorOf(fn, specs({"x=f32[2]", "n=f32[3]"})).find("input 'n'"), std::string::npos);
  EXPECT_NE(errorOf(fn, specs({"x=f32[2]", "n=0.5"})).find("input 'n'"), std::string::npos);
  EXPECT_NE(errorOf(fn, specs({"x=f32[2]", "n=true"})).find("input 'n'"), std::string::npos);

  InputSources both = specs({"x=f32[2]", "n=1"});
  both.arraysFile = "in.npz";
  both.arrays = {{"x", Tensor::empty({2}, DType::f32)}};
  EXPECT_NE(errorOf(fn, both).find("given both"), std::string::npos);

  InputSources extra = specs({"x=f32[2]", "n=1"});
  extra.arraysFile = "in.npz";
  extra.arrays = {{"zz", Tensor::empty({2}, DType::f32)}};
  EXPECT_NE(errorOf(fn, extra).find("unknown input 'zz'"), std::string::npos);

  InputSources floatForInt = specs({"x=f32[2]"});
  floatForInt.arraysFile = "in.npz";
  floatForInt.arrays = {{"n", Tensor::empty({}, DType::f32)}};
  EXPECT_NE(errorOf(fn, floatForInt).find("'n'"), std::string::npos);
}

TEST(InputBinding, TypesOnlyBindingKeepsAnnotationsForMissingInputs) {
  FunctionSignature fn = signature({{"x", Type::tensor()}, {"n", Type::intT()}});
  std::vector<TypePtr> types = bindInputTypes(fn, specs({"x=f32[100000,100000]"}));
  EXPECT_EQ(types[0]->str(), Type::tensor(DType::f32, Shape{100000, 100000})->str());
  EXPECT_EQ(types[1]->kind(), TypeKind::Int);
}

TEST(InputBinding, CloneValuesCopiesTensorsDeeply) {
  std::mt19937_64 rng(freshSeed());
  Tensor t = testing::randomTensor(rng, DType::f32, {3});
  IValueList values = {IValue(t), IValue::list({IValue(t)})};
  IValueList copy = cloneValues(values);
  EXPECT_FALSE(copy[0].toTensor().sameStorage(t));
  EXPECT_FALSE(copy[1].toList()[0].toTensor().sameStorage(t));
  testing::expectSameTensor(copy[1].toList()[0].toTensor(), t);
}

}  // namespace
}  // namespace stitch
