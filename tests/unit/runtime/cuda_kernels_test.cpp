// The runtime's CUDA path on the CUDA emulator (runtime/cuda_emulator.h):
// the buffers a kernel needs beyond its own (scratch shared by the blocks),
// the part after the grid as a launch of its own.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "../codegen/column_kernel.h"
#include "../common/random.h"
#include "compiled_program.h"
#include "emulator_env.h"
#include "codegen/c_renderer.h"
#include "codegen/nvrtc_compiler.h"
#include "runtime/cuda_emulator.h"
#include "runtime/cuda_kernels.h"
#include "runtime/device_attention.h"
#include "runtime/device_contraction.h"
#include "runtime/device_copy.h"
#include "runtime/device_values.h"
#include "uops/lane_reduce.h"

namespace stitch {
namespace {

TEST(CudaKernels, ColumnKernelRunsItsGridThenItsCombineOnTheEmulator) {
  EmulatorEnv emulate;
  const int64_t parts = 2 + testing::randInt(0, 4), rows = parts * testing::randInt(40, 90), cols = 130;
  KernelUOps uops = codegentest::columnSum(parts, rows, cols);
  CudaKernels kernels({uops}, renderCuda({uops}));
  EXPECT_EQ(&gpuDevice(), &CudaEmulator::get());
  std::vector<float> in((size_t)(rows * cols)), out((size_t)cols, 0.0f);
  for (float& x : in) x = (float)testing::randInt(-1000, 1000) / 64.0f;
  GpuDevice& device = gpuDevice();
  CudaPointer bufs[] = {device.allocate(out.size() * 4), device.allocate(in.size() * 4)};
  device.copyToDevice(bufs[1], in.data(), in.size() * 4);
  kernels.launch("column_sum", bufs, 2, nullptr, 0);
  EXPECT_EQ(kernels.launches(), 2) << "the grid, then the combine";
  device.copyToHost(out.data(), bufs[0], out.size() * 4);
  for (CudaPointer p : bufs) device.release(p);
  for (int64_t c = 0; c < cols; ++c) {
    double expected = 0;  // the values are exact in f32 and f64 alike
    for (int64_t r = 0; r < rows; ++r) expected += in[(size_t)(r * cols + c)];
    EXPECT_EQ(out[(size_t)c], (float)expected) << "column " << c;
  }
}

// A run's host syncs are the kernel results the host reads: here the
// contractions run on the device's BLAS too, so the only one is the
// program's output, the second product's result. (That a result nobody
// reads on the host stays on the device: DeviceValues below.)
TEST(CudaKernels, HostSyncsAreTheKernelResultsTheHostReads) {
  EmulatorEnv emulate;
  rtest::Compiled c = rtest::compileProgram(
      "def mlp(x: torch.Tensor, w: torch.Tensor, w2: torch.Tensor) -> torch.Tensor:\n"
      "    h = x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + 1e-6)\n"
      "    y = h @ w\n"
      "    return (torch.sigmoid(y) * y * 2.0) @ w2\n",
      "mlp", {"x=f32[64,128]", "w=f32[128,256]", "w2=f32[256,96]"}, 2, true);
  IValueList inputs = {rtest::uniformF32({64, 128}), rtest::uniformF32({128, 256}, -0.1, 0.1),
                       rtest::uniformF32({256, 96}, -0.1, 0.1)};
  RunStats stats = rtest::expectAgreesWithInterpreter(c, inputs, 1e-4);
  EXPECT_EQ(stats.kernelCalls, 4);
  EXPECT_EQ(stats.hostSyncs, 1);
}

// Every form of contraction kernel on the device's BLAS (the emulator's
// routine has cuBLAS's column-major contract): the row-major operands are
// passed as they lie, linear's W transposed by the call, one A for a batch
// of B with a zero stride; linear's bias and a merged bias + relu in the
// epilogue kernel. Nothing goes back to the host before the outputs.
TEST(CudaKernels, ContractionsRunOnTheDevicesBlas) {
  EmulatorEnv emulate;
  // Products of at least 2^18 multiply-adds: contraction kernels, not generated code.
  const int64_t b = testing::randInt(2, 4), m = testing::randInt(64, 96), k = testing::randInt(128, 160),
                n = testing::randInt(64, 100);
  rtest::Compiled c = rtest::compileProgram(
      "def f(x: torch.Tensor, w: torch.Tensor, xb: torch.Tensor, wb: torch.Tensor, wl: torch.Tensor,\n"
      "      bias: torch.Tensor, w2: torch.Tensor) -> List[torch.Tensor]:\n"
      "    return [x @ w, torch.bmm(xb, wb), torch.matmul(x, wb), torch.nn.functional.linear(x, wl, bias),\n"
      "            torch.relu(x @ w2 + bias), torch.matmul(xb, w)]\n",
      "f",
      {"x=" + dims({m, k}), "w=" + dims({k, n}), "xb=" + dims({b, m, k}), "wb=" + dims({b, k, n}),
       "wl=" + dims({n, k}), "bias=" + dims({n}), "w2=" + dims({k, n})},
      2, true);
  IValueList inputs = {rtest::uniformF32({m, k}),    rtest::uniformF32({k, n}), rtest::uniformF32({b, m, k}),
                       rtest::uniformF32({b, k, n}), rtest::uniformF32({n, k}), rtest::uniformF32({n}, -20, 20),
                       rtest::uniformF32({k, n}, -1, 0)};
  RunStats stats = rtest::expectAgreesWithInterpreter(c, inputs, 1e-4);
  EXPECT_EQ(stats.hostSyncs, 6) << "the six outputs, read once each";
  EXPECT_EQ(stats.kernelCalls, 8) << "six products, two with an epilogue";
}

// The activations an epilogue applies (GELU in both forms, sigmoid, tanh,
// SiLU) run in the device's epilogue kernel after the BLAS product, with
// the bias: two launches per product.
TEST(CudaKernels, ActivationEpiloguesRunOnTheDevice) {
  EmulatorEnv emulate;
  const int64_t m = testing::randInt(64, 96), k = testing::randInt(128, 160), n = testing::randInt(64, 100);
  rtest::Compiled c = rtest::compileProgram(
      "def f(x: torch.Tensor, w0: torch.Tensor, w1: torch.Tensor, w2: torch.Tensor, w3: torch.Tensor,\n"
      "      w4: torch.Tensor, b0: torch.Tensor, b1: torch.Tensor, b2: torch.Tensor, b3: torch.Tensor,\n"
      "      b4: torch.Tensor) -> List[torch.Tensor]:\n"
      "    return [torch.nn.functional.gelu(x @ w0 + b0),\n"
      "            torch.nn.functional.gelu(x @ w1 + b1, approximate='tanh'), torch.sigmoid(x @ w2 + b2),\n"
      "            torch.tanh(x @ w3 + b3), torch.nn.functional.silu(x @ w4 + b4)]\n",
      "f",
      {"x=" + dims({m, k}), "w0=" + dims({k, n}), "w1=" + dims({k, n}), "w2=" + dims({k, n}),
       "w3=" + dims({k, n}), "w4=" + dims({k, n}), "b0=" + dims({n}), "b1=" + dims({n}), "b2=" + dims({n}),
       "b3=" + dims({n}), "b4=" + dims({n})},
      2, true);
  int contractions = 0;
  for (const Kernel& kernel : c.exe->kernelGraph().kernels)
    contractions += kernel.kind == KernelKind::Contraction && kernel.nodes.size() > 1;
  EXPECT_EQ(contractions, 5) << "each product with its epilogue";
  IValueList inputs = {rtest::uniformF32({m, k})};
  for (int i = 0; i < 5; ++i) inputs.push_back(rtest::uniformF32({k, n}, -0.2, 0.2));
  for (int i = 0; i < 5; ++i) inputs.push_back(rtest::uniformF32({n}, -2, 2));
  RunStats stats = rtest::expectAgreesWithInterpreter(c, inputs, 1e-4);
  EXPECT_EQ(stats.kernelCalls, 10) << "a product and its epilogue each";
}

// A host loop's carried values stay on the device from one iteration to
// the next (a device copy, not a read-back), and so does a state the body
// writes in place: the run's host syncs are its two outputs, whatever the
// trip count.
TEST(CudaKernels, LoopCarriesStayOnTheDevice) {
  EmulatorEnv emulate;
  const int64_t steps = testing::randInt(2, 9);
  rtest::Compiled c = rtest::compileProgram(
      "def f(x: torch.Tensor, w: torch.Tensor, h: torch.Tensor, state: torch.Tensor) -> "
      "Tuple[torch.Tensor, torch.Tensor]:\n"
      "    for i in range(x.shape[0]):\n"
      "        h = torch.tanh(h @ w + x[i])\n"
      "        state[1].copy_(h * 2.0)\n"
      "    return h, state\n",
      "f", {"x=f32[" + std::to_string(steps) + ",4,64]", "w=f32[64,64]", "h=f32[4,64]", "state=f32[2,4,64]"}, 2,
      true);
  IValueList inputs = {rtest::uniformF32({steps, 4, 64}), rtest::uniformF32({64, 64}, -0.2, 0.2),
                       rtest::uniformF32({4, 64}), rtest::uniformF32({2, 4, 64})};
  RunStats stats = rtest::expectAgreesWithInterpreter(c, inputs, 1e-4);
  EXPECT_EQ(stats.hostSyncs, 2) << "h and state, once each";
}

// The list each program returns for copies of `inputs` (of `size` items).
std::pair<IValueList, IValueList> listsOfBoth(rtest::Compiled& gpu, rtest::Compiled& cpu, const IValueList& inputs,
                                              size_t size) {
  IValueList a = gpu.exe->run(rtest::cloneInputs(inputs)).at(0).toList(),
             b = cpu.exe->run(rtest::cloneInputs(inputs)).at(0).toList();
  EXPECT_EQ(a.size(), size);
  EXPECT_EQ(b.size(), size);
  a.resize(size), b.resize(size);
  return {a, b};
}

// The program's CUDA text calls each of `helpers`, and NVRTC compiles it
// for the GPUs the project targets (the emulator compiled it as C).
void expectCudaTextWith(const rtest::Compiled& gpu, const std::vector<std::string>& helpers, const std::string& name) {
  const std::string& source = gpu.exe->source();
  for (const std::string& helper : helpers) EXPECT_NE(source.find(helper), std::string::npos) << helper << "\n" << source;
  std::string why;
  if (!nvrtcAvailable(&why)) return;
  for (int arch : {80, 90}) EXPECT_NO_THROW(compileCudaUncached(source, arch, {}, name + ".cu")) << "sm_" << arch;
}

// A row's sum as lane_reduce.h documents it for lanes on threads: W =
// threadReduceLanes(n) lanes, lane l folding x[l], x[W + l], ... in order
// (`square`: x * x, each term fused into the lane's sum), the tail into
// the first lanes, then the lanes pairwise, halving.
float threadLaneSum(const float* row, int64_t n, bool square) {
  const int64_t w = threadReduceLanes(n), full = n / w * w;
  auto add = [&](float acc, float x) { return square ? std::fmaf(x, x, acc) : acc + x; };
  std::vector<float> lanes((size_t)w, 0.0f);
  for (int64_t l = 0; l < w; ++l)
    for (int64_t o = 0; o < n / w; ++o) lanes[l] = add(lanes[l], row[o * w + l]);
  for (int64_t t = 0; t < n - full; ++t) lanes[t] = add(lanes[t], row[full + t]);
  for (int64_t h = w / 2; h >= 1; h /= 2)
    for (int64_t l = 0; l < h; ++l) lanes[l] = lanes[l] + lanes[l + h];
  return lanes[0];
}

// Row reductions take their lanes from the block's threads, fold through
// shared memory and warp shuffles, and give the documented order's bits,
// whatever order the threads ran in; softmax's max and sums agree with
// the CPU kernels within the tolerance.
TEST(CudaKernels, LaneReductionsOnTheBlocksThreadsFoldInTheDocumentedOrder) {
  EmulatorEnv emulate;
  const int64_t rows = testing::randInt(2, 12), cols = testing::randInt(600, 3000);
  const std::string spec = "x=f32[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
  const std::string source =
      "def f(x: torch.Tensor) -> List[torch.Tensor]:\n"
      "    return [torch.softmax(x, dim=-1), x.sum(-1), (x * x).mean(-1, keepdim=True)]\n";
  rtest::Compiled gpu = rtest::compileProgram(source, "f", {spec}, 2, true);
  rtest::Compiled cpu = rtest::compileProgram(source, "f", {spec}, 2, false);
  expectCudaTextWith(gpu, {"stitch_block_fold128_add_f32(", "stitch_block_fold128_max_f32(", "STITCH_SHFL_DOWN("},
                     "lane_reductions");
  IValueList inputs = {rtest::uniformF32({rows, cols}, -4, 4)};
  const float* x = static_cast<const float*>(inputs[0].toTensor().rawData());
  for (int run = 0; run < 2; ++run) {  // another shuffle of the threads
    const auto [a, b] = listsOfBoth(gpu, cpu, inputs, 3);
    const float* sums = static_cast<const float*>(a[1].toTensor().contiguous().rawData());
    const float* means = static_cast<const float*>(a[2].toTensor().contiguous().rawData());
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_EQ(sums[r], threadLaneSum(x + r * cols, cols, false)) << "row " << r << ", run " << run;
      EXPECT_EQ(means[r], threadLaneSum(x + r * cols, cols, true) / (float)cols) << "row " << r << ", run " << run;
    }
    const Tensor &p = a[0].toTensor(), &q = b[0].toTensor();
    const float *pg = static_cast<const float*>(p.rawData()), *pc = static_cast<const float*>(q.rawData());
    for (int64_t i = 0; i < rows * cols; ++i) ASSERT_NEAR(pg[i], pc[i], 1e-6f + 1e-5f * std::fabs(pc[i])) << i;
  }
}

// Every combine folds across a block the same way: max and min (NaN
// wins), products, integer sums. Max, min and integers are exact in any
// order, so the emulated GPU's results equal the CPU kernels' bit for bit.
TEST(CudaKernels, BlockFoldsOfEveryCombineMatchTheCpu) {
  EmulatorEnv emulate;
  const int64_t rows = testing::randInt(2, 9), cols = testing::randInt(300, 2000);
  const std::string shape = "[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
  const std::string source =
      "def f(x: torch.Tensor, n: torch.Tensor) -> List[torch.Tensor]:\n"
      "    return [x.amax(-1), torch.amin(x, -1), (x * 0.01 + 1.0).prod(-1), n.sum(-1), n.to(torch.int32).amax(-1)]\n";
  const std::vector<std::string> specs = {"x=f32" + shape, "n=i64" + shape};
  rtest::Compiled gpu = rtest::compileProgram(source, "f", specs, 2, true);
  rtest::Compiled cpu = rtest::compileProgram(source, "f", specs, 2, false);
  expectCudaTextWith(gpu,
                     {"stitch_block_fold128_max_f32(", "stitch_block_fold128_min_f32(", "stitch_block_fold128_mul_f32(",
                      "stitch_block_fold128_add_i64(", "stitch_block_fold128_max_i32("},
                     "block_folds");
  Tensor x = rtest::uniformF32({rows, cols}, -8, 8);
  x.setDouble(testing::randInt(0, cols - 1), std::nan(""));  // row 0 has a NaN
  Tensor n = Tensor::empty({rows, cols}, DType::i64);
  for (int64_t i = 0; i < n.numel(); ++i) n.setInt(i, testing::randInt(-1000000, 1000000) * 1000003);
  const IValueList inputs = {x, n};
  for (int run = 0; run < 2; ++run) {  // another shuffle of the threads
    const auto [a, b] = listsOfBoth(gpu, cpu, inputs, 5);
    for (size_t k : {0, 1, 3, 4}) {
      const Tensor &p = a[k].toTensor(), &q = b[k].toTensor();
      ASSERT_EQ(p.numel(), rows);
      EXPECT_EQ(std::memcmp(p.contiguous().rawData(), q.contiguous().rawData(), size_t(rows) * dtypeSize(p.dtype())), 0)
          << "output " << k << ", run " << run;
    }
    EXPECT_TRUE(std::isnan(a[0].toTensor().getDouble(0)) && std::isnan(a[1].toTensor().getDouble(0)));
    EXPECT_TRUE(std::isnan(a[2].toTensor().getDouble(0)));
    for (int64_t r = 1; r < rows; ++r) {
      const double p = a[2].toTensor().getDouble(r), q = b[2].toTensor().getDouble(r);
      EXPECT_NEAR(p, q, 1e-5 * std::fabs(q) * std::sqrt((double)cols)) << "row " << r;
    }
  }
}

// A block's tile too large for a thread's own arrays lives in the block's
// dynamic shared memory when it fits the device's shared memory per block,
// else in the arena buffer in global memory. Both do the same arithmetic
// in the same order, so their results agree bit for bit.
TEST(CudaKernels, LargeTilesLiveInSharedMemoryWhereTheDeviceHasRoom) {
  EmulatorEnv emulate;
  const int64_t rows = testing::randInt(2, 4), cols = testing::randInt(14000, 20000);  // 55-78 KiB rows
  const std::string spec = "x=f32[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
  const std::string source = "def f(x: torch.Tensor) -> torch.Tensor:\n    return torch.softmax(x, dim=-1)\n";
  const std::string tile = "STITCH_DYNAMIC_SHARED(float, tile0, 0, " + std::to_string(4 * cols) + ");";
  rtest::Compiled any = rtest::compileProgram(source, "f", {spec}, 2, true);
  EXPECT_EQ(any.exe->source().find("STITCH_DYNAMIC_SHARED(float"), std::string::npos)
      << "over the 48 KiB every GPU gives a block:\n" << any.exe->source();
  CudaDeviceLimits hopper;
  hopper.sharedMemoryPerBlock = CudaEmulator::kSharedMemoryPerBlock;
  rtest::Compiled gpu = rtest::compileProgram(source, "f", {spec}, 2, true, hopper);
  expectCudaTextWith(gpu, {tile, "stitch_block_fold128_add_f32("}, "shared_tile");
  rtest::Compiled cpu = rtest::compileProgram(source, "f", {spec}, 2, false);
  const IValueList inputs = {rtest::uniformF32({rows, cols}, -6, 6)};
  const Tensor a = gpu.exe->run(rtest::cloneInputs(inputs)).at(0).toTensor();
  const Tensor b = any.exe->run(rtest::cloneInputs(inputs)).at(0).toTensor();
  const Tensor c = cpu.exe->run(rtest::cloneInputs(inputs)).at(0).toTensor();
  EXPECT_EQ(std::memcmp(a.rawData(), b.rawData(), size_t(rows * cols) * sizeof(float)), 0);
  const float *pg = static_cast<const float*>(a.rawData()), *pc = static_cast<const float*>(c.rawData());
  for (int64_t i = 0; i < rows * cols; ++i) ASSERT_NEAR(pg[i], pc[i], 1e-7f + 1e-5f * std::fabs(pc[i])) << i;

  // A tile under 48 KiB takes shared memory on any GPU.
  const int64_t small = testing::randInt(1500, 6000);
  rtest::Compiled row = rtest::compileProgram(source, "f", {"x=f32[3," + std::to_string(small) + "]"}, 2, true);
  expectCudaTextWith(row, {"STITCH_DYNAMIC_SHARED(float, tile0, 0, " + std::to_string(4 * small) + ");"}, "small_tile");
  rtest::Compiled rowCpu = rtest::compileProgram(source, "f", {"x=f32[3," + std::to_string(small) + "]"}, 2, false);
  const IValueList few = {rtest::uniformF32({3, small}, -6, 6)};
  const Tensor d = row.exe->run(rtest::cloneInputs(few)).at(0).toTensor();
  const Tensor e = rowCpu.exe->run(rtest::cloneInputs(few)).at(0).toTensor();
  for (int64_t i = 0; i < 3 * small; ++i)
    ASSERT_NEAR(d.getDouble(i), e.getDouble(i), 1e-7 + 1e-5 * std::fabs(e.getDouble(i))) << i;
}

// The runtime's predefined device kernels (not made by the renderer, so
// the differential suite's NVRTC check never sees them) compile for the
// GPUs the project targets.
TEST(CudaKernels, PredefinedDeviceKernelsCompileWithNvrtc) {
  std::string why;
  if (!nvrtcAvailable(&why)) GTEST_SKIP() << why;
  for (const std::string& source : {deviceAttentionSource(), contractionEpilogueSource(), deviceCopySource()})
    for (int arch : {80, 90}) EXPECT_NO_THROW(compileCudaUncached(source, arch, {}, "predefined.cu")) << "sm_" << arch;
}

// An attention chain runs on the device as the flash-decoding kernels:
// several chunks of keys (the last one short), blocks of query rows that
// the row count does not fill, head dims that are not a multiple of the
// warp's 32 lanes. The chunk kernel's warps sum across lanes by shuffles;
// on the emulator every thread of a block takes part in each, in a
// shuffled order. Only the output comes back to the host.
TEST(CudaKernels, AttentionRunsAsFlashDecodingOnTheDevice) {
  EmulatorEnv emulate;
  const int64_t batch = testing::randInt(1, 3), rows = testing::randInt(1, 9), dim = testing::randInt(20, 128),
                dimV = testing::randInt(16, 80);
  for (int64_t keys : {testing::randInt(1, 255), testing::randInt(300, 800)}) {
    SCOPED_TRACE("keys " + std::to_string(keys));
    rtest::Compiled c = rtest::compileProgram(
        "def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:\n"
        "    return torch.softmax(torch.matmul(q, k.transpose(1, 2)) * 0.2, dim=-1) @ v\n",
        "f", {"q=" + dims({batch, rows, dim}), "k=" + dims({batch, keys, dim}), "v=" + dims({batch, keys, dimV})}, 2,
        true);
    IValueList inputs = {rtest::uniformF32({batch, rows, dim}, -2, 2), rtest::uniformF32({batch, keys, dim}, -2, 2),
                         rtest::uniformF32({batch, keys, dimV})};
    RunStats stats = rtest::expectAgreesWithInterpreter(c, inputs, 1e-4);
    EXPECT_EQ(stats.kernelCalls, keys > 256 ? 2 : 1) << "the chunks, then their combine when there are several";
    EXPECT_EQ(stats.hostSyncs, 1) << "the output";
  }
}

// A decode step's tensors stay on the device: the caches are uploaded
// once, each step's rows are written into them there (a strided copy per
// cache), the attention reads the slices of keys so far where they lie
// (no dense copy), and nothing comes back before the outputs, whatever the
// number of steps.
TEST(CudaKernels, ViewsAndRegionWritesOfAKvCacheStayOnTheDevice) {
  EmulatorEnv emulate;
  const int64_t steps = testing::randInt(2, 7), batch = testing::randInt(1, 3), heads = testing::randInt(1, 4),
                dim = testing::randInt(8, 40), start = testing::randInt(0, 20), positions = start + steps + 3;
  rtest::Compiled c = rtest::compileProgram(
      "def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cache_k: torch.Tensor, cache_v: torch.Tensor,\n"
      "      acc: torch.Tensor, start: int) -> torch.Tensor:\n"
      "    for t in range(q.shape[0]):\n"
      "        pos = start + t\n"
      "        cache_k[:, :, pos] = k[t]\n"
      "        cache_v[:, :, pos] = v[t]\n"
      "        keys = cache_k[:, :, :pos + 1]\n"
      "        values = cache_v[:, :, :pos + 1]\n"
      "        scores = (q[t].unsqueeze(2) @ keys.transpose(-1, -2)) * 0.125\n"
      "        acc = acc + torch.softmax(scores, dim=-1) @ values\n"
      "    return acc\n",
      "f",
      {"q=" + dims({steps, batch, heads, dim}), "k=" + dims({steps, batch, heads, dim}),
       "v=" + dims({steps, batch, heads, dim}), "cache_k=" + dims({batch, heads, positions, dim}),
       "cache_v=" + dims({batch, heads, positions, dim}), "acc=" + dims({batch, heads, 1, dim}),
       "start=" + std::to_string(start)},
      2, true);
  IValueList inputs = {rtest::uniformF32({steps, batch, heads, dim}),
                       rtest::uniformF32({steps, batch, heads, dim}),
                       rtest::uniformF32({steps, batch, heads, dim}),
                       rtest::uniformF32({batch, heads, positions, dim}),
                       rtest::uniformF32({batch, heads, positions, dim}),
                       rtest::uniformF32({batch, heads, 1, dim}),
                       IValue(start)};
  RunStats stats = rtest::expectAgreesWithInterpreter(c, inputs, 1e-4);
  EXPECT_EQ(stats.hostSyncs, 3) << "the output and the two caches the caller gets back, once each";
  EXPECT_EQ(stats.kernelCalls, 4 * steps) << "per step two row writes, the attention and the sum";
}

// Tensors appended to a list stay on the device until the host reads the
// list: a stack and a cat of the list (shape unknown to the graph: host
// ops) copy the pieces there, a stack's rows in one launch; the list
// returned as it is brings each element back once.
TEST(CudaKernels, ListElementsStayOnTheDeviceUntilTheHostReadsTheList) {
  EmulatorEnv emulate;
  const int64_t steps = testing::randInt(2, 9), rows = testing::randInt(1, 5), width = testing::randInt(8, 70);
  rtest::Compiled c = rtest::compileProgram(
      "def f(x: torch.Tensor, w: torch.Tensor, h: torch.Tensor) -> "
      "Tuple[torch.Tensor, torch.Tensor, List[torch.Tensor]]:\n"
      "    outs: List[torch.Tensor] = []\n"
      "    for i in range(x.shape[0]):\n"
      "        h = torch.tanh(h @ w + x[i])\n"
      "        outs.append(h.t())\n"
      "    return torch.stack(outs, 1), torch.cat(outs, 0), outs\n",
      "f",
      {"x=" + dims({steps, rows, width}), "w=" + dims({width, width}), "h=" + dims({rows, width})},
      2, true);
  IValueList inputs = {rtest::uniformF32({steps, rows, width}), rtest::uniformF32({width, width}, -0.3, 0.3),
                       rtest::uniformF32({rows, width})};
  RunStats stats = rtest::expectAgreesWithInterpreter(c, inputs, 1e-4);
  EXPECT_EQ(stats.hostSyncs, 2 + steps) << "the stack, the cat and each element of the list returned";
}

// Resident: a value is uploaded once however many kernels read it, and a
// kernel's output is read back once, when the host first reads it. Not
// resident: outputs come back at once and uploads last one call.
TEST(DeviceValues, ResidentValuesMoveOnlyWhenTheOtherSideNeedsThem) {
  EmulatorEnv emulate;
  GpuDevice& device = gpuDevice();
  const int64_t n = testing::randInt(1, 1000);
  Tensor input = rtest::uniformF32({n}), output = rtest::uniformF32({n});
  for (bool resident : {true, false}) {
    DeviceValues values(device, 2, resident);
    CudaPointer in = values.forKernel(0, input);
    EXPECT_EQ(values.forKernel(0, input) == in, resident) << "a second read uploads again only when not resident";
    values.endCall();
    // A "kernel": the input doubled, written on the device.
    std::vector<float> doubled(input.data<float>(), input.data<float>() + n);
    for (float& v : doubled) v *= 2;
    CudaPointer out = values.allocate((size_t)n * 4);
    device.copyToDevice(out, doubled.data(), (size_t)n * 4);
    values.written(1, out, output);
    EXPECT_EQ(values.hostSyncs(), resident ? 0 : 1);
    values.readOnHost(1);
    values.readOnHost(1);
    EXPECT_EQ(values.hostSyncs(), 1) << "one read-back, resident or not";
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(output.data<float>()[i], doubled[(size_t)i]) << i;
    values.forget(0);
    values.forget(1);
  }
}

// Views share their value's buffer: a kernel reads a strided one through a
// dense copy made on the device, and a region written on the device shows
// when the host reads the value back -- for every element size. The host's
// copy of the value is wrong (zeros) until then, so a read of it shows.
TEST(DeviceValues, StridedViewsAndRegionWritesOnTheDevice) {
  EmulatorEnv emulate;
  GpuDevice& device = gpuDevice();
  for (DType dtype : {DType::b8, DType::i32, DType::i64, DType::f64}) {
    SCOPED_TRACE(dtypeName(dtype));
    const int64_t a = testing::randInt(2, 6), b = testing::randInt(2, 7), c = testing::randInt(1, 5);
    Tensor truth = Tensor::empty({a, b, c}, dtype);
    for (int64_t i = 0; i < truth.numel(); ++i) truth.setInt(i, dtype == DType::b8 ? i % 2 : i * 7 - 40);
    Tensor host = Tensor::empty({a, b, c}, dtype);  // behind the device: zeros
    DeviceValues values(device, 3, true);
    const size_t bytes = size_t(truth.numel()) * dtypeSize(dtype);
    CudaPointer p = values.allocate(bytes);
    device.copyToDevice(p, truth.rawData(), bytes);
    values.written(0, p, host);
    // A transposed view: dense on the device, in the view's order.
    Tensor view = host.asStrided({b, a, c}, {c, b * c, 1}, 0);
    ASSERT_TRUE(values.shareView(1, 0, view));
    Tensor dense = Tensor::empty({b, a, c}, dtype);
    device.copyToHost(dense.rawData(), values.forKernel(1, view), bytes);
    const Tensor expected = truth.asStrided({b, a, c}, {c, b * c, 1}, 0).contiguous();
    for (int64_t i = 0; i < dense.numel(); ++i) ASSERT_EQ(dense.getInt(i), expected.getInt(i)) << i;
    EXPECT_EQ(values.hostSyncs(), 0);
    values.endCall();
    values.forget(1);
    // Row 1 of the value (along b) <- a [c] source broadcast over a.
    Tensor src = Tensor::empty({c}, dtype);
    for (int64_t i = 0; i < c; ++i) src.setInt(i, dtype == DType::b8 ? 1 : 1000 + i);
    Tensor region = host.asStrided({a, c}, {b * c, 1}, c);
    ASSERT_TRUE(values.writeRegion(0, region, 2, src));
    values.readOnHost(0);
    EXPECT_EQ(values.hostSyncs(), 1);
    for (int64_t i = 0; i < a; ++i)
      for (int64_t j = 0; j < b; ++j)
        for (int64_t k = 0; k < c; ++k) {
          const int64_t at = (i * b + j) * c + k;
          ASSERT_EQ(host.getInt(at), j == 1 ? src.getInt(k) : truth.getInt(at)) << i << "," << j << "," << k;
        }
  }
}

}  // namespace
}  // namespace stitch
