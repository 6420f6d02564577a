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

// Every matmul-family form the tensor-operation backend takes (and f64,
// which it does not: the interpreter's routine runs it), each above the
// predefined-kernel threshold, against the interpreter on fresh inputs.
TEST(ContractionKernel, BackendFormsAgreeWithTheInterpreter) {
  useScratchCache();
  Compiled c = compileProgram(R"PY(
def f(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor,
      p: torch.Tensor, q: torch.Tensor, d: torch.Tensor, e: torch.Tensor):
    return (torch.mm(a, b), torch.matmul(x, b), torch.nn.functional.linear(x, w, bias),
            torch.nn.functional.linear(x, w), torch.bmm(p, q), torch.matmul(p, q), d @ e)
)PY", "f", {"a=f32[97,130]", "b=f32[130,75]", "x=f32[3,41,130]", "w=f32[66,130]", "bias=f32[66]",
             "p=f32[5,70,40]", "q=f32[5,40,90]", "d=f64[80,70]", "e=f64[70,60]"});
  EXPECT_EQ(kernelsOfKind(c, KernelKind::Contraction), 7);
  IValueList in{randomTensor({97, 130}, DType::f32), randomTensor({130, 75}, DType::f32),
                randomTensor({3, 41, 130}, DType::f32), randomTensor({66, 130}, DType::f32),
                randomTensor({66}, DType::f32), randomTensor({5, 70, 40}, DType::f32),
                randomTensor({5, 40, 90}, DType::f32), randomTensor({80, 70}, DType::f64),
                randomTensor({70, 60}, DType::f64)};
  IValueList got = c.exe->run(cloneInputs(in));
  IValueList want = interpret(*c.result.parsed, cloneInputs(in));
  expectSameOutputs(got, want, 1e-4);
}

}  // namespace
}  // namespace stitch
