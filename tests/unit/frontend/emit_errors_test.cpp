// User errors from emission: message and exact location.
#include "frontend_test_util.h"

namespace stitch {
namespace {

using testing::expectUserError;

TEST(EmitErrors, NamesAndCalls) {
  expectUserError("def f(x):\n    return y\n", 2, 12, "name 'y' is not defined");
  expectUserError("import torch\ndef f(x):\n    return torch.foo(x)\n", 3, 12,
                  "torch.foo is not supported");
  expectUserError("def f(x):\n    return x.foo()\n", 2, 12,
                  "'Tensor' object has no attribute 'foo'");
  expectUserError("def f(x):\n    return g(x)\n", 2, 12, "name 'g' is not defined");
  expectUserError("def f(x):\n    return f(x)\n", 2, 12, "recursive call of 'f'");
  expectUserError("def g(a, b):\n    return a\ndef f(x):\n    return g(x)\n", 4, 12,
                  "missing required argument 'b'");
  expectUserError("def g(a):\n    return a\ndef f(x):\n    return g(x, q=1)\n", 4, 17,
                  "unexpected keyword argument 'q'");
  expectUserError("def f(x):\n    print(x)\n", 2, 5, "builtin 'print' is not supported");
  expectUserError("def f(x):\n    return x.shape.foo\n", 2, 12,
                  "'list' object has no attribute 'foo'");
  expectUserError("import math\ndef f(x):\n    return math.gamma(1.0)\n", 3, 12,
                  "math.gamma is not supported");
}

TEST(EmitErrors, ArgumentsAreCheckedAtTheCall) {
  expectUserError("def f(x):\n    return x.sum(dim=1, foo=2)\n", 2, 12, "sum");
  expectUserError("def f(x):\n    return x.view(1, 2, x)\n", 2, 12, "expected an int");
  expectUserError("def f(x):\n    return x @ 2\n", 2, 14, "matmul");
  expectUserError("def f(x, l: List[int]):\n    return x + l\n", 2, 14, "");
}

TEST(EmitErrors, TypesAcrossControlFlowAndAnnotations) {
  expectUserError(
      "def f(x, n: int):\n    if n > 0:\n        y = 1\n    else:\n        y = x\n    return y\n",
      2, 5, "variable 'y' has type int in one branch and Tensor in the other");
  expectUserError("def f(x) -> int:\n    return x\n", 2, 5, "annotated to return int");
  expectUserError("def g(n: int):\n    return n\ndef f(x):\n    return g(x)\n", 4, 12,
                  "argument 'n' of g() must be int");
  expectUserError("def f(x):\n    l = []\n    l.append(1)\n    return l\n", 3, 5,
                  "cannot append a value of type int");
  expectUserError("def f(x: Dict[int, int]):\n    return x\n", 1, 10,
                  "unsupported type annotation");
}

TEST(EmitErrors, UnsupportedIndexingAndStatements) {
  expectUserError("def f(x, i):\n    return x[i, 0]\n", 2, 17,
                  "only ':' and '...' may follow a tensor index");
  expectUserError("def f(x, i):\n    return x[..., i]\n", 2, 19,
                  "a tensor index after '...' is not supported");
  expectUserError("def f(x):\n    return x[..., 0, ...]\n", 2, 12, "single ellipsis");
  expectUserError("def f(x):\n    x.y = 1\n", 2, 5, "assignment to attributes is not supported");
  expectUserError("def f(x):\n    break\n", 2, 5, "'break' outside loop");
  expectUserError("def f(x):\n    x @= x\n", 2, 7, "in-place '@=' on a tensor is not supported");
  expectUserError("def f(x):\n    for i in 3:\n        pass\n", 2, 14,
                  "'int' object is not iterable");
  expectUserError("def f(x):\n    return range(3)\n", 2, 12,
                  "only supported as the iterable of a for loop");
  expectUserError("def f(x):\n    a, b = x\n", 2, 5, "cannot unpack a value of type Tensor");
  expectUserError("def f(x):\n    return x is 1\n", 2, 14,
                  "only supported for comparisons with None");
  expectUserError("def f(x):\n    for v in (x, 1):\n        break\n", 3, 9,
                  "break is not supported in a loop over a tuple");
}

}  // namespace
}  // namespace stitch

namespace stitch {
namespace {

TEST(EmitErrors, LoopLocalNamesExplainWhyTheyAreUndefined) {
  testing::expectUserError(
      "def f(x, n: int):\n    for i in range(n):\n        y = x * i\n    return y\n", 4, 12,
      "defined only inside a loop body");
}

TEST(EmitErrors, EntryFunctionSelection) {
  auto module = SourceModule::parse("def f(x):\n    return x\n", "test.py");
  EXPECT_THROW(module->emit("g"), UserError);
  auto empty = SourceModule::parse("import torch\n", "test.py");
  EXPECT_THROW(empty->emit(""), UserError);
}

}  // namespace
}  // namespace stitch
