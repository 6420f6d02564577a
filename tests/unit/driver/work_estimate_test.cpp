// The static work estimate: exact counts for plain kernels, and fused
// kernels that save work rather than multiply it.
#include "driver/work_estimate.h"

#include <gtest/gtest.h>

#include <fstream>

#include "../common/spec_inputs.h"
#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "test_util.h"

namespace stitch {
namespace {

using testing::ScratchDir;
using testing::SpecInputs;
using testing::bindSpecs;

std::vector<KernelWorkEstimate> workOf(const std::string& source, const std::vector<std::string>& specs) {
  ScratchDir dir;
  std::string path = dir.file("prog.py");
  std::ofstream(path) << "import torch\nfrom typing import List\n" << source;
  LoadedProgram p = loadProgram(path);
  SpecInputs in = bindSpecs(p, specs);
  PassLogger logger;
  PipelineOptions options;
  options.last = Stage::Code;
  options.listInputs = in.listElements;
  PipelineResult r = runPipeline(*p.module, p.entry.name, in.types, options, logger);
  return estimateWork(r.code);
}

TEST(WorkEstimate, CountsValueOperationsAndStoresNotIndexArithmetic) {
  // One multiply and one store per element, however the indices are computed.
  std::vector<KernelWorkEstimate> w = workOf(R"PY(
def f(x: torch.Tensor) -> torch.Tensor:
    return x.permute(1, 0) * 2.0
)PY", {"x=f32[24,40]"});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, "block");
  EXPECT_EQ(w[0].work, 2 * 24 * 40);
  // Alone, the permute is a copy of its own: one store per element.
  EXPECT_EQ(w[0].opWork, 3 * 24 * 40);
}

TEST(WorkEstimate, FusionSavesTheIntermediateStores) {
  std::vector<KernelWorkEstimate> w = workOf(R"PY(
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(x * 2.0 + 1.0) * x
)PY", {"x=f32[64,33]"});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_LT(w[0].work, w[0].opWork);
  EXPECT_GE(w[0].work, 64 * 33 * 4);  // at least the four ops' values, once each
}

TEST(WorkEstimate, ColumnSumsReadByEveryRowAreComputedOncePerBlock) {
  // Rows of a cat that do not depend on the column sums: the sums (their
  // loops outside the columns' loop) are computed before the row loop,
  // not once per output row (that was 2.2x the ops' own work here, and
  // grows with the number of rows).
  std::vector<KernelWorkEstimate> w = workOf(R"PY(
def f(x: torch.Tensor) -> torch.Tensor:
    parts: List[torch.Tensor] = []
    for i in range(1, 4):
        parts.append(x[:i].sum(0, keepdim=True) * float(i))
        parts.append(x[i:])
    return torch.cat(parts, 0)
)PY", {"x=f32[5,2]"});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_LE(w[0].work, w[0].opWork * 11 / 10);
}

TEST(WorkEstimate, LibraryKernelsCountTheirOutputs) {
  std::vector<KernelWorkEstimate> w = workOf(R"PY(
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b
)PY", {"a=f32[256,256]", "b=f32[256,256]"});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, "contraction");
  EXPECT_EQ(w[0].work, 256 * 256);
  EXPECT_EQ(w[0].opWork, w[0].work);
}

}  // namespace
}  // namespace stitch
