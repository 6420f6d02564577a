// renderCuda: the C-family printer's CUDA target. Golden text for a grid
// kernel, the launch each kind of kernel needs (cudaLaunchOf), and NVRTC
// accepting what it prints for sm_80 and sm_90 (skipped where NVRTC is
// missing; scripts/common.sh installs it for the test suite).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/c_renderer.h"
#include "codegen/nvrtc_compiler.h"
#include "codegen_test_util.h"
#include "column_kernel.h"
#include "kernel_builder.h"

namespace stitch {
namespace {

using namespace codegentest;

// out[i] = a[i] * b[i] over 1000 f32 elements in blocks of 256.
KernelUOps multiply() {
  KernelBuilder b("mul_f32");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int y = b.global(2, DType::f32, false);
  int g = b.special("gidx0", 4);
  int start = b.alu(AluOp::Mul, DType::i64, {g, b.i64(256)});
  int end = b.alu(AluOp::Min, DType::i64, {b.alu(AluOp::Add, DType::i64, {start, b.i64(256)}), b.i64(1000)});
  int i = b.loop(start, end);
  b.store(out, i, b.alu(AluOp::Mul, DType::f32, {b.load(x, i), b.load(y, i)}));
  b.endLoop(i);
  return b.kernel();
}

// The kernel's text after the prelude.
std::string kernelText(const std::string& source, const std::string& name) {
  size_t at = source.find("STITCH_KERNEL void " + name + "(");
  return at == std::string::npos ? "" : source.substr(at);
}

void expectCompiles(const std::string& source) {
  std::string why;
  if (!nvrtcAvailable(&why)) GTEST_SKIP() << why;
  for (int arch : {80, 90}) EXPECT_NO_THROW(compileCudaUncached(source, arch, {}, "test.cu")) << "sm_" << arch;
}

// A CUDA block per grid block, the block's loop dealt out to its threads;
// buffers and scalars from stitch_args.
TEST(CudaRenderer, GridKernelGolden) {
  const std::string source = renderCuda({multiply()});
  EXPECT_EQ(kernelText(source, "mul_f32"),
            "STITCH_KERNEL void mul_f32(const stitch_args args) {\n"
            "  void* const* bufs = args.bufs;\n"
            "  const stitch_scalar* params = args.params;\n"
            "  float* restrict data0 = (float*)bufs[0];\n"
            "  const float* restrict data1 = (const float*)bufs[1];\n"
            "  const float* restrict data2 = (const float*)bufs[2];\n"
            "  const int64_t gidx0 = blockIdx.x;\n"
            "  if (gidx0 < 4) {\n"
            "    const int64_t v5 = (int64_t)((uint64_t)gidx0 * (uint64_t)256);\n"
            "    const int64_t v6 = (int64_t)((uint64_t)v5 + (uint64_t)256);\n"
            "    const int64_t v8 = v6 < 1000 ? v6 : 1000;\n"
            "    for (int64_t loop9 = v5 + threadIdx.x; loop9 < v8; loop9 += blockDim.x) {\n"
            "      const float v10 = data1[loop9];\n"
            "      const float v11 = data2[loop9];\n"
            "      const float v12 = v10 * v11;\n"
            "      data0[loop9] = v12;\n"
            "    }\n"
            "  }\n"
            "}\n");
  // No host glue; the C library only for the emulator's host compile.
  EXPECT_EQ(source.find("stitch_run_blocks"), std::string::npos);
  EXPECT_LT(source.find("#include"), source.find("#endif"));
  EXPECT_EQ(source.rfind("#ifdef __CUDACC_RTC__\ntypedef signed char int8_t;", 0), 0u)
      << "the C types NVRTC lacks come first";
  CudaLaunch launch = cudaLaunchOf(multiply());
  EXPECT_EQ(launch.gridBlocks, 4);
  EXPECT_EQ(launch.blocks, 4);
  EXPECT_EQ(launch.threadsPerBlock, kCudaThreadsPerBlock);
  EXPECT_FALSE(launch.after);
  EXPECT_TRUE(launch.sharedScratchBytes.empty());
  EXPECT_EQ(launch.arenaBytesPerBlock, 0);
  expectCompiles(source);
}

// A Column kernel's partials live in scratch the caller adds after the
// kernel's buffers; its combine is NAME_after, launched on one thread.
TEST(CudaRenderer, ColumnKernelCombinesInAKernelOfItsOwn) {
  const int64_t parts = 2 + (int64_t)(rng()() % 5), rows = parts * 64, cols = 3;
  KernelUOps uops = columnSum(parts, rows, cols);
  const std::string source = renderCuda({uops});
  EXPECT_NE(kernelText(source, "column_sum"), "");
  EXPECT_NE(kernelText(source, "column_sum_after"), "");
  CudaLaunch launch = cudaLaunchOf(uops);
  EXPECT_EQ(launch.gridBlocks, parts);
  EXPECT_EQ(launch.blocks, 1) << "code after the grid: a thread per grid block";
  EXPECT_EQ(launch.threadsPerBlock, parts);
  EXPECT_TRUE(launch.after);
  ASSERT_EQ(launch.sharedScratchBytes.size(), 1u);
  EXPECT_GE(launch.sharedScratchBytes[0], parts * cols * 4);
  expectCompiles(source);
}

// A block-local buffer over 4 KiB (a thread's local arrays are reserved
// for every resident thread) that the block's threads share is the block's
// dynamic shared memory where the device has room, else the block's slice
// of the arena buffer.
TEST(CudaRenderer, LargeBlockLocalBuffersAreDynamicSharedMemoryOrArenaSlices) {
  KernelBuilder b("staged");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int g = b.special("gidx0", 3);
  UOp def = makeUOp(UOpKind::DefineLocal, DType::f32);
  def.ival = 2048;
  def.name = "stage";
  int stage = b.g().add(def, false);
  int base = b.alu(AluOp::Mul, DType::i64, {g, b.i64(2048)});
  int k = b.loop(b.i64(0), b.i64(2048));
  b.store(stage, k, b.load(x, b.alu(AluOp::Add, DType::i64, {base, k})));
  b.endLoop(k);
  int k2 = b.loop(b.i64(0), b.i64(2048));
  b.store(out, b.alu(AluOp::Add, DType::i64, {base, k2}), b.load(stage, b.alu(AluOp::Sub, DType::i64, {b.i64(2047), k2})));
  b.endLoop(k2);
  const std::string shared = renderCuda({b.kernel()});
  EXPECT_NE(shared.find("STITCH_DYNAMIC_SHARED(float, stage, 0, 8192);"), std::string::npos) << shared;
  EXPECT_EQ(cudaLaunchOf(b.kernel()).dynamicSharedBytes, 8192);
  EXPECT_EQ(cudaLaunchOf(b.kernel()).arenaBytesPerBlock, 0);
  expectCompiles(shared);
  CudaDeviceLimits small;
  small.sharedMemoryPerBlock = 8191;
  const std::string source = renderCuda({b.kernel()}, small);
  EXPECT_NE(source.find("float* restrict stage = (float*)((char*)bufs[2] + gidx0 * 8192 + 0);"), std::string::npos)
      << source;
  CudaLaunch launch = cudaLaunchOf(b.kernel(), small);
  EXPECT_EQ(launch.arenaBytesPerBlock, 8192);
  EXPECT_EQ(launch.dynamicSharedBytes, 0);
  // The arena slice is the block's: its threads share both loops, the
  // second reading what other threads wrote, after a barrier.
  EXPECT_EQ(launch.threadsPerBlock, kCudaThreadsPerBlock);
  EXPECT_TRUE(launch.barriers);
  EXPECT_NE(source.find("const int64_t gidx0 = blockIdx.x;"), std::string::npos) << source;
  const size_t first = source.find("+ threadIdx.x; loop"), between = source.find("__syncthreads();", first),
               second = source.find("+ threadIdx.x; loop", first + 1);
  EXPECT_TRUE(first < between && between < second && second != std::string::npos) << source;
  EXPECT_EQ(renderC({b.kernel()}).find("stitch_arena("), std::string::npos) << "on the CPU it stays on the stack";
  expectCompiles(source);
}

// A thread's own lane sum folds in its registers, in the order of the C one.
TEST(CudaRenderer, LaneSumsFoldWithoutVectorExtensions) {
  KernelBuilder b("lanes");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  UOp def = makeUOp(UOpKind::DefineLocal, DType::f32);
  def.ival = 16;
  int lanes = b.g().add(def, false);
  int k = b.loop(b.i64(0), b.i64(16));
  b.store(lanes, k, b.load(x, k));
  b.endLoop(k);
  UOp fold = makeUOp(UOpKind::FoldLanes, DType::f32, {lanes});
  fold.ival = 16;
  fold.alu = AluOp::Add;
  b.store(out, b.i64(0), b.g().add(fold));
  const std::string source = renderCuda({b.kernel()});
  EXPECT_EQ(source.find("vector_size"), std::string::npos);
  EXPECT_NE(source.find("static __device__ inline float stitch_thread_fold16_add_f32(const float* lanes)"),
            std::string::npos);
  EXPECT_EQ(cudaLaunchOf(b.kernel()).blocks, 1);
  EXPECT_EQ(cudaLaunchOf(b.kernel()).threadsPerBlock, 1);
  expectCompiles(source);
}

// out[r, c] = x[r, c] * 2 over rows x 96 in blocks of rows: the threads
// share the inner (contiguous) loop, so consecutive threads touch
// consecutive elements; with a running sum along each row, the rows.
KernelUOps rowsKernel(bool carried) {
  KernelBuilder b(carried ? "running" : "rows");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int g = b.special("gidx0", 8);
  int r = b.loop(b.alu(AluOp::Mul, DType::i64, {g, b.i64(4)}),
                 b.alu(AluOp::Add, DType::i64, {b.alu(AluOp::Mul, DType::i64, {g, b.i64(4)}), b.i64(4)}));
  int acc = carried ? b.acc(DType::f32, b.constant(0, DType::f32)) : -1;
  int c = b.loop(b.i64(0), b.i64(96));
  int index = b.alu(AluOp::Add, DType::i64, {b.alu(AluOp::Mul, DType::i64, {r, b.i64(96)}), c});
  int v = b.alu(AluOp::Mul, DType::f32, {b.load(x, index), b.constant(2, DType::f32)});
  if (carried) {
    v = b.phi(acc, b.alu(AluOp::Add, DType::f32, {acc, v}), c);
  }
  b.store(out, index, v);
  b.endLoop(c);
  b.endLoop(r);
  return b.kernel();
}

TEST(CudaRenderer, ThreadsShareTheInnermostIndependentLoop) {
  const std::string source = renderCuda({rowsKernel(false)});
  EXPECT_NE(source.find("for (int64_t loop9 = 0 + threadIdx.x; loop9 < 96; loop9 += blockDim.x)"), std::string::npos)
      << source;
  CudaLaunch launch = cudaLaunchOf(rowsKernel(false));
  EXPECT_EQ(launch.blocks, 8);
  EXPECT_EQ(launch.threadsPerBlock, 96) << "the constant trip count, in whole warps";
  expectCompiles(source);

  // The running sum restarts at each row: the rows are independent, the
  // columns are not; the threads share the row loop.
  const std::string carried = renderCuda({rowsKernel(true)});
  EXPECT_NE(carried.find("for (int64_t loop6 = v4 + threadIdx.x; loop6 < v5; loop6 += blockDim.x) {"), std::string::npos)
      << carried;
  EXPECT_NE(carried.find("for (int64_t loop11 = 0; loop11 < 96; ++loop11) {"), std::string::npos) << carried;
  EXPECT_EQ(cudaLaunchOf(rowsKernel(true)).threadsPerBlock, 32) << "four rows a block: one warp";
  expectCompiles(carried);
}

}  // namespace
}  // namespace stitch
