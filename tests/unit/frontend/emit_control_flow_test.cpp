// SSA construction through loops and branches: carried values, if outputs,
// break / continue / early return, loops over lists, zip, enumerate, tuples.
#include "frontend_test_util.h"

namespace stitch {
namespace {

using testing::blockKinds;
using testing::constantInput;
using testing::countNodes;
using testing::emitSource;
using testing::findNodes;

const Node* onlyNode(const Graph& g, const std::string& kind) {
  auto nodes = findNodes(g, kind);
  EXPECT_EQ(nodes.size(), 1u) << kind;
  return nodes.empty() ? nullptr : nodes[0];
}

TEST(EmitControlFlow, SeedLoopWritesThroughAViewWithoutCarriedValues) {
  auto g = emitSource(
      "import torch\n"
      "def func(a: torch.Tensor, b: torch.Tensor, n: int):\n"
      "    a = a.clone()\n"
      "    b = b.clone()\n"
      "    for i in range(n):\n"
      "        b[i] = b[i] + 1\n"
      "    return b\n");
  const Node* loop = onlyNode(*g, "prim.loop");
  ASSERT_TRUE(loop);
  ASSERT_EQ(loop->inputs().size(), 2u);  // trip count and condition only
  EXPECT_EQ(loop->input(0), g->inputs()[2]);
  EXPECT_TRUE(loop->outputs().empty());
  const Block* body = loop->block(0);
  ASSERT_EQ(body->params().size(), 1u);
  EXPECT_EQ(blockKinds(body), std::vector<std::string>({"select", "add", "select", "prim.setitem_value", "copy_"}));
  const Node* select = body->front();
  EXPECT_EQ(select->input(2), body->param(0));  // i is the iteration count
  EXPECT_EQ(g->outputs()[0]->node()->kind(), "clone");
}

TEST(EmitControlFlow, LoopCarriesOnlyWhatTheBodyChanges) {
  auto g = emitSource(
      "def f(x, w, n: int):\n"
      "    acc = x\n"
      "    k = 0\n"
      "    for i in range(n):\n"
      "        acc = acc * w + i\n"
      "        k += i\n"
      "    return acc, k\n");
  const Node* loop = onlyNode(*g, "prim.loop");
  ASSERT_EQ(loop->inputs().size(), 4u);
  EXPECT_EQ(loop->input(2), g->inputs()[0]);
  EXPECT_EQ(loop->outputs().size(), 2u);
  const Block* body = loop->block(0);
  EXPECT_EQ(body->params().size(), 3u);
  EXPECT_EQ(body->returns().size(), 3u);
  EXPECT_EQ(g->outputs()[0], loop->output(0));
  EXPECT_EQ(g->outputs()[1], loop->output(1));
  EXPECT_TRUE(loop->output(0)->type()->isTensor());
  EXPECT_EQ(loop->output(1)->type()->kind(), TypeKind::Int);
  // w is read in the body but never carried.
  EXPECT_EQ(findNodes(*g, "mul")[0]->input(1), g->inputs()[1]);
}

TEST(EmitControlFlow, RangeTripCounts) {
  auto g = emitSource(
      "def f(x, a: int, b: int):\n"
      "    for i in range(2, 11, 3):\n"
      "        x = x + i\n"
      "    for j in range(a, b):\n"
      "        x = x + j\n"
      "    for k in range(a, b, -2):\n"
      "        x = x + k\n"
      "    return x\n");
  auto loops = findNodes(*g, "prim.loop");
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_EQ(constantInput(loops[0], 0)->toInt(), 3);  // 2, 5, 8
  EXPECT_TRUE(loops[1]->input(0)->node()->is("scalar.sub"));
  EXPECT_TRUE(loops[2]->input(0)->node()->is("scalar.max"));
  // i = 2 + iter * 3
  const Block* body = loops[0]->block(0);
  EXPECT_EQ(blockKinds(body), std::vector<std::string>({"scalar.mul", "scalar.add", "add"}));
}

TEST(EmitControlFlow, IfElifElseMergesVariables) {
  auto g = emitSource(
      "def f(x, n: int):\n"
      "    y = x\n"
      "    if n > 0:\n"
      "        y = x + 1\n"
      "        z = 1\n"
      "    elif n < -5:\n"
      "        y = x - 1\n"
      "        z = 2\n"
      "    else:\n"
      "        z = 3\n"
      "    return y, z\n");
  auto ifs = findNodes(*g, "prim.if");
  ASSERT_EQ(ifs.size(), 2u);
  const Node* outer = ifs[0];
  EXPECT_EQ(outer->outputs().size(), 2u);
  EXPECT_EQ(outer->block(0)->returns().size(), 2u);
  EXPECT_EQ(g->outputs()[0], outer->output(0));
  EXPECT_EQ(g->outputs()[1], outer->output(1));
  // The else branch returns y unchanged from before the if.
  const Node* inner = ifs[1];
  EXPECT_EQ(inner->block(1)->ret(0), g->inputs()[0]);
}

TEST(EmitControlFlow, VariableDefinedInOneBranchIsUndefinedAfter) {
  testing::expectUserError(
      "def f(x, n: int):\n"
      "    if n > 0:\n"
      "        y = x\n"
      "    return y\n",
      4, 12, "assigned in only one branch");
}

TEST(EmitControlFlow, WhileReevaluatesTheConditionAndBreakSetsAFlag) {
  auto g = emitSource(
      "def f(x, n: int):\n"
      "    i = 0\n"
      "    while i < n:\n"
      "        if i == 3:\n"
      "            break\n"
      "        x = x * 2\n"
      "        i += 1\n"
      "    return x, i\n");
  const Node* loop = onlyNode(*g, "prim.loop");
  EXPECT_EQ(constantInput(loop, 0)->toInt(), INT64_MAX);
  EXPECT_TRUE(loop->input(1)->node()->is("scalar.lt"));
  const Block* body = loop->block(0);
  // The loop condition: false after a break, else i < n again.
  const Node* cond = body->ret(0)->node();
  ASSERT_TRUE(cond->is("prim.if"));
  EXPECT_EQ(blockKinds(cond->block(1)), std::vector<std::string>({"scalar.lt"}));
  // x and i are carried; the break flag is reset in every iteration.
  EXPECT_EQ(loop->outputs().size(), 2u);
  // The statements after the break sit in the branch that does not break.
  const Node* branch = findNodes(*g, "prim.if")[0];
  EXPECT_EQ(blockKinds(branch->block(1)), std::vector<std::string>({"mul", "scalar.add"}));
}

TEST(EmitControlFlow, ContinueGuardsTheRestOfTheBody) {
  auto g = emitSource(
      "def f(x, n: int):\n"
      "    for i in range(n):\n"
      "        if i % 2 == 0:\n"
      "            continue\n"
      "        x = x + i\n"
      "    return x\n");
  const Node* loop = onlyNode(*g, "prim.loop");
  EXPECT_TRUE(constantOf(loop->block(0)->ret(0))->toBool());  // no break: always continue
  const Node* branch = onlyNode(*g, "prim.if");
  EXPECT_TRUE(branch->block(0)->empty());
  EXPECT_EQ(blockKinds(branch->block(1)), std::vector<std::string>({"add"}));
  EXPECT_EQ(branch->outputs().size(), 1u);
}

TEST(EmitControlFlow, EarlyReturnsBecomeBranchOutputs) {
  auto g = emitSource(
      "def f(x, n: int):\n"
      "    if n < 0:\n"
      "        return -x\n"
      "    y = x * 2\n"
      "    if n == 0:\n"
      "        return y\n"
      "    return y + n\n");
  auto ifs = findNodes(*g, "prim.if");
  ASSERT_EQ(ifs.size(), 2u);
  EXPECT_EQ(g->outputs().size(), 1u);
  EXPECT_EQ(g->outputs()[0], ifs[0]->output(0));
  EXPECT_EQ(blockKinds(ifs[0]->block(0)), std::vector<std::string>({"neg"}));
}

TEST(EmitControlFlow, MissingReturnOnOnePathIsAnError) {
  testing::expectUserError("def f(x, n: int):\n    if n > 1:\n        return x\n", 1, 1,
                           "does not return a value on every path");
}

TEST(EmitControlFlow, ZipAndEnumerateIterateOverListLengths) {
  auto g = emitSource(
      "from typing import List\n"
      "def f(xs: List[torch.Tensor], ys: List[torch.Tensor], s: List[float]):\n"
      "    outs = []\n"
      "    for i, (x, y) in enumerate(zip(xs, ys)):\n"
      "        outs.append(x * y + i)\n"
      "    for x, w in zip(xs, s):\n"
      "        outs.append(x * w)\n"
      "    for x in xs:\n"
      "        outs.append(x)\n"
      "    return outs\n");
  auto loops = findNodes(*g, "prim.loop");
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_TRUE(loops[0]->input(0)->node()->is("scalar.min"));
  EXPECT_TRUE(loops[2]->input(0)->node()->is("list.len"));
  EXPECT_EQ(countNodes(*g, "list.get"), 5);
  for (const Node* loop : loops) EXPECT_EQ(loop->outputs().size(), 1u);  // outs
  EXPECT_EQ(g->outputs()[0], loops[2]->output(0));
  EXPECT_EQ(loops[1]->input(2), loops[0]->output(0));
}

TEST(EmitControlFlow, LoopsOverTuplesAreUnrolled) {
  auto g = emitSource(
      "def f(x, n: int):\n"
      "    total = 0.0\n"
      "    for v in (x, n, 2.5):\n"
      "        total = total + v\n"
      "    return total\n");
  EXPECT_EQ(countNodes(*g, "prim.loop"), 0);
  EXPECT_TRUE(g->outputs()[0]->type()->isTensor());
}

TEST(EmitControlFlow, NestedLoopsCarryThroughBothLevels) {
  auto g = emitSource(
      "def f(x, n: int, m: int):\n"
      "    for i in range(n):\n"
      "        for j in range(m):\n"
      "            x = x + i * j\n"
      "    return x\n");
  auto loops = findNodes(*g, "prim.loop");
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0]->outputs().size(), 1u);
  EXPECT_EQ(loops[1]->outputs().size(), 1u);
  EXPECT_EQ(loops[1]->input(2), loops[0]->block(0)->param(1));
  EXPECT_EQ(loops[0]->block(0)->ret(1), loops[1]->output(0));
}

TEST(EmitControlFlow, ShortCircuitAndTensorConditions) {
  auto g = emitSource(
      "def f(x, l: List[int], i: int):\n"
      "    if i < len(l) and l[i] > 0:\n"
      "        x = x + 1\n"
      "    if x.sum() > 0:\n"
      "        x = x * 2\n"
      "    return x if i > 2 else -x\n");
  auto ifs = findNodes(*g, "prim.if");
  ASSERT_EQ(ifs.size(), 4u);
  // `and`: l[i] is read only when i < len(l).
  EXPECT_EQ(blockKinds(ifs[0]->block(0)), std::vector<std::string>({"list.get", "scalar.gt"}));
  EXPECT_EQ(countNodes(*g, "item.bool"), 1);
  EXPECT_EQ(g->outputs()[0], ifs[3]->output(0));
}

TEST(EmitControlFlow, TypeChangesAcrossLoopsAreErrors) {
  testing::expectUserError(
      "def f(x, n: int):\n"
      "    for i in range(n):\n"
      "        n = x\n"
      "    return n\n",
      3, 9, "has type int before the loop");
}

// A return inside a loop sets a flag and the value, then breaks; a guard
// after the loop returns the value.
TEST(EmitControlFlow, ReturnInsideALoopBreaksOutWithItsValue) {
  auto g = emitSource(
      "def f(x, n: int) -> int:\n"
      "    for i in range(n):\n"
      "        if i * i > n:\n"
      "            return i\n"
      "    return -1\n");
  const Node* loop = onlyNode(*g, "prim.loop");
  ASSERT_TRUE(loop);
  EXPECT_EQ(countNodes(*g, "prim.uninitialized"), 1);
  // Carried: the break flag is reset per iteration; the return flag and value are carried.
  EXPECT_EQ(loop->outputs().size(), 2u);
  EXPECT_TRUE(loop->output(0)->type()->kind() == TypeKind::Bool ||
              loop->output(1)->type()->kind() == TypeKind::Bool);
  // The graph's result is chosen after the loop by the return flag.
  ASSERT_EQ(g->outputs().size(), 1u);
  EXPECT_TRUE(g->outputs()[0]->node()->is("prim.if"));
}

TEST(EmitControlFlow, ReturnInsideALoopNeedsAnAnnotation) {
  testing::expectUserError(
      "def f(x, n: int):\n"
      "    for i in range(n):\n"
      "        return x\n"
      "    return x\n",
      3, 9, "a return inside a loop needs the function's return type annotation");
}

TEST(EmitControlFlow, ReturnInsideALoopChecksTheAnnotation) {
  testing::expectUserError(
      "def f(x, n: int) -> int:\n"
      "    for i in range(n):\n"
      "        return x\n"
      "    return 0\n",
      3, 9, "return value has type Tensor but the function is annotated to return int");
}

}  // namespace
}  // namespace stitch
