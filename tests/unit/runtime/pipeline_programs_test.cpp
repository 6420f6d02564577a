// Executables built by the real pipeline (kernel planner, linearizer, C
// renderer, compiler) on small programs, against the reference interpreter
// on the parsed program with the same fresh random inputs: loops, branches,
// host ops between kernels, inputs the program writes, a program
// functionalization refuses, and a shape that depends on data.
#include <gtest/gtest.h>

#include <fstream>

#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "driver/timed_run.h"
#include "compiled_program.h"

namespace stitch {
namespace {

using namespace rtest;

class PipelinePrograms : public ::testing::Test {
 protected:
  void SetUp() override { useScratchCache(); }

  // Source -> every stage -> an Executable; keeps the parsed graph.
  Compiled compile(const std::string& source, const std::string& fn,
                   const std::vector<std::string>& specs) {
    return compileProgram(source, fn, specs);
  }

  // Runs both on fresh copies of `inputs`; compares outputs and the inputs
  // as the program left them. Returns the run's kernel calls.
  int64_t expectAgrees(Compiled& c, const IValueList& inputs, double tol = 1e-5) {
    return expectAgreesWithInterpreter(c, inputs, tol).kernelCalls;
  }
};

TEST_F(PipelinePrograms, LoopOfKernelsAndHostOps) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor, w: torch.Tensor, n: int) -> torch.Tensor:
    h = x
    for i in range(n):
        h = torch.tanh(h @ w) * 0.5 + h
        h = h - h.mean(dim=1, keepdim=True)
    return h.sum(dim=0) + 1.0
)PY",
                       "f", {"x=f32[6,8]", "w=f32[8,8]", "n=3"});
  for (int64_t n : {(int64_t)0, (int64_t)1, (int64_t)3}) {
    int64_t calls =
        expectAgrees(c, {randomTensor({6, 8}, DType::f32), randomTensor({8, 8}, DType::f32), IValue(n)});
    if (n == 3) {
      EXPECT_GT(calls, 0);
    }
  }
}

// Scalar powers in kernels take PyTorch's exact forms, as the interpreter
// does (common/scalar_powers.h): the same bits, no pow call for a square.
TEST_F(PipelinePrograms, ScalarPowersMatchTheInterpreterBitForBit) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    a = x.abs() + 0.25
    return x.pow(2), x ** 3, a.pow(0.5), a ** -0.5, x.pow(-1.0), x ** -2, a.pow(2.5)
)PY",
                       "f", {"x=f32[7,33]"});
  expectAgreesWithInterpreter(c, {uniformF32({7, 33}, -30, 30)}, 0.0);
  const std::string& code = c.exe->source();
  size_t pows = 0;
  for (size_t at = code.find("powf("); at != std::string::npos; at = code.find("powf(", at + 1)) ++pows;
  EXPECT_EQ(pows, 1u) << "one pow call, 2.5's:\n" << code;
}

TEST_F(PipelinePrograms, BranchesOnData) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor, t: float) -> torch.Tensor:
    if float(x.sum()) > t:
        y = torch.relu(x) * 2.0
    else:
        y = torch.exp(x) - 1.0
    return y + x
)PY",
                       "f", {"x=f32[5,7]", "t=0.0"});
  for (double t : {-100.0, 100.0, 0.0}) expectAgrees(c, {randomTensor({5, 7}, DType::f32), IValue(t)});
}

TEST_F(PipelinePrograms, WrittenInputsAreWrittenBack) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x.add_(1.0)
    x[0] = y[1] * 3.0
    y.mul_(2.0)
    return x * y
)PY",
                       "f", {"x=f32[4,3]", "y=f32[4,3]"});
  EXPECT_FALSE(c.result.writeBack.writtenBackInputs.empty());
  for (int round = 0; round < 3; ++round)
    expectAgrees(c, {randomTensor({4, 3}, DType::f32), randomTensor({4, 3}, DType::f32)});
}

// Views collected in a list by a loop and written through their base: the
// list's reads become views of the base, so the program is pure.
// A host loop writing rows of its argument (a KV cache's pattern): every
// write, the first one too, lands in the argument itself, which the caller
// then holds with the program's final values and no write-back copy. An
// argument that shares memory with another one is copied first instead:
// the other keeps the values the program reads.
TEST_F(PipelinePrograms, WrittenArgumentsAreWrittenWhereTheyLie) {
  Compiled c = compile(R"PY(
def f(cache: torch.Tensor, rows: torch.Tensor, start: int) -> torch.Tensor:
    out = torch.zeros(rows.shape[1])
    for t in range(rows.shape[0]):
        cache[start + t] = rows[t]
        out = out + cache[: start + t + 1].sum(0)
    return out
)PY",
                       "f", {"cache=f32[12,5]", "rows=f32[4,5]", "start=3"});
  ASSERT_EQ(c.result.writeBack.writtenBackInputs, std::vector<size_t>{0});
  // randomTensor may hand out a transposed view: the cache is made dense
  // here (a strided argument is copied first), and run strided below.
  const Tensor cacheRows = randomTensor({12, 5}, DType::f32);
  IValueList in = {IValue(cacheRows.contiguous().clone()), randomTensor({4, 5}, DType::f32), IValue((int64_t)3)};
  EXPECT_EQ(expectAgreesWithInterpreter(c, in).inPlaceAssigns, 4);
  Tensor transposed = Tensor::empty({5, 12}, DType::f32).asStrided({12, 5}, {1, 12}, 0);
  transposed.copyFrom(cacheRows);
  expectAgreesWithInterpreter(c, {IValue(transposed), in[1], in[2]});

  IValueList mine = cloneInputs(in);
  const Tensor cache = mine[0].toTensor();
  IValueList got = c.exe->run(mine);
  EXPECT_TRUE(got.back().toTensor().sameStorage(cache));  // the final cache is the argument
  applyWriteBack(c.result.writeBack, mine, got);
  expectSameOutputs({mine[0]}, {interpretFresh(*c.result.graph, in, {}).back()});

  // rows is a view of cache's last four rows: cache is copied first.
  IValueList aliased = cloneInputs(in);
  const Tensor& base = aliased[0].toTensor();
  aliased[1] = IValue(base.asStrided({4, 5}, {5, 1}, 8 * 5));
  IValueList reference = {IValue(base.clone()), IValue(aliased[1].toTensor().clone()), aliased[2]};
  RunStats stats;
  IValueList out = c.exe->run(aliased, &stats);
  EXPECT_EQ(stats.inPlaceAssigns, 3);
  expectSameOutputs(out, interpret(*c.result.graph, reference));
}

TEST_F(PipelinePrograms, ViewsCollectedInALoopSeeTheBaseWrite) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor) -> List[torch.Tensor]:
    x = x.clone() + 1.0
    rows = []
    for i in range(3):
        rows.append(x[i])
    x.mul_(10.0)
    return [rows[0] * 2.0, rows[2]]
)PY",
                       "f", {"x=f32[3,4]"});
  EXPECT_TRUE(c.result.functionalFallback.empty()) << c.result.functionalFallback;
  for (int round = 0; round < 3; ++round) expectAgrees(c, {randomTensor({3, 4}, DType::f32)});
}

// The same with the append under a branch: which views the list holds is
// no longer known statically, functionalization refuses, and the compiled
// program runs the imperative graph exactly.
TEST_F(PipelinePrograms, RefusedProgramRunsAsWritten) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor) -> List[torch.Tensor]:
    x = x.clone() + 1.0
    rows = []
    for i in range(3):
        if i < 3:
            rows.append(x[i])
    x.mul_(10.0)
    return [rows[0] * 2.0, rows[2]]
)PY",
                       "f", {"x=f32[3,4]"});
  EXPECT_FALSE(c.result.functionalFallback.empty());
  for (int round = 0; round < 3; ++round) expectAgrees(c, {randomTensor({3, 4}, DType::f32)});
}

// The slice length comes from the data: its shape is unknown statically,
// so what reads it stays on the host, and the run still agrees.
TEST_F(PipelinePrograms, DataDependentShape) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor) -> torch.Tensor:
    n = int((x > 0).sum())
    y = x[:n] * 2.0
    return torch.cat([y, x.abs()], dim=0) + 1.0
)PY",
                       "f", {"x=f32[9]"});
  for (int round = 0; round < 4; ++round) expectAgrees(c, {randomTensor({9}, DType::f32)});
}

// Two runs of one Executable: the first run's outputs stay intact.
TEST_F(PipelinePrograms, OutputsSurviveTheNextRun) {
  Compiled c = compile(R"PY(
def f(x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    a = x * y + 1.0
    b = torch.softmax(a, dim=1)
    c = (b - a).abs()
    return b, c.sum(dim=1)
)PY",
                       "f", {"x=f32[16,32]", "y=f32[16,32]"});
  IValueList in1 = {randomTensor({16, 32}, DType::f32), randomTensor({16, 32}, DType::f32)};
  IValueList out1 = c.exe->run(cloneInputs(in1));
  // The outputs, a tuple or not, as a flat list of tensors.
  auto flat = [](const IValueList& outs) {
    IValueList tensors;
    for (const IValue& v : outs) {
      if (v.isTensor()) tensors.push_back(v);
      else for (const IValue& e : v.toList()) tensors.push_back(e);
    }
    return tensors;
  };
  IValueList saved;
  for (const IValue& v : flat(out1)) saved.push_back(v.toTensor().clone());
  ASSERT_EQ(saved.size(), 2u);
  for (int round = 0; round < 2; ++round)
    c.exe->run({randomTensor({16, 32}, DType::f32), randomTensor({16, 32}, DType::f32)});
  expectSameOutputs(flat(out1), saved, 0);
  expectSameOutputs(out1, interpret(*c.result.parsed, cloneInputs(in1)), 1e-5);
}

}  // namespace
}  // namespace stitch
