// A Tensor[] built by prim.list_construct that feeds a generated cat,
// stack or einsum kernel and is also used by something else (returned,
// indexed, measured, fed to another kernel): the list stays a host op, the
// kernel reads the list's tensors, and those tensors must still be alive
// when the kernel runs. Every program runs through the real pipeline and
// is compared with the reference interpreter on fresh random inputs.
#include <gtest/gtest.h>

#include <fstream>

#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "driver/timed_run.h"
#include "compiled_program.h"

namespace stitch {
namespace {

using namespace rtest;

class SharedList : public ::testing::Test {
 protected:
  void SetUp() override { useScratchCache(); }

  Compiled compile(const std::string& source, const std::vector<std::string>& specs) {
    return compileProgram(source, "f", specs);
  }

  // The generated kernels whose nodes include an op of this kind, and
  // whether some prim.list_construct is left to the host.
  static int kernelsWith(const Compiled& c, const std::string& kind) {
    int n = 0;
    for (const Kernel& k : c.exe->kernelGraph().kernels)
      for (const Node* node : k.nodes)
        if (node->is(kind.c_str()) && k.kind == KernelKind::GraphDefined) ++n;
    return n;
  }
  static bool hostList(const Compiled& c) {
    for (const Node* n : c.result.graph->top()->nodes())
      if (n->is("prim.list_construct") && n->output()->type()->elem()->isTensor() &&
          !c.exe->kernelGraph().inKernel.count(n))
        return true;
    return false;
  }

  void expectAgrees(Compiled& c, const IValueList& inputs) {
    IValueList mine = cloneInputs(inputs);
    IValueList got = c.exe->run(mine, nullptr);
    applyWriteBack(c.result.writeBack, mine, got);
    IValueList want = interpret(*c.result.parsed, cloneInputs(inputs));
    expectSameOutputs(got, want);
  }
};

TEST_F(SharedList, CatOfAReturnedList) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, List[torch.Tensor]]:
    l = [x * 2.0, torch.exp(y)]
    return torch.cat(l, 0), l
)PY",
                       {"x=f32[3,5]", "y=f32[4,5]"});
  EXPECT_EQ(kernelsWith(c, "cat"), 1);
  EXPECT_TRUE(hostList(c));
  for (int round = 0; round < 3; ++round)
    expectAgrees(c, {randomTensor({3, 5}, DType::f32), randomTensor({4, 5}, DType::f32)});
}

TEST_F(SharedList, CatAndStackOfOneList) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    l = [torch.sin(x), y - 1.0]
    a = torch.cat(l, 1)
    b = torch.stack(l, 0)
    return a.sum(dim=1) + b.mean(dim=0).sum(dim=1) * float(len(l)) + l[1][:, 0]
)PY",
                       {"x=f32[6,4]", "y=f32[6,4]"});
  EXPECT_EQ(kernelsWith(c, "cat"), 1);
  EXPECT_EQ(kernelsWith(c, "stack"), 1);
  EXPECT_TRUE(hostList(c));
  for (int round = 0; round < 3; ++round)
    expectAgrees(c, {randomTensor({6, 4}, DType::f32), randomTensor({6, 4}, DType::f32)});
}

TEST_F(SharedList, EinsumOperandsAlsoConcatenated) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    l = [x + 1.0, y * 0.5]
    e = torch.einsum("ij,jk->ik", l)
    return [e, torch.cat(l, 0)]
)PY",
                       {"x=f32[4,4]", "y=f32[4,4]"});
  EXPECT_EQ(kernelsWith(c, "cat"), 1);
  EXPECT_TRUE(hostList(c));
  for (int round = 0; round < 3; ++round)
    expectAgrees(c, {randomTensor({4, 4}, DType::f32), randomTensor({4, 4}, DType::f32)});
}

// Inside a loop body: the list's tensors die in the body after the kernel,
// and a tensor from outside the loop stays alive across iterations.
TEST_F(SharedList, SharedListInLoopBody) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor, y: torch.Tensor, n: int) -> torch.Tensor:
    acc = x * 0.0
    for i in range(n):
        l = [x * float(i), y + acc, y]
        acc = acc + torch.cat(l, 1)[:, 0:3]
        acc = acc * (l[1] - 1.0)
    return acc
)PY",
                       {"x=f32[2,3]", "y=f32[2,3]", "n=3"});
  for (int64_t n : {(int64_t)0, (int64_t)1, (int64_t)4})
    expectAgrees(c, {randomTensor({2, 3}, DType::f32), randomTensor({2, 3}, DType::f32), IValue(n)});
}

}  // namespace
}  // namespace stitch
