// The public API as its users see it: only include/stitch/stitch.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

#include "stitch/stitch.h"

namespace {

namespace api = stitch::api;

const char* kSource = R"(import torch
from typing import List, Tuple

def scale_shift(x: torch.Tensor, scale: float = 2.0, shift: float = 0.5) -> torch.Tensor:
    return x * scale + shift

def bump_first_row(x: torch.Tensor, by: float) -> torch.Tensor:
    x[0] += by
    return x.sum(1)

def total(xs: List[torch.Tensor]) -> torch.Tensor:
    out = torch.zeros_like(xs[0])
    for x in xs:
        out = out + x
    return out

def pair(x: torch.Tensor, n: int = 3) -> Tuple[torch.Tensor, int]:
    return x * float(n), n + 1

def halve_until_small(x: torch.Tensor, steps: int) -> torch.Tensor:
    for i in range(steps):
        if float(x.abs().max()) < 1e-30:
            break
        x = x * 0.5 + 0.25
    return x

def broken(x: torch.Tensor) -> torch.Tensor:
    return x.no_such_method()

def refused_scale(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    rows = []
    for i in range(3):
        if i < 3:
            rows.append(x[i])
    x.mul_(10.0)
    return [rows[0] + y, y * 2.0]
)";

std::mt19937 rng(std::random_device{}());

api::Tensor randomTensor(std::vector<int64_t> sizes) {
  api::Tensor t = api::Tensor::empty(api::DType::f32, std::move(sizes));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto* p = static_cast<float*>(t.data);
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = u(rng);
  return t;
}

float at(const api::Tensor& t, std::vector<int64_t> index) {
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) off += index[d] * t.strides[d];
  return static_cast<const float*>(t.data)[off];
}

api::Function function(const char* name) { return api::Module::fromSource(kSource, "prog.py").function(name); }

TEST(Api, DefaultsAndKeywordsBind) {
  api::Function f = function("scale_shift");
  ASSERT_EQ(f.parameters().size(), 3u);
  EXPECT_FALSE(f.parameters()[0].hasDefault);
  EXPECT_TRUE(f.parameters()[1].hasDefault);
  api::Tensor x = randomTensor({4, 5});
  for (api::Mode mode : {api::Mode::Compiled, api::Mode::Interp}) {
    api::Options options;
    options.mode = mode;
    std::vector<api::Value> out = f.call({x}, {{"shift", api::Value(-1.0)}}, options);
    ASSERT_EQ(out.size(), 1u);
    const api::Tensor& y = out[0].tensor();
    ASSERT_EQ(y.sizes, x.sizes);
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 5; ++j) EXPECT_FLOAT_EQ(at(y, {i, j}), at(x, {i, j}) * 2.0f - 1.0f);
  }
}

TEST(Api, BindingErrorsAreCompileErrors) {
  api::Function f = function("scale_shift");
  api::Tensor x = randomTensor({2});
  EXPECT_THROW(f.bind({}, {}), api::CompileError);
  EXPECT_THROW(f.bind({x}, {{"scael", api::Value(1.0)}}), api::CompileError);
  EXPECT_THROW(f.bind({x, 1.0}, {{"scale", api::Value(1.0)}}), api::CompileError);
  EXPECT_THROW(f.bind({x, 1.0, 2.0, 3.0}), api::CompileError);
  try {
    f.call({api::Value(1.0)});
    FAIL() << "a float for a tensor parameter was accepted";
  } catch (const api::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("must be Tensor"), std::string::npos) << e.what();
  }
}

TEST(Api, WritesLandInTheCallersMemoryWithoutACopy) {
  api::Function f = function("bump_first_row");
  api::Tensor x = randomTensor({3, 4});
  std::vector<float> before(static_cast<float*>(x.data), static_cast<float*>(x.data) + 12);
  std::vector<api::Value> out = f.call({x, 1.5});
  for (int64_t j = 0; j < 4; ++j) EXPECT_FLOAT_EQ(at(x, {0, j}), before[j] + 1.5f);
  for (int64_t j = 0; j < 4; ++j) EXPECT_FLOAT_EQ(at(x, {1, j}), before[4 + j]);
  float row0 = 0;
  for (int64_t j = 0; j < 4; ++j) row0 += before[j] + 1.5f;
  EXPECT_NEAR(at(out[0].tensor(), {0}), row0, 1e-5);
}

TEST(Api, StridedArgumentsAreReadAndWrittenInPlace) {
  // Every other column of a [3, 8] buffer: a [3, 4] view with strides (8, 2).
  api::Tensor base = randomTensor({3, 8});
  api::Tensor view = base;
  view.sizes = {3, 4};
  view.strides = {8, 2};
  std::vector<float> before(static_cast<float*>(base.data), static_cast<float*>(base.data) + 24);
  function("bump_first_row").call({view, 2.0});
  auto* p = static_cast<float*>(base.data);
  for (int j = 0; j < 8; ++j) EXPECT_FLOAT_EQ(p[j], before[j] + (j % 2 == 0 ? 2.0f : 0.0f)) << j;
  for (int j = 8; j < 24; ++j) EXPECT_FLOAT_EQ(p[j], before[j]) << j;
}

TEST(Api, OneCompilationPerSignature) {
  api::Function f = function("scale_shift");
  api::Tensor a = randomTensor({8}), b = randomTensor({8}), c = randomTensor({9});
  f.call({a});
  f.call({b, 3.0});
  EXPECT_EQ(f.stats().compilations, 1);
  EXPECT_EQ(f.stats().cacheHits, 1);
  f.call({c});
  EXPECT_EQ(f.stats().compilations, 2);
  std::shared_ptr<const api::Program> p = f.compile(f.bind({a}));
  EXPECT_THROW(p->run(f.bind({c})), api::CompileError);
}

TEST(Api, ResultsOutliveTheirProgramAndFunction) {
  api::Tensor x = randomTensor({16});
  api::Tensor y;
  {
    api::Function f = function("scale_shift");
    y = f.call({x})[0].tensor();
  }
  for (int64_t i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(at(y, {i}), at(x, {i}) * 2.0f + 0.5f);
}

TEST(Api, ListsTuplesAndScalarsComeBack) {
  api::Tensor a = randomTensor({2, 3}), b = randomTensor({2, 3});
  api::Tensor sum = function("total").call({api::Value::list({a, b})})[0].tensor();
  EXPECT_FLOAT_EQ(at(sum, {1, 2}), at(a, {1, 2}) + at(b, {1, 2}));
  std::vector<api::Value> out = function("pair").call({a}, {{"n", api::Value(4)}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].kind(), api::Value::Kind::Int);
  EXPECT_EQ(out[1].toInt(), 5);
  EXPECT_FLOAT_EQ(at(out[0].tensor(), {0, 1}), at(a, {0, 1}) * 4.0f);
}

TEST(Api, BadProgramsGiveLocatedCompileErrors) {
  try {
    function("broken").call({randomTensor({2})});
    FAIL() << "no error";
  } catch (const api::CompileError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("prog.py:", 0), 0u) << e.what();
  }
  EXPECT_THROW(api::Module::fromSource("def f(x):\n  return x +\n", "bad.py"), api::CompileError);
  try {
    api::Module::fromSource(kSource, "prog.py").function("nope");
    FAIL() << "no error";
  } catch (const api::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("no function 'nope' in prog.py (it defines scale_shift, "), std::string::npos)
        << e.what();
  }
}

TEST(Api, CheckComparesWithTheInterpreter) {
  api::Options options;
  options.check = true;
  api::RunInfo info;
  function("scale_shift").call({randomTensor({64, 3})}, {}, options, &info);
  ASSERT_TRUE(info.check.has_value());
  EXPECT_TRUE(info.check->ok) << info.check->mismatch;
  EXPECT_GT(info.kernelCalls, 0);
}

// bump_first_row writes its argument: every timed run must see the values
// the caller passed, and the caller's tensor must stay as it was.
TEST(Api, TimedRunsWorkOnCopiesAndCheckOnDemand) {
  api::Function f = function("bump_first_row");
  api::Tensor x = randomTensor({3, 4});
  std::vector<float> before(static_cast<float*>(x.data), static_cast<float*>(x.data) + 12);
  std::vector<api::Value> args = f.bind({x, 1.5});
  for (api::Mode mode : {api::Mode::Compiled, api::Mode::Interp}) {
    api::Options options;
    options.mode = mode;
    options.check = true;
    std::shared_ptr<const api::Program> p = f.compile(args, options);
    api::TimedRuns runs = p->runTimed(args, 3);
    ASSERT_EQ(runs.timesMs.size(), 3u);
    EXPECT_LE(runs.minMs, runs.medianMs);
    EXPECT_EQ(runs.kernelCalls > 0, mode == api::Mode::Compiled);
    ASSERT_EQ(runs.outputs.size(), 1u);
    const api::Tensor& y = runs.outputs[0].tensor();
    for (int64_t i = 0; i < 3; ++i) {
      float row = 0;
      for (int64_t j = 0; j < 4; ++j) row += before[i * 4 + j] + (i == 0 ? 1.5f : 0.0f);
      EXPECT_NEAR(at(y, {i}), row, 1e-4) << "row " << i;  // bumped once, not four times
    }
    for (int k = 0; k < 12; ++k) EXPECT_EQ(static_cast<float*>(x.data)[k], before[k]);
    api::CheckResult check = p->check(args, runs.outputs);
    EXPECT_TRUE(check.ok) << check.mismatch;
    EXPECT_FALSE(check.reference.empty());
    std::vector<api::Value> wrong = {api::Value(randomTensor({3}))};
    EXPECT_FALSE(p->check(args, wrong).ok);
    EXPECT_EQ(p->runTimed(args, 0).timesMs.size(), 1u);
  }
  std::shared_ptr<const api::Program> unchecked = f.compile(args);
  EXPECT_THROW(unchecked->check(args, unchecked->runTimed(args, 0).outputs), api::CompileError);
}

// A program functionalization refuses runs as written, writing its
// argument where it lies: every timed run still starts from the caller's
// values (an imperative run may write any argument), and an argument no
// run writes keeps its values.
TEST(Api, TimedRunsOfAnImperativeProgramStartFromTheCallersValues) {
  api::Function f = function("refused_scale");
  api::Tensor x = randomTensor({3, 4}), y = randomTensor({4});
  const std::vector<float> xs(static_cast<float*>(x.data), static_cast<float*>(x.data) + 12);
  std::vector<api::Value> args = f.bind({x, y});
  std::shared_ptr<const api::Program> p = f.compile(args);
  ASSERT_FALSE(p->info().functionalFallback.empty()) << "the test needs a refused program";
  api::TimedRuns runs = p->runTimed(args, 4);
  ASSERT_EQ(runs.outputs.size(), 1u);
  const std::vector<api::Value>& out = runs.outputs[0].items();
  ASSERT_EQ(out.size(), 2u);
  for (int64_t j = 0; j < 4; ++j) {
    EXPECT_FLOAT_EQ(at(out[0].tensor(), {j}), xs[j] * 10.0f + at(y, {j})) << "scaled once, not five times";
    EXPECT_FLOAT_EQ(at(out[1].tensor(), {j}), at(y, {j}) * 2.0f);
  }
  for (int k = 0; k < 12; ++k) EXPECT_EQ(static_cast<float*>(x.data)[k], xs[k]);
}

// A loop that reads a tensor's value each step runs on the host: timed
// runs report its iterations and the host's time per iteration beyond the
// kernels; a program without such a loop reports none.
TEST(Api, TimedRunsReportHostLoopIterations) {
  std::uniform_int_distribution<int64_t> trips(2, 9);
  const int64_t steps = trips(rng);
  api::Function loop = function("halve_until_small");
  std::vector<api::Value> args = loop.bind({randomTensor({16}), api::Value(steps)});
  api::TimedRuns runs = loop.compile(args)->runTimed(args, 3);
  EXPECT_EQ(runs.hostIterations, steps);
  EXPECT_GT(runs.hostUsPerIteration, 0.0);
  // Each run's host share is part of that run's time.
  EXPECT_LE(runs.hostUsPerIteration * 1e-3 * steps, *std::max_element(runs.timesMs.begin(), runs.timesMs.end()));
  EXPECT_GE(runs.kernelCalls, steps);

  api::Options interp;
  interp.mode = api::Mode::Interp;
  EXPECT_EQ(loop.compile(args, interp)->runTimed(args, 1).hostIterations, 0);
  api::Function flat = function("scale_shift");
  std::vector<api::Value> flatArgs = flat.bind({randomTensor({8})});
  EXPECT_EQ(flat.compile(flatArgs)->runTimed(flatArgs, 1).hostIterations, 0);
}

TEST(Api, ParametersDescribeTheirAnnotations) {
  api::Function totalFn = function("total"), scaleShiftFn = function("scale_shift");
  const std::vector<api::Parameter>& total = totalFn.parameters();
  ASSERT_EQ(total.size(), 1u);
  EXPECT_EQ(total[0].type.kind, api::ParameterType::Kind::List);
  EXPECT_EQ(total[0].type.text, "List[Tensor]");
  ASSERT_EQ(total[0].type.elements.size(), 1u);
  EXPECT_EQ(total[0].type.elements[0].kind, api::ParameterType::Kind::Tensor);
  const std::vector<api::Parameter>& scaleShift = scaleShiftFn.parameters();
  EXPECT_EQ(scaleShift[0].type.kind, api::ParameterType::Kind::Tensor);
  EXPECT_EQ(scaleShift[1].type.kind, api::ParameterType::Kind::Float);
  EXPECT_EQ(function("pair").parameters()[1].type.kind, api::ParameterType::Kind::Int);
}

TEST(Api, TensorsNoMachineHoldsAreCleanErrors) {
  try {
    api::Tensor::empty(api::DType::f64, {int64_t(1) << 40, int64_t(1) << 40});
    FAIL() << "no error";
  } catch (const api::RunError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("stitch: error: cannot allocate a tensor of shape [", 0), 0u) << e.what();
  }
  EXPECT_THROW(api::Tensor::empty(api::DType::f32, {2, -1}), api::CompileError);
  EXPECT_EQ(api::Tensor::empty(api::DType::f32, {0, int64_t(1) << 50}).numel(), 0);
}

TEST(Api, ConcurrentCallsGetTheirOwnResults) {
  api::Function f = function("scale_shift");
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        api::Tensor x = api::Tensor::empty(api::DType::f32, {32});
        for (int k = 0; k < 32; ++k) static_cast<float*>(x.data)[k] = (float)(t * 100 + i);
        api::Tensor y = f.call({x})[0].tensor();
        for (int k = 0; k < 32; ++k) bad[t] += at(y, {k}) != (float)(t * 100 + i) * 2.0f + 0.5f;
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0);
  EXPECT_EQ(f.stats().compilations, 1);
}

TEST(Api, DumpShowsStagesForTypesAlone) {
  api::Function f = function("scale_shift");
  std::string text = f.dump({api::Value(api::Tensor::typeOnly(api::DType::f32, {8, 9}))}, api::Stage::Simplified);
  EXPECT_NE(text.find("f32[8,9]"), std::string::npos) << text;
  EXPECT_NE(f.dump({}, api::Stage::Parsed).find("graph scale_shift("), std::string::npos);
  EXPECT_NE(f.dump({}, std::nullopt).find("== after emit ("), std::string::npos);
}

// The fused groups' schedules are chosen for the threads a run would have:
// a row softmax runs as one block on one thread and as several on more;
// threads 0 is one per core, as for compile(); a negative count is the
// user's error.
TEST(Api, DumpChoosesTheSchedulesARunWithThatManyThreadsHas) {
  api::Function f = api::Module::fromSource(
                        "import torch\n"
                        "def softmax(x: torch.Tensor) -> torch.Tensor:\n"
                        "    return torch.softmax(x, dim=-1)\n",
                        "softmax.py")
                        .function("softmax");
  const std::vector<std::optional<api::Value>> x = {api::Value(api::Tensor::typeOnly(api::DType::f32, {64, 1000}))};
  const std::string one = f.dump(x, api::Stage::Fused, api::Device::Cpu, 1);
  const std::string two = f.dump(x, api::Stage::Fused, api::Device::Cpu, 2);
  EXPECT_NE(one.find("sword=1,"), std::string::npos) << one;
  EXPECT_NE(one, two);
  const int cores = std::max(1, (int)std::thread::hardware_concurrency());
  EXPECT_EQ(f.dump(x, api::Stage::Fused), f.dump(x, api::Stage::Fused, api::Device::Cpu, cores));
  EXPECT_THROW(f.dump(x, api::Stage::Fused, api::Device::Cpu, -1), api::CompileError);
}

}  // namespace

namespace {

// RMSNorm and a SwiGLU MLP with outputs in the thousands: float32 kernels
// round relative to the summed terms, so --check's rule must scale with
// them (src/driver/compare.h); the compiled result is closer to float64
// than PyTorch's own float32 result is.
TEST(Api, CheckOfAnMlpWithLargeCancellingSums) {
  const char* source = R"(import torch

def rmsnorm_swiglu(x: torch.Tensor, w_gate: torch.Tensor, w_down: torch.Tensor, w_up: torch.Tensor) -> torch.Tensor:
    h = x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6)
    a = torch.nn.functional.silu(h @ w_gate) * (h @ w_up)
    return a @ w_down
)";
  api::Function f = api::Module::fromSource(source, "mlp.py").function();
  api::Options options;
  options.check = true;
  options.threads = 2;
  for (int trial = 0; trial < 4; ++trial) {
    api::RunInfo info;
    f.call({randomTensor({16, 256}), randomTensor({256, 512}), randomTensor({512, 256}), randomTensor({256, 512})}, {},
           options, &info);
    ASSERT_TRUE(info.check.has_value());
    EXPECT_TRUE(info.check->ok) << info.check->mismatch;
  }
}

}  // namespace
