// specialize-lists: a list input of known length and element types is
// rebuilt from exactly typed elements behind a run-time guard; a run on a
// list of another length or other element shapes fails with a clear message
// instead of computing something else.
#include "unroll_test_util.h"

namespace stitch::unroll_test {
namespace {

const char* const kScales = R"(
def f(xs: List[torch.Tensor], ys: List[torch.Tensor], w: float):
    out: List[torch.Tensor] = []
    s = 8.0
    for x, y in zip(xs, ys):
        out.append(torch.clamp(x * s + torch.exp(y), max=w))
        s = s * 2.0
    return torch.cat(out, 0)
)";

Program scales() {
  return Program{"scales", kScales, {TL({{6, 4}, {3, 4}, {2, 4}}), TL({{6, 4}, {3, 4}, {2, 4}}), F(5.0)}};
}

std::unique_ptr<Graph> compiled(const Program& p) {
  std::unique_ptr<Graph> g = functionalGraph(*specialized(p));
  specializeAndUnroll(*g, exactListTypes(p));
  verifyGraph(*g);
  return g;
}

IValue tensorList(const std::vector<std::vector<int64_t>>& shapes) {
  IValueList elems;
  for (const auto& s : shapes) elems.push_back(IValue(functionalize_test::randomTensor(s, DType::f32)));
  return IValue::list(std::move(elems));
}

// The run-time failure interpreting g on these inputs gives ("" if none).
std::string failureOn(const Graph& g, const IValueList& inputs) {
  try {
    interpret(g, inputs);
  } catch (const RuntimeFailure& e) {
    return e.message();
  } catch (const UserError& e) {
    return e.formatted();
  }
  return "";
}

TEST(SpecializeLists, LoopOverListsBecomesStaticCode) {
  Program p = scales();
  std::unique_ptr<Graph> imperative = specialized(p);
  EXPECT_EQ(imperative->inputs()[0]->type()->str(), "List[f32[?,4]]");
  std::unique_ptr<Graph> g = compiled(p);
  expectSameOutputs(p, *imperative, *g);
  EXPECT_EQ(countKind(g->top(), "prim.loop"), 0u);
  std::string first;
  EXPECT_TRUE(allTensorsStatic(g->top(), first)) << first;
  EXPECT_EQ(g->outputs()[0]->type()->str(), "f32[11,4]");
  // The calling convention is unchanged: the inputs are still the lists.
  EXPECT_EQ(g->inputs()[0]->type()->str(), "List[f32[?,4]]");
}

TEST(SpecializeLists, OtherLengthFailsClearly) {
  std::unique_ptr<Graph> g = compiled(scales());
  for (const auto& shapes : std::vector<std::vector<std::vector<int64_t>>>{
           {{6, 4}, {3, 4}}, {{6, 4}, {3, 4}, {2, 4}, {1, 4}}}) {
    IValueList inputs{tensorList(shapes), tensorList({{6, 4}, {3, 4}, {2, 4}}), IValue(5.0)};
    std::string message = failureOn(*g, inputs);
    EXPECT_NE(message.find("input 'xs' was compiled for a list of 3 elements"), std::string::npos)
        << "length " << shapes.size() << ": '" << message << "'";
  }
}

TEST(SpecializeLists, OtherElementShapeFailsClearly) {
  std::unique_ptr<Graph> g = compiled(scales());
  IValueList inputs{tensorList({{6, 4}, {3, 4}, {2, 4}}), tensorList({{6, 4}, {4, 4}, {2, 4}}),
                    IValue(5.0)};
  std::string message = failureOn(*g, inputs);
  EXPECT_NE(message.find("input 'ys' was compiled for a list of 3 elements (f32[6,4], f32[3,4], "
                         "f32[2,4])"),
            std::string::npos)
      << message;
  // The same shapes run.
  inputs[1] = tensorList({{6, 4}, {3, 4}, {2, 4}});
  EXPECT_EQ(failureOn(*g, inputs), "");
}

TEST(SpecializeLists, ElementBreakingTheListTypeFails) {
  // The list's static type knows the trailing dims; a tensor that has them
  // permuted (same element count, same leading dim) must not be read as if
  // it had the exact shape.
  Program p{"rank3", R"(
def f(xs: List[torch.Tensor]):
    out: List[torch.Tensor] = []
    for x in xs:
        out.append(x.sum(1))
    return torch.cat(out, 0)
)", {TL({{6, 2, 3}, {1, 2, 3}})}};
  std::unique_ptr<Graph> imperative = specialized(p);
  std::unique_ptr<Graph> g = compiled(p);
  expectSameOutputs(p, *imperative, *g);
  EXPECT_NE(failureOn(*g, {tensorList({{6, 3, 2}, {1, 2, 3}})}), "");
  EXPECT_NE(failureOn(*g, {tensorList({{6, 2, 3}, {1, 2, 4}})}), "");
  EXPECT_NE(failureOn(*g, {tensorList({{6, 1, 3}, {1, 2, 3}})}), "");  // would broadcast
  EXPECT_NE(failureOn(*g, {tensorList({{6, 2, 3}, {2, 2, 3}})}), "");
  EXPECT_EQ(failureOn(*g, {tensorList({{6, 2, 3}, {1, 2, 3}})}), "");
}

TEST(SpecializeLists, ScalarListUnrollsToo) {
  const char* source = R"(
import torch
from typing import List

def f(xs: List[torch.Tensor], strides: List[float]):
    out: List[torch.Tensor] = []
    for x, s in zip(xs, strides):
        out.append(x * s)
    return torch.cat(out, 0)
)";
  auto imperative = SourceModule::parse(source, "strides.py")->emit("");
  inferShapes(*imperative, {Type::list(Type::tensor(DType::f32, std::vector<int64_t>{-1, 2})),
                            Type::list(Type::floatT())});
  std::unique_ptr<Graph> g = functionalGraph(*imperative);
  ListInputTypes lists{std::vector<TypePtr>{Type::tensor(DType::f32, std::vector<int64_t>{3, 2}),
                                            Type::tensor(DType::f32, std::vector<int64_t>{1, 2})},
                       std::vector<TypePtr>{Type::floatT(), Type::floatT()}};
  specializeAndUnroll(*g, lists);
  verifyGraph(*g);
  EXPECT_EQ(countKind(g->top(), "prim.loop"), 0u);
  EXPECT_EQ(g->outputs()[0]->type()->str(), "f32[4,2]");
  for (int round = 0; round < 3; ++round) {
    IValueList inputs{tensorList({{3, 2}, {1, 2}}),
                      IValue::list({IValue(0.5 + round), IValue(-2.0 * round)})};
    IValueList expected = interpret(*imperative, inputs);
    IValueList got = interpret(*g, inputs);
    EXPECT_TRUE(functionalize_test::sameValue(expected[0], got[0]));
  }
  // Three strides for two tensors: zip would stop early, the guard does not
  // let the compiled program guess.
  IValueList longer{tensorList({{3, 2}, {1, 2}}), IValue::list({IValue(1.0), IValue(2.0), IValue(3.0)})};
  EXPECT_NE(failureOn(*g, longer).find("input 'strides'"), std::string::npos);
}

TEST(SpecializeLists, UnknownElementTypesLeaveTheGraphAlone) {
  Program p = scales();
  std::unique_ptr<Graph> g = functionalGraph(*specialized(p));
  std::string before = printGraph(*g);
  EXPECT_FALSE(specializeListInputs(*g, {}));
  EXPECT_FALSE(specializeListInputs(*g, {std::nullopt, std::nullopt, std::nullopt}));
  // Element types that do not fit the list's type are not guessed at.
  ListInputTypes wrongDtype{std::vector<TypePtr>{Type::tensor(DType::i64, std::vector<int64_t>{6, 4})},
                            std::nullopt, std::nullopt};
  EXPECT_FALSE(specializeListInputs(*g, wrongDtype));
  EXPECT_EQ(printGraph(*g), before);
}

TEST(SpecializeLists, ConstantIndexGetsTheExactElement) {
  Program p{"index", R"(
def f(xs: List[torch.Tensor]):
    return xs[0].sum(0) + xs[-1].sum(0) * len(xs)
)", {TL({{5, 3}, {2, 3}})}};
  std::unique_ptr<Graph> imperative = specialized(p);
  std::unique_ptr<Graph> g = compiled(p);
  expectSameOutputs(p, *imperative, *g);
  EXPECT_EQ(countKind(g->top(), "list.len"), 1u);  // the guard's own
  std::string first;
  EXPECT_TRUE(allTensorsStatic(g->top(), first)) << first;
}

}  // namespace
}  // namespace stitch::unroll_test
