// Assign ops (immut.*_rev) write into their base when the base dies there
// and nobody else shares its storage; otherwise they copy. Every program runs
// through the real pipeline and is compared with the reference interpreter
// on fresh random inputs, and the caller's inputs must be left as PyTorch
// leaves them.
#include <gtest/gtest.h>

#include "compiled_program.h"

namespace stitch {
namespace {

using namespace rtest;

class InPlaceAssign : public ::testing::Test {
 protected:
  void SetUp() override { useScratchCache(); }

  RunStats expectAgrees(Compiled& c, const IValueList& inputs) {
    return expectAgreesWithInterpreter(c, inputs);
  }
};

TEST_F(InPlaceAssign, RowWritesInALoopReuseTheBuffer) {
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(x.shape[0], x.shape[1])
    for i in range(x.shape[0]):
        y[i] = x[i] * float(i) + 1.0
    return y
)PY", "f", {"x=f32[9,7]"});
  IValueList in{randomTensor({9, 7}, DType::f32)};
  RunStats stats = expectAgrees(c, in);
  EXPECT_EQ(stats.inPlaceAssigns, 9);
  // Twice: the pooled buffers of the first run must not leak into the second.
  EXPECT_EQ(expectAgrees(c, in).inPlaceAssigns, 9);
}

TEST_F(InPlaceAssign, ElementWritesInNestedLoops) {
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(x.shape[0], x.shape[1])
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            y[i, j] = x[i, j] * float(i + j)
    return y
)PY", "f", {"x=f32[5,6]"});
  RunStats stats = expectAgrees(c, {randomTensor({5, 6}, DType::f32)});
  EXPECT_GT(stats.inPlaceAssigns, 0);
}

TEST_F(InPlaceAssign, BaseReadAfterTheWriteIsCopied) {
  // `before` keeps reading the old value of y after the write: writing into
  // y's buffer would change it.
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x * 2.0
    before = y
    y = y.clone()
    y[1] = x[0]
    return y, before + 1.0
)PY", "f", {"x=f32[4,3]"});
  expectAgrees(c, {randomTensor({4, 3}, DType::f32)});
}

TEST_F(InPlaceAssign, WrittenInputsAndSharedBasesStayIntact) {
  // x is the caller's tensor (written back, never written in place while
  // the program still needs its old value); l holds y, so y is shared.
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor) -> Tuple[torch.Tensor, List[torch.Tensor]]:
    old = x.sum()
    x[0] = x[1] * 3.0
    y = x * 1.5
    l = [y]
    z = y.clone()
    z[2] = old.expand(3)
    return x + old, l
)PY", "f", {"x=f32[4,3]"});
  expectAgrees(c, {randomTensor({4, 3}, DType::f32)});
}

TEST_F(InPlaceAssign, SliceAndTransposedWrites) {
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor, n: int) -> torch.Tensor:
    y = x.clone()
    for i in range(n):
        y[:, 1:3] = y[:, 0:2] * 0.5
        y.t()[0] = y[:, 3] + float(i)
    return y
)PY", "f", {"x=f32[4,4]", "n=3"});
  RunStats stats = expectAgrees(c, {randomTensor({4, 4}, DType::f32), IValue(int64_t(3))});
  EXPECT_GT(stats.inPlaceAssigns, 0);
}

TEST_F(InPlaceAssign, CarriedValueAlsoReadInsideTheLoop) {
  // y0 starts the carried y and is read directly in the body: it must not
  // be moved into the loop or written in place.
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor, n: int) -> torch.Tensor:
    y0 = x * 2.0
    y = y0
    for i in range(n):
        y = y.clone()
        y[0] = y0[1] + float(i)
    return y
)PY", "f", {"x=f32[3,4]", "n=4"});
  expectAgrees(c, {randomTensor({3, 4}, DType::f32), IValue(int64_t(4))});
}

}  // namespace
}  // namespace stitch
