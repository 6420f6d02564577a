// Large contractions run as predefined kernels (the library routine), small
// ones as generated loop nests; both agree with the reference interpreter on
// fresh random inputs, inside loops too.
#include <gtest/gtest.h>

#include "compiled_program.h"

namespace stitch {
namespace {

using namespace rtest;

int kernelsOfKind(const Compiled& c, KernelKind kind) {
  int n = 0;
  for (const Kernel& k : c.exe->kernelGraph().kernels) n += k.kind == kind;
  return n;
}

TEST(ContractionKernel, PredefinedAndGeneratedAgreeWithTheInterpreter) {
  useScratchCache();
  Compiled c = compileProgram(R"PY(
def f(a: torch.Tensor, b: torch.Tensor, w: torch.Tensor, n: int) -> torch.Tensor:
    h = torch.relu(a @ b)
    for i in range(n):
        h = torch.tanh(torch.nn.functional.linear(h, w)) + h
    return h.t() @ h
)PY", "f", {"a=f32[70,90]", "b=f32[90,65]", "w=f32[65,65]", "n=3"});
  EXPECT_GE(kernelsOfKind(c, KernelKind::Contraction), 3);
  IValueList in{randomTensor({70, 90}, DType::f32), randomTensor({90, 65}, DType::f32),
                randomTensor({65, 65}, DType::f32), IValue(int64_t(3))};
  RunStats stats;
  IValueList got = c.exe->run(cloneInputs(in), &stats);
  IValueList want = interpret(*c.result.parsed, cloneInputs(in));
  expectSameOutputs(got, want, 1e-4);
  EXPECT_GT(stats.kernelCalls, 0);
}

}  // namespace
}  // namespace stitch
