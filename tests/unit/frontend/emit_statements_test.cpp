// Emission of straight-line statements, operators, calls and subscripts,
// checked on the graph's structure.
#include <cmath>

#include "frontend_test_util.h"

namespace stitch {
namespace {

using testing::blockKinds;
using testing::constantInput;
using testing::countNodes;
using testing::emitSource;
using testing::findNodes;

int64_t intAt(const Node* n, size_t i) {
  const Constant* c = constantInput(n, i);
  EXPECT_TRUE(c && c->isInt()) << n->kind() << " input " << i;
  return c && c->isInt() ? c->toInt() : INT64_MIN;
}

TEST(EmitStatements, NormalizeSelectsAndCopiesThroughViews) {
  auto g = emitSource(
      "import torch\n"
      "def normalize(src: torch.Tensor, mean: float, scale: float) -> torch.Tensor:\n"
      "    src = src.clone()\n"
      "    dup = src.clone()\n"
      "    dup[..., 0] = src[..., 2]\n"
      "    dup[..., 2] = src[..., 0]\n"
      "    return (dup - mean) * scale\n");
  EXPECT_EQ(g->name(), "normalize");
  ASSERT_EQ(g->inputs().size(), 3u);
  EXPECT_TRUE(g->inputs()[0]->type()->isTensor());
  EXPECT_EQ(g->inputs()[1]->type()->kind(), TypeKind::Float);
  // The stored value goes through prim.setitem_value (eager's setitem rule).
  std::vector<std::string> expected = {"clone",  "clone",  "select", "select", "prim.setitem_value", "copy_",
                                       "select", "select", "prim.setitem_value", "copy_", "sub", "mul"};
  EXPECT_EQ(blockKinds(g->top()), expected);
  auto selects = findNodes(*g, "select");
  EXPECT_EQ(intAt(selects[0], 1), -1);
  EXPECT_EQ(intAt(selects[0], 2), 2);
  EXPECT_EQ(intAt(selects[1], 2), 0);
  auto copies = findNodes(*g, "copy_");
  EXPECT_EQ(copies[0]->input(0), selects[1]->output());
  EXPECT_TRUE(copies[0]->input(1)->node()->is("prim.setitem_value"));
  EXPECT_EQ(copies[0]->input(1)->node()->input(0), selects[0]->output());
  // The written view is of `dup`, the clone of the clone.
  EXPECT_EQ(selects[1]->input(0)->debugName(), "dup");
  // Locations: the copy at the assignment target, sub at its operator.
  EXPECT_EQ(copies[0]->loc().str(), "test.py:5:5");
  EXPECT_EQ(findNodes(*g, "sub")[0]->loc().str(), "test.py:7:17");
  ASSERT_EQ(g->outputs().size(), 1u);
  EXPECT_TRUE(g->outputs()[0]->node()->is("mul"));
}

TEST(EmitStatements, IndexElementsBecomeViewsInOrder) {
  auto g = emitSource(
      "def f(x, i: int):\n"
      "    return x[None, 1:, ::2, i, :, ..., -1]\n");
  std::vector<std::string> expected = {"unsqueeze", "slice", "slice", "select", "select"};
  EXPECT_EQ(blockKinds(g->top()), expected);
  auto unsq = findNodes(*g, "unsqueeze")[0];
  EXPECT_EQ(intAt(unsq, 1), 0);
  auto slices = findNodes(*g, "slice");
  EXPECT_EQ(intAt(slices[0], 1), 1);  // dim after the new one
  EXPECT_EQ(intAt(slices[0], 2), 1);  // start
  EXPECT_TRUE(constantInput(slices[0], 3)->isNone());
  EXPECT_EQ(intAt(slices[1], 1), 2);
  EXPECT_EQ(intAt(slices[1], 4), 2);  // step
  auto selects = findNodes(*g, "select");
  EXPECT_EQ(intAt(selects[0], 1), 3);
  EXPECT_EQ(selects[0]->input(2), g->inputs()[1]);
  EXPECT_EQ(intAt(selects[1], 1), -1);  // after '...': from the end
  EXPECT_EQ(intAt(selects[1], 2), -1);
}

TEST(EmitStatements, SubscriptAssignmentForms) {
  auto g = emitSource(
      "def f(x, z, i: int):\n"
      "    x[:, :, i, :] += z\n"
      "    x[0] = 2.5\n"
      "    x[:] = z\n"
      "    x[1, ...] -= 1\n");
  // Augmented assignment writes in place (no setitem rule, as in PyTorch).
  std::vector<std::string> expected = {"select", "add_", "select", "fill_", "prim.setitem_value",
                                       "copy_",  "select", "sub_"};
  EXPECT_EQ(blockKinds(g->top()), expected);
  auto selects = findNodes(*g, "select");
  EXPECT_EQ(intAt(selects[0], 1), 2);
  auto copy = findNodes(*g, "copy_")[0];
  EXPECT_EQ(copy->input(0), g->inputs()[0]);  // x[:] is x itself
}

TEST(EmitStatements, AugmentedAssignmentIsInPlaceOnTensorsAndRebindsScalars) {
  auto g = emitSource(
      "def f(x, y, n: int):\n"
      "    x += y\n"
      "    x *= 2\n"
      "    n += 1\n"
      "    n //= 2\n"
      "    return x, n\n");
  std::vector<std::string> expected = {"add_", "mul_", "scalar.add", "scalar.floordiv"};
  EXPECT_EQ(blockKinds(g->top()), expected);
  ASSERT_EQ(g->outputs().size(), 2u);
  EXPECT_TRUE(g->outputs()[0]->node()->is("mul_"));
  EXPECT_EQ(g->outputs()[1]->type()->kind(), TypeKind::Int);
}

TEST(EmitStatements, ScalarFirstOperatorsUseReversedOps) {
  auto g = emitSource(
      "def f(x):\n"
      "    a = 2 - x\n"
      "    b = 2 / x\n"
      "    c = 2 ** x\n"
      "    d = 2 + x\n"
      "    e = 3 * x\n"
      "    m = 2 < x\n"
      "    return a, b, c, d, e, m, -x, ~m, x @ x, x // 2, x % 3\n");
  std::vector<std::string> expected = {"rsub",   "rdiv",         "rpow",     "add",
                                       "mul",    "gt",           "neg",      "bitwise_not",
                                       "matmul", "floor_divide", "remainder"};
  EXPECT_EQ(blockKinds(g->top()), expected);
  for (const char* k : {"rsub", "rdiv", "rpow", "add", "mul", "gt"}) {
    const Node* n = findNodes(*g, k)[0];
    EXPECT_EQ(n->input(0), g->inputs()[0]) << k;
  }
  EXPECT_EQ(g->outputs().size(), 11u);
}

TEST(EmitStatements, ScalarArithmeticAndComparisons) {
  auto g = emitSource(
      "def f(a: int, b: float):\n"
      "    c = a / a\n"
      "    d = a // 2 + a % 3 - a\n"
      "    e = 0 <= a < 10\n"
      "    g = max(a, 3) + min(b, 1.0) + abs(-b)\n"
      "    return c, d, e, g, -a, not e\n");
  EXPECT_EQ(countNodes(*g, "scalar.truediv"), 1);
  EXPECT_EQ(countNodes(*g, "scalar.le"), 1);
  EXPECT_EQ(countNodes(*g, "scalar.lt"), 1);
  EXPECT_EQ(countNodes(*g, "scalar.and"), 1);
  EXPECT_EQ(countNodes(*g, "scalar.max"), 1);
  EXPECT_EQ(countNodes(*g, "scalar.min"), 1);
  EXPECT_EQ(countNodes(*g, "scalar.neg"), 2);
  EXPECT_EQ(countNodes(*g, "scalar.not"), 1);
  EXPECT_EQ(g->outputs()[0]->type()->kind(), TypeKind::Float);
  EXPECT_EQ(g->outputs()[1]->type()->kind(), TypeKind::Int);
  EXPECT_EQ(g->outputs()[2]->type()->kind(), TypeKind::Bool);
}

TEST(EmitStatements, ConstantsFoldAndAreShared) {
  auto g = emitSource(
      "import math\n"
      "def f(x):\n"
      "    return x * (2 * 3 - 1) + -4 + math.pi + math.sqrt(4.0) + x.size(-1)\n");
  std::vector<double> values;
  for (const Node* n : findNodes(*g, "prim.constant"))
    if (n->attr("value").isFloat() || n->attr("value").isInt())
      values.push_back(n->attr("value").toDouble());
  auto has = [&](double v) { return std::find(values.begin(), values.end(), v) != values.end(); };
  EXPECT_TRUE(has(5));
  EXPECT_TRUE(has(-4));
  EXPECT_TRUE(has(M_PI));
  EXPECT_TRUE(has(2.0));
  EXPECT_TRUE(has(-1));
  EXPECT_EQ(countNodes(*g, "scalar.mul"), 0);
}

TEST(EmitStatements, KeywordArgumentsDefaultsAndDtypes) {
  auto g = emitSource(
      "import torch\n"
      "def f(x):\n"
      "    a = x.sum(dim=1, keepdim=True)\n"
      "    b = torch.zeros(2, 3, dtype=torch.float64)\n"
      "    c = x.view(2, -1).permute(1, 0).float().to(torch.int64)\n"
      "    d = torch.tensor(3.0)\n"
      "    e = torch.softmax(x, -1)\n"
      "    return a, b, c, d, e\n");
  const Node* sum = findNodes(*g, "sum")[0];
  ASSERT_EQ(sum->inputs().size(), 4u);  // self, dim, keepdim, dtype
  EXPECT_EQ(constantInput(sum, 1)->toIntList(), std::vector<int64_t>({1}));
  EXPECT_TRUE(constantInput(sum, 2)->toBool());
  EXPECT_TRUE(constantInput(sum, 3)->isNone());
  const Node* zeros = findNodes(*g, "zeros")[0];
  EXPECT_EQ(constantInput(zeros, 0)->toIntList(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(constantInput(zeros, 1)->toDType(), DType::f64);
  EXPECT_EQ(constantInput(findNodes(*g, "view")[0], 1)->toIntList(), std::vector<int64_t>({2, -1}));
  auto tos = findNodes(*g, "to");
  ASSERT_EQ(tos.size(), 2u);
  EXPECT_EQ(constantInput(tos[0], 1)->toDType(), DType::f32);
  EXPECT_EQ(constantInput(tos[1], 1)->toDType(), DType::i64);
  EXPECT_EQ(countNodes(*g, "scalar_tensor"), 1);
  const Node* softmax = findNodes(*g, "softmax")[0];
  EXPECT_TRUE(constantInput(softmax, 2)->isNone());
}

TEST(EmitStatements, TensorToScalarConversionsAndShapes) {
  auto g = emitSource(
      "def f(x, l: List[int], n: int):\n"
      "    return int(x), float(n), bool(x), len(l), x.shape[0], x.shape, x.dim(), x.numel()\n");
  std::vector<std::string> expected = {
      "item.int", "scalar.to_float", "item.bool", "list.len", "size", "size", "dim", "numel"};
  EXPECT_EQ(blockKinds(g->top()), expected);
  EXPECT_EQ(g->outputs()[5]->type()->kind(), TypeKind::List);
}

TEST(EmitStatements, TupleUnpackingOfChunkAndOfTuples) {
  auto g = emitSource(
      "def f(gates):\n"
      "    i, f, g, o = gates.chunk(4, 1)\n"
      "    a, b = (i, f)\n"
      "    b, a = a, b\n"
      "    return a + b + g + o\n");
  auto unpack = findNodes(*g, "prim.list_unpack");
  ASSERT_EQ(unpack.size(), 1u);
  EXPECT_EQ(unpack[0]->outputs().size(), 4u);
  EXPECT_EQ(unpack[0]->output(0)->debugName(), "i");
  // After the swap, a is f and b is i.
  const Node* first = findNodes(*g, "add")[0];
  EXPECT_EQ(first->input(0), unpack[0]->output(1));
  EXPECT_EQ(first->input(1), unpack[0]->output(0));
}

TEST(EmitStatements, ListsAppendSetAndAliases) {
  auto g = emitSource(
      "def f(x):\n"
      "    a = [x]\n"
      "    b = a\n"
      "    b.append(x + 1)\n"
      "    a[0] = x * 2\n"
      "    return b, a[1], a[-2:]\n");
  EXPECT_EQ(countNodes(*g, "list.append"), 1);
  const Node* set = findNodes(*g, "list.set")[0];
  EXPECT_EQ(set->input(0), findNodes(*g, "list.append")[0]->output());
  // b sees a's element assignment: the same list value.
  EXPECT_EQ(g->outputs()[0], set->output());
  EXPECT_EQ(findNodes(*g, "list.get")[0]->input(0), set->output());
  EXPECT_EQ(countNodes(*g, "list.slice"), 1);
}

TEST(EmitStatements, InlinedCallsBindArgumentsAndPropagateListMutation) {
  auto g = emitSource(
      "from typing import List, Optional\n"
      "import torch\n"
      "def push(l: List[torch.Tensor], x: torch.Tensor, scale: float = 2.0):\n"
      "    l.append(x * scale)\n"
      "def add_bias(x, bias: Optional[torch.Tensor] = None):\n"
      "    if bias is not None:\n"
      "        return x + bias\n"
      "    return x\n"
      "def main(x, y):\n"
      "    outs = []\n"
      "    push(outs, x)\n"
      "    push(outs, y, scale=3.0)\n"
      "    return outs, add_bias(x), add_bias(x, bias=y)\n");
  EXPECT_EQ(g->name(), "main");
  EXPECT_EQ(countNodes(*g, "list.append"), 2);
  EXPECT_EQ(g->outputs()[0], findNodes(*g, "list.append")[1]->output());
  auto muls = findNodes(*g, "mul");
  EXPECT_DOUBLE_EQ(constantInput(muls[0], 1)->toDouble(), 2.0);
  EXPECT_DOUBLE_EQ(constantInput(muls[1], 1)->toDouble(), 3.0);
  EXPECT_EQ(g->outputs()[1], g->inputs()[0]);  // bias None: the branch folded away
  EXPECT_TRUE(g->outputs()[2]->node()->is("add"));
  EXPECT_EQ(countNodes(*g, "prim.if"), 0);
}

TEST(EmitStatements, FunctionSignaturesListTypes) {
  auto module = SourceModule::parse(
      "from typing import List, Tuple\n"
      "def a(x, n: int, l: List[float]):\n    return x\n"
      "def b(t: Tuple[int, bool]) -> int:\n    return 1\n",
      "test.py");
  auto fns = module->functions();
  ASSERT_EQ(fns.size(), 2u);
  EXPECT_EQ(fns[0].argNames, std::vector<std::string>({"x", "n", "l"}));
  EXPECT_TRUE(fns[0].argTypes[0]->isTensor());
  EXPECT_EQ(fns[0].argTypes[2]->str(), Type::list(Type::floatT())->str());
  EXPECT_EQ(fns[1].argTypes[0]->kind(), TypeKind::Tuple);
  EXPECT_EQ(fns[1].loc.line, 4);
  // The default entry is the last function.
  EXPECT_EQ(module->emit("")->name(), "b");
  EXPECT_EQ(module->emit("a")->name(), "a");
}

TEST(EmitStatements, AssertBecomesAGuardedRaise) {
  auto g = emitSource("def f(n: int):\n    assert n > 0, 'positive'\n    return n\n");
  ASSERT_EQ(countNodes(*g, "prim.if"), 1);
  const Node* ifNode = findNodes(*g, "prim.if")[0];
  EXPECT_TRUE(ifNode->block(0)->empty());
  ASSERT_EQ(blockKinds(ifNode->block(1)), std::vector<std::string>({"prim.raise"}));
  EXPECT_NE(constantInput(ifNode->block(1)->front(), 0)->toStr().find("positive"),
            std::string::npos);
}

}  // namespace
}  // namespace stitch

namespace stitch {
namespace {

TEST(EmitStatements, ModuleAliasesReachTorchFunctions) {
  auto g = testing::emitSource(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from torch import nn\n"
      "def f(x):\n"
      "    return F.relu(x) + nn.functional.softmax(x, dim=-1) + torch.nn.functional.gelu(x)\n");
  EXPECT_EQ(testing::countNodes(*g, "relu"), 1);
  EXPECT_EQ(testing::countNodes(*g, "softmax"), 1);
  EXPECT_EQ(testing::countNodes(*g, "gelu"), 1);
}

TEST(EmitStatements, VariablesShadowModuleNames) {
  auto g = testing::emitSource(
      "import torch.nn.functional as F\n"
      "def f(x, F):\n"
      "    return F.exp()\n");
  EXPECT_EQ(testing::countNodes(*g, "exp"), 1);
}

}  // namespace
}  // namespace stitch

namespace stitch {
namespace {

TEST(EmitStatements, MultiOutputOpsBecomeTuples) {
  auto g = testing::emitSource(
      "def f(x):\n"
      "    v, i = x.max(1)\n"
      "    return v, i, x.min(dim=0).values, x.max(0, True)[1]\n");
  auto maxes = testing::findNodes(*g, "max");
  ASSERT_EQ(maxes.size(), 2u);
  ASSERT_EQ(g->outputs().size(), 4u);
  EXPECT_EQ(g->outputs()[0], maxes[0]->output(0));
  EXPECT_EQ(g->outputs()[1], maxes[0]->output(1));
  EXPECT_EQ(g->outputs()[2], testing::findNodes(*g, "min")[0]->output(0));
  EXPECT_EQ(g->outputs()[3], maxes[1]->output(1));
  EXPECT_EQ(testing::countNodes(*g, "prim.tuple_construct"), 0);  // unpacked statically
}

}  // namespace
}  // namespace stitch

namespace stitch {
namespace {

TEST(EmitStatements, RaiseBecomesPrimRaiseWithItsMessage) {
  auto g = testing::emitSource(
      "def f(x, n: int):\n"
      "    if n < 0:\n"
      "        raise ValueError('n must not be negative')\n"
      "    return x * n\n");
  auto raises = testing::findNodes(*g, "prim.raise");
  ASSERT_EQ(raises.size(), 1u);
  EXPECT_EQ(raises[0]->owningNode()->kind(), "prim.if");
  EXPECT_EQ(testing::constantInput(raises[0], 0)->toStr(), "ValueError: n must not be negative");
  EXPECT_EQ(raises[0]->loc().str(), "test.py:3:9");
  EXPECT_TRUE(g->outputs()[0]->node()->is("mul"));
}

}  // namespace
}  // namespace stitch
