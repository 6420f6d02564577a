// Runs as graphs on the CUDA emulator (runtime/run_graphs.h): a run the
// host needs nothing from before its end is walked once, recorded the
// second time its signature comes, and replayed as one launch from then on,
// on fresh inputs each time; a run whose host reads a tensor is never
// recorded.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "../common/random.h"
#include "common/error.h"
#include "compiled_program.h"
#include "emulator_env.h"
#include "runtime/cuda_emulator.h"
#include "runtime/gpu_device.h"

namespace stitch {
namespace {

// The bench's LSTM (state written in place, outputs collected in a list).
const char* kLstm =
    "def lstm(xs: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor,\n"
    "         b_hh: torch.Tensor, h: torch.Tensor,\n"
    "         c: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:\n"
    "    outputs: List[torch.Tensor] = []\n"
    "    for t in range(xs.shape[0]):\n"
    "        inp = xs[t]\n"
    "        for l in range(h.shape[0]):\n"
    "            gates = torch.nn.functional.linear(inp, w_ih[l], b_ih[l]) + "
    "torch.nn.functional.linear(h[l], w_hh[l], b_hh[l])\n"
    "            i, f, g, o = gates.chunk(4, 1)\n"
    "            c_new = torch.sigmoid(f) * c[l] + torch.sigmoid(i) * torch.tanh(g)\n"
    "            h_new = torch.sigmoid(o) * torch.tanh(c_new)\n"
    "            c[l].copy_(c_new)\n"
    "            h[l].copy_(h_new)\n"
    "            inp = h_new\n"
    "        outputs.append(inp)\n"
    "    return torch.stack(outputs), h, c\n";

TEST(CudaGraphs, ALoopProgramReplaysAsOneLaunchOnFreshInputs) {
  EmulatorEnv emulate;
  const int64_t steps = testing::randInt(2, 6), layers = testing::randInt(1, 3), batch = testing::randInt(1, 4),
                hidden = testing::randInt(4, 24);
  const std::vector<int64_t> xs{steps, batch, hidden}, w{layers, 4 * hidden, hidden}, b{layers, 4 * hidden},
      state{layers, batch, hidden};
  rtest::Compiled c = rtest::compileProgram(kLstm, "lstm",
                                            {"xs=" + dims(xs), "w_ih=" + dims(w), "w_hh=" + dims(w), "b_ih=" + dims(b),
                                             "b_hh=" + dims(b), "h=" + dims(state), "c=" + dims(state)},
                                            2, true);
  auto fresh = [&] {
    return IValueList{rtest::uniformF32(xs),         rtest::uniformF32(w, -0.3, 0.3), rtest::uniformF32(w, -0.3, 0.3),
                      rtest::uniformF32(b),          rtest::uniformF32(b),            rtest::uniformF32(state),
                      rtest::uniformF32(state)};
  };
  const RunStats first = rtest::expectAgreesWithInterpreter(c, fresh(), 1e-4);
  EXPECT_EQ(first.graphKernels, 0) << "the first run with a signature walks the program";
  EXPECT_GE(first.kernelCalls, steps * layers);
  for (int run = 2; run <= 4; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const RunStats s = rtest::expectAgreesWithInterpreter(c, fresh(), 1e-4);
    EXPECT_EQ(s.kernelCalls, 1) << "one graph launch";
    EXPECT_EQ(s.graphKernels, first.kernelCalls) << "the graph holds what the walk launched";
    EXPECT_EQ(s.hostSyncs, first.hostSyncs) << "the outputs, read back as the walk read them";
  }
}

// A scalar input is part of the signature: a decode step's start position
// changes what the kernels are given, so each start has a graph of its own.
TEST(CudaGraphs, EachSignatureHasItsOwnGraph) {
  EmulatorEnv emulate;
  const int64_t steps = testing::randInt(2, 5), heads = testing::randInt(1, 3), dim = testing::randInt(8, 24),
                positions = 16;
  rtest::Compiled c = rtest::compileProgram(
      "def f(q: torch.Tensor, k: torch.Tensor, cache_k: torch.Tensor, acc: torch.Tensor, start: int) -> "
      "torch.Tensor:\n"
      "    for t in range(q.shape[0]):\n"
      "        pos = start + t\n"
      "        cache_k[:, pos] = k[t]\n"
      "        keys = cache_k[:, :pos + 1]\n"
      "        scores = q[t].unsqueeze(1) @ keys.transpose(-1, -2)\n"
      "        acc = acc + torch.softmax(scores, dim=-1) @ keys\n"
      "    return acc\n",
      "f",
      {"q=" + dims({steps, heads, dim}), "k=" + dims({steps, heads, dim}), "cache_k=" + dims({heads, positions, dim}),
       "acc=" + dims({heads, 1, dim}), "start=3"},
      2, true);
  auto run = [&](int64_t start) {
    SCOPED_TRACE("start " + std::to_string(start));
    return rtest::expectAgreesWithInterpreter(
        c,
        {rtest::uniformF32({steps, heads, dim}), rtest::uniformF32({steps, heads, dim}),
         rtest::uniformF32({heads, positions, dim}), rtest::uniformF32({heads, 1, dim}), IValue(start)},
        1e-4);
  };
  const int64_t a = testing::randInt(0, 5), b = a + testing::randInt(1, 16 - steps - a);
  EXPECT_EQ(run(a).graphKernels, 0);
  EXPECT_GT(run(a).graphKernels, 0) << "recorded on the second run";
  EXPECT_EQ(run(b).graphKernels, 0) << "another start: walked first";
  EXPECT_GT(run(a).graphKernels, 0) << "the first start's graph replays";
  EXPECT_GT(run(b).graphKernels, 0);
  EXPECT_GT(run(b).graphKernels, 0);
}

// A run whose host reads a tensor to decide what comes next walks the
// program every time, with the same results.
TEST(CudaGraphs, RunsWhoseHostReadsATensorAreNeverRecorded) {
  EmulatorEnv emulate;
  const int64_t n = testing::randInt(3, 30);
  rtest::Compiled c = rtest::compileProgram(
      "def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
      "    for i in range(3):\n"
      "        if float(torch.sum(y)) > 0.0:\n"
      "            y = torch.tanh(y * x)\n"
      "        else:\n"
      "            y = torch.sigmoid(y + x)\n"
      "    return y\n",
      "f", {"x=" + dims({n}), "y=" + dims({n})}, 2, true);
  for (int run = 1; run <= 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const RunStats s = rtest::expectAgreesWithInterpreter(c, {rtest::uniformF32({n}), rtest::uniformF32({n})}, 1e-5);
    EXPECT_EQ(s.graphKernels, 0);
    EXPECT_GE(s.kernelCalls, 3);
  }
}

// An input uploaded after the run's first kernels gets a block no earlier
// kernel of the graph used: a replay uploads every input before the graph
// runs.
TEST(CudaGraphs, InputsUploadedLateKeepTheirData) {
  EmulatorEnv emulate;
  const int64_t n = testing::randInt(4, 8);  // the region written is not empty
  rtest::Compiled c = rtest::compileProgram(
      "def f(x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:\n"
      "    x[..., 3:, 2] -= 1.5\n"
      "    return -z\n",
      "f", {"x=" + dims({2, n, 4}), "z=" + dims({n, 1})}, 2, true);
  for (int run = 1; run <= 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const RunStats s =
        rtest::expectAgreesWithInterpreter(c, {rtest::uniformF32({2, n, 4}), rtest::uniformF32({n, 1})}, 1e-6);
    EXPECT_EQ(s.graphKernels > 0, run > 1);
  }
}

// An argument returned is the caller's tensor in a replay too, not a copy.
TEST(CudaGraphs, AnArgumentReturnedIsTheCallersTensor) {
  EmulatorEnv emulate;
  const int64_t n = testing::randInt(3, 30);
  rtest::Compiled c = rtest::compileProgram(
      "def g(x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:\n"
      "    return x, torch.tanh(y)\n",
      "g", {"x=" + dims({n}), "y=" + dims({n})}, 2, true);
  for (int run = 1; run <= 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const IValueList inputs{rtest::uniformF32({n}), rtest::uniformF32({n})};
    RunStats stats;
    const IValueList out = c.exe->run(inputs, &stats);
    EXPECT_EQ(stats.graphKernels, run == 1 ? 0 : 1) << "tanh";
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(out[0].toTensor().sameStorage(inputs[0].toTensor()));
    EXPECT_EQ(out[0].toTensor().sizes(), inputs[0].toTensor().sizes());
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(out[1].toTensor().data<float>()[i], std::tanh(inputs[1].toTensor().data<float>()[i]), 1e-6);
  }
}

// The device's side: recorded work runs only when the graph is launched,
// as often as it is; a host transfer during a capture is an internal
// error; memory allocated during a capture is the graph's and is handed
// out again only within that capture.
TEST(CudaGraphs, TheEmulatorRecordsAndReplays) {
  EmulatorEnv emulate;
  GpuDevice& device = gpuDevice();
  ASSERT_TRUE(device.canCapture());
  const size_t n = 64 + testing::randInt(0, 64);
  std::vector<float> host(n), back(n);
  for (float& x : host) x = (float)testing::randInt(-100, 100);
  const CudaPointer src = device.allocate(n * 4);
  device.copyToDevice(src, host.data(), n * 4);
  device.beginCapture();
  EXPECT_TRUE(device.capturing());
  const CudaPointer temp = device.allocate(n * 4), dst = device.allocate(n * 4);
  device.copyOnDevice(temp, src, n * 4);
  device.release(temp);
  EXPECT_EQ(device.allocate(n * 4), temp) << "a block released within the capture serves it again";
  const CudaPointer early = device.allocate(n * 4);
  device.copyOnDevice(early, src, n * 4);
  device.release(early);
  EXPECT_NE(device.allocate(n * 4, true), early) << "a fresh block is none the capture used before";
  device.copyOnDevice(dst, src, n * 4);
  EXPECT_THROW(device.copyToHost(back.data(), dst, n * 4), InternalError);
  std::unique_ptr<GpuGraph> graph = device.endCapture();
  ASSERT_TRUE(graph);
  EXPECT_FALSE(device.capturing());
  const CudaPointer outside = device.allocate(n * 4);
  EXPECT_NE(outside, temp) << "the graph's memory stays its own";
  EXPECT_NE(outside, dst);
  std::vector<unsigned char> untouched(n * 4);
  device.copyToHost(untouched.data(), dst, n * 4);
  EXPECT_NE(std::memcmp(untouched.data(), host.data(), n * 4), 0) << "nothing ran before the launch";
  for (int launch = 0; launch < 2; ++launch) {
    for (float& x : host) x += 1.0f;
    device.copyToDevice(src, host.data(), n * 4);
    graph->launch();
    device.copyToHost(back.data(), dst, n * 4);
    EXPECT_EQ(back, host) << "launch " << launch;
  }
  device.release(outside);
  device.release(src);
}

}  // namespace
}  // namespace stitch
