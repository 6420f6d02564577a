// Accesses the runtime runs on the host (immut.select, slice, expand, ...)
// take views of their base instead of copies, as PyTorch does: a list
// element's shape cast costs nothing per run. The views must never let an
// in-place write reach a value that still needs the old contents, so every
// program is compared with the reference interpreter on fresh random inputs.
#include <gtest/gtest.h>

#include "compiled_program.h"

namespace stitch {
namespace {

using namespace rtest;

class HostViews : public ::testing::Test {
 protected:
  void SetUp() override { useScratchCache(); }
};

TEST_F(HostViews, ListElementsPassWithoutACopy) {
  Compiled c = compileProgram(R"PY(
def f(xs: List[torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
    return xs[0], xs[1][1:3]
)PY", "f", {"xs=[f32[4,3],f32[5,2]]"});
  IValueList in{IValue::list({randomTensor({4, 3}, DType::f32), randomTensor({5, 2}, DType::f32)})};
  expectAgreesWithInterpreter(c, in);
  IValueList out = c.exe->run(in, nullptr);
  ASSERT_EQ(out.size(), 2u);
  // PyTorch returns the caller's tensor and a view of it.
  EXPECT_TRUE(out[0].toTensor().sameStorage(in[0].toList()[0].toTensor()));
  EXPECT_TRUE(out[1].toTensor().sameStorage(in[0].toList()[1].toTensor()));
}

TEST_F(HostViews, RowsReadBeforeAWriteKeepTheirValues) {
  // Each step reads row i of y (a view on the host: the index is a loop
  // variable), then overwrites that row: the write may run in place only
  // where no view of y is still alive.
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor, n: int) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x * 2.0
    acc = torch.zeros(x.shape[1])
    for i in range(n):
        r = y[i].clone()
        v = y[i]
        y[i] = v * 3.0 + 1.0
        acc = acc + r * v
    return y, acc
)PY", "f", {"x=f32[6,5]", "n=4"});
  for (int round = 0; round < 2; ++round)
    expectAgreesWithInterpreter(c, {randomTensor({6, 5}, DType::f32), IValue(int64_t(4))});
}

TEST_F(HostViews, WrittenListElementsAndTheirViews) {
  // The caller's list element is written in place (written back after the
  // run) while a view of its old value and one of its new value are returned.
  Compiled c = compileProgram(R"PY(
def f(xs: List[torch.Tensor], k: int) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    a = xs[0]
    old = a[k].clone()
    a[k] = a[k + 1] * 2.0
    return old, a[k], a.t()
)PY", "f", {"xs=[f32[4,3]]", "k=1"});
  for (int round = 0; round < 2; ++round)
    expectAgreesWithInterpreter(c, {IValue::list({randomTensor({4, 3}, DType::f32)}), IValue(int64_t(1))});
}

// Views fusion leaves to the host (fusion_plan.h hostViews): a decode
// step's row written into the cache, its query and its output squeezed into
// the list run as views, no copy kernel.
TEST_F(HostViews, FusionLeavesViewsReadInPlaceToTheHost) {
  Compiled decode = compileProgram(R"PY(
def f(q: torch.Tensor, k: torch.Tensor, cache: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    outs: List[torch.Tensor] = []
    for t in range(q.shape[0]):
        cache[:, t] = k[t]
        p = torch.softmax(q[t].unsqueeze(1) @ cache[:, :t + 1].transpose(-1, -2), dim=-1)
        outs.append((p @ cache[:, :t + 1]).squeeze(1))
    return torch.stack(outs), cache
)PY", "f", {"q=f32[5,3,8]", "k=f32[5,3,8]", "cache=f32[3,6,8]"});
  IValueList in{IValue(randomTensor({5, 3, 8}, DType::f32)), IValue(randomTensor({5, 3, 8}, DType::f32)),
                IValue(randomTensor({3, 6, 8}, DType::f32))};
  RunStats stats = expectAgreesWithInterpreter(decode, in, 1e-5);
  EXPECT_EQ(stats.kernelCalls, 2 * 5) << "per step the cache write and the attention; the views cost no kernel";
}

}  // namespace
}  // namespace stitch
