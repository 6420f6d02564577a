// The runtime's CUDA path on the CUDA emulator (runtime/cuda_emulator.h):
// the buffers a kernel needs beyond its own (scratch shared by the blocks),
// the part after the grid as a launch of its own, and outputs copied back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "../codegen/column_kernel.h"
#include "../common/random.h"
#include "codegen/c_renderer.h"
#include "runtime/cuda_emulator.h"
#include "runtime/cuda_kernels.h"

namespace stitch {
namespace {

struct EmulatorEnv {
  EmulatorEnv() { ::setenv("STITCH_CUDA_EMULATOR", "1", 1); }
  ~EmulatorEnv() { ::unsetenv("STITCH_CUDA_EMULATOR"); }
};

TEST(CudaKernels, ColumnKernelRunsItsGridThenItsCombineOnTheEmulator) {
  EmulatorEnv emulate;
  const int64_t parts = 2 + testing::randInt(0, 4), rows = parts * testing::randInt(40, 90), cols = 130;
  KernelUOps uops = codegentest::columnSum(parts, rows, cols);
  CudaKernels kernels({uops}, renderCuda({uops}));
  EXPECT_EQ(&gpuDevice(), &CudaEmulator::get());
  std::vector<float> in((size_t)(rows * cols)), out((size_t)cols, 0.0f);
  for (float& x : in) x = (float)testing::randInt(-1000, 1000) / 64.0f;
  void* bufs[] = {out.data(), in.data()};
  const size_t bytes[] = {out.size() * 4, in.size() * 4};
  kernels.call("column_sum", bufs, bytes, 2, 1, nullptr, 0);
  EXPECT_EQ(kernels.launches(), 2) << "the grid, then the combine";
  EXPECT_EQ(kernels.hostSyncs(), 1);
  for (int64_t c = 0; c < cols; ++c) {
    double expected = 0;  // the values are exact in f32 and f64 alike
    for (int64_t r = 0; r < rows; ++r) expected += in[(size_t)(r * cols + c)];
    EXPECT_EQ(out[(size_t)c], (float)expected) << "column " << c;
  }
}

}  // namespace
}  // namespace stitch
