// The CUDA emulator's threads of a block (runtime/cuda_emulator.h): a
// kernel whose threads pass values through shared memory gets the right
// result when its barriers are there, and a wrong one -- every time, not
// by chance -- when one is missing; a barrier some threads never reach is
// an internal error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "../codegen/kernel_builder.h"
#include "../common/random.h"
#include "emulator_env.h"
#include "codegen/c_renderer.h"
#include "common/error.h"
#include "runtime/cuda_kernels.h"

namespace stitch {
namespace {

constexpr int64_t kBlocks = 3, kWidth = 96;

// out[b, t] = x[b, width - 1 - t], staged through a block-local buffer:
// the threads share both loops, and each reads what another one wrote.
KernelUOps reverseThroughShared(int64_t width = kWidth) {
  codegentest::KernelBuilder b("reverse");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int g = b.special("gidx0", kBlocks);
  UOp def = makeUOp(UOpKind::DefineLocal, DType::f32);
  def.ival = width;
  def.name = "stage";
  int stage = b.g().add(def, false);
  int base = b.alu(AluOp::Mul, DType::i64, {g, b.i64(width)});
  int t = b.loop(b.i64(0), b.i64(width));
  b.store(stage, t, b.load(x, b.alu(AluOp::Add, DType::i64, {base, t})));
  b.endLoop(t);
  int u = b.loop(b.i64(0), b.i64(width));
  b.store(out, b.alu(AluOp::Add, DType::i64, {base, u}),
          b.load(stage, b.alu(AluOp::Sub, DType::i64, {b.i64(width - 1), u})));
  b.endLoop(u);
  return b.kernel();
}

// Runs `source` (the kernel's CUDA text, perhaps altered) on random input.
std::vector<float> run(const KernelUOps& kernel, const std::string& source, std::vector<float>& in,
                       int64_t width = kWidth) {
  CudaKernels kernels({kernel}, source);
  GpuDevice& device = gpuDevice();
  in.resize(size_t(kBlocks * width));
  for (float& v : in) v = (float)testing::randInt(-1000, 1000) / 8.0f;
  std::vector<float> out(in.size());
  CudaPointer bufs[] = {device.allocate(out.size() * 4), device.allocate(in.size() * 4)};
  device.copyToDevice(bufs[1], in.data(), in.size() * 4);
  try {
    kernels.launch("reverse", bufs, 2, nullptr, 0);
  } catch (...) {
    for (CudaPointer p : bufs) device.release(p);
    throw;
  }
  device.copyToHost(out.data(), bufs[0], out.size() * 4);
  for (CudaPointer p : bufs) device.release(p);
  return out;
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

TEST(CudaEmulator, BarriersOrderTheThreadsOfABlock) {
  EmulatorEnv emulate;
  const KernelUOps kernel = reverseThroughShared();
  const CudaLaunch launch = cudaLaunchOf(kernel);
  ASSERT_TRUE(launch.barriers);
  EXPECT_EQ(launch.threadsPerBlock, kWidth);
  const std::string source = renderCuda({kernel});
  ASSERT_NE(source.find("STITCH_SHARED(float, stage, 96, "), std::string::npos) << source;
  ASSERT_NE(source.find("__syncthreads();"), std::string::npos) << source;

  std::vector<float> in;
  const std::vector<float> out = run(kernel, source, in);
  for (int64_t b = 0; b < kBlocks; ++b)
    for (int64_t t = 0; t < kWidth; ++t)
      EXPECT_EQ(out[size_t(b * kWidth + t)], in[size_t(b * kWidth + kWidth - 1 - t)]) << "block " << b << " thread " << t;
}

// Without the barriers each thread runs to its end in turn: of threads t
// and width - 1 - t, whichever runs first reads the other's slot before it
// is written, and shared memory starts as NaN.
TEST(CudaEmulator, AMissingBarrierShowsInTheResult) {
  EmulatorEnv emulate;
  const KernelUOps kernel = reverseThroughShared();
  const std::string source = replaceAll(renderCuda({kernel}), "__syncthreads();", "");
  std::vector<float> in;
  const std::vector<float> out = run(kernel, source, in);
  for (int64_t b = 0; b < kBlocks; ++b) {
    int64_t unwritten = 0;
    for (int64_t t = 0; t < kWidth; ++t) unwritten += std::isnan(out[size_t(b * kWidth + t)]);
    EXPECT_GE(unwritten, kWidth / 2) << "block " << b;
  }
}

TEST(CudaEmulator, ABarrierSomeThreadsNeverReachIsAnError) {
  EmulatorEnv emulate;
  const KernelUOps kernel = reverseThroughShared();
  const std::string source =
      replaceAll(renderCuda({kernel}), "__syncthreads();", "if (threadIdx.x % 2 == 0) __syncthreads();");
  std::vector<float> in;
  try {
    run(kernel, source, in);
    FAIL() << "a barrier half the threads skip ran";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("threads wait at a barrier that the others never reach"), std::string::npos)
        << e.what();
  }
}

// A stage over 4 KiB is the block's dynamic shared memory; a launch whose
// size disagrees with the one the text declares is an internal error.
TEST(CudaEmulator, DynamicSharedMemoryIsTheLaunchsSize) {
  EmulatorEnv emulate;
  const int64_t width = 2048 + 32 * testing::randInt(0, 64);
  const KernelUOps kernel = reverseThroughShared(width);
  ASSERT_EQ(cudaLaunchOf(kernel).dynamicSharedBytes, 4 * width);
  const std::string source = renderCuda({kernel});
  const std::string declared = "STITCH_DYNAMIC_SHARED(float, stage, 0, " + std::to_string(4 * width) + ");";
  ASSERT_NE(source.find(declared), std::string::npos) << source;
  std::vector<float> in;
  const std::vector<float> out = run(kernel, source, in, width);
  for (int64_t i = 0; i < kBlocks * width; ++i)
    ASSERT_EQ(out[size_t(i)], in[size_t(i / width * width + width - 1 - i % width)]) << i;

  const std::string other = replaceAll(source, declared, "STITCH_DYNAMIC_SHARED(float, stage, 0, " +
                                                             std::to_string(4 * width + 4) + ");");
  try {
    run(kernel, other, in, width);
    FAIL() << "a kernel ran with less dynamic shared memory than it uses";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("bytes of dynamic shared memory, launched with"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace stitch
