// The spine and the run path: pass logging, stages, loading, interpretation
// on fresh input copies (inputs bound from specs as `stitch run` binds them).
#include "driver/pipeline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../common/spec_inputs.h"
#include "driver/outputs.h"
#include "driver/program_loader.h"
#include "driver/timed_run.h"
#include "test_util.h"

namespace stitch {
namespace {

using testing::bindSpecs;
using testing::freshSeed;
using testing::ScratchDir;
using testing::SpecInputs;

TEST(PassLogger, MarksUnchangedPassesAndEchoes) {
  Graph g;
  Value* x = g.addInput(Type::tensor(), "x");
  Node* neg = g.create("neg", {x});
  g.top()->append(neg);
  g.addOutput(neg->output());

  std::ostringstream echo;
  PassLogger logger(true, &echo);
  logger.record("first", g, 1.5);
  logger.record("second", g, 0.25);
  neg->output()->setType(Type::tensor(DType::f32, std::vector<int64_t>{2}));
  logger.record("third", g, 0.5);

  const auto& r = logger.records();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].changed);
  EXPECT_FALSE(r[1].changed);
  EXPECT_TRUE(r[2].changed);
  EXPECT_NE(r[2].ir.find("f32[2]"), std::string::npos) << r[2].ir;
  EXPECT_NE(echo.str().find("== after second (0.250 ms) (unchanged) =="), std::string::npos)
      << echo.str();
  EXPECT_NE(echo.str().find("== after third (0.500 ms) ==\n"), std::string::npos);
}

TEST(PassLogger, QuietLoggerOnlyTimes) {
  Graph g;
  g.addOutput(g.addInput(Type::intT(), "n"));
  PassLogger logger;
  logger.record("p", g, 2.0);
  ASSERT_EQ(logger.records().size(), 1u);
  EXPECT_TRUE(logger.records()[0].ir.empty());
  EXPECT_EQ(logger.records()[0].ms, 2.0);
}

TEST(Stages, NamesAndAvailability) {
  for (const char* name : {"parsed", "functional", "simplified", "fused", "ugraph", "uops", "code"}) {
    auto stage = stageFromName(name);
    ASSERT_TRUE(stage.has_value()) << name;
    EXPECT_STREQ(stageName(*stage), name);
  }
  EXPECT_FALSE(stageFromName("all").has_value());
  EXPECT_TRUE(stageAvailable(Stage::Parsed));
  EXPECT_TRUE(stageAvailable(Stage::Functional));
  EXPECT_TRUE(stageAvailable(Stage::Simplified));
  EXPECT_TRUE(stageAvailable(Stage::Fused));
  EXPECT_TRUE(stageAvailable(Stage::UGraph));
  EXPECT_TRUE(stageAvailable(Stage::UOps));
  EXPECT_TRUE(stageAvailable(Stage::Code));
  EXPECT_EQ(lastAvailableStage(), Stage::Code);
}

const char* const kProgram = R"PY(import torch


def helper(x: torch.Tensor) -> torch.Tensor:
    return x * 2.0


def swap_rows(x: torch.Tensor, s: float) -> torch.Tensor:
    y = x.clone()
    y[0] = x[1] * s
    y[1] += 1.0
    return helper(y)


def bump(x: torch.Tensor) -> torch.Tensor:
    x.add_(1.0)
    return x
)PY";

class DriverProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("prog.py");
    std::ofstream(path_) << kProgram;
  }
  ScratchDir dir_;
  std::string path_;
};

TEST_F(DriverProgram, LoadsTheLastFunctionByDefault) {
  EXPECT_EQ(loadProgram(path_).entry.name, "bump");
  LoadedProgram p = loadProgram(path_, "swap_rows");
  EXPECT_EQ(p.entry.name, "swap_rows");
  EXPECT_EQ(p.entry.argNames, (std::vector<std::string>{"x", "s"}));
  EXPECT_THROW(loadProgram(path_, "nope"), UserError);
  EXPECT_THROW(loadProgram(dir_.file("missing.py")), UserError);
}

TEST_F(DriverProgram, RunsThePipelineAndInterprets) {
  uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  LoadedProgram p = loadProgram(path_, "swap_rows");
  SpecInputs in = bindSpecs(p, {"x=f32[3,4]", "s=0.5"}, seed);

  PassLogger logger(true);
  PipelineOptions options;
  options.keepSpecializationInput = true;
  PipelineResult r = runPipeline(*p.module, p.entry.name, in.types, options, logger);
  ASSERT_EQ(logger.records().size(), 2u);
  EXPECT_EQ(logger.records()[0].pass, "emit");
  EXPECT_EQ(logger.records()[1].pass, "shape-inference");
  EXPECT_NE(logger.records()[1].ir.find("f32[3,4]"), std::string::npos);
  ASSERT_TRUE(r.emitted);
  ASSERT_TRUE(r.opCounts.count(Stage::Parsed));
  EXPECT_GE(r.opCounts[Stage::Parsed].mutatingOps, 2);  // the two subscript writes
  EXPECT_GT(r.opCounts[Stage::Parsed].ops, r.opCounts[Stage::Parsed].mutatingOps);

  TimedRun run = runTimed(*r.graph, in.values, {}, 2);
  EXPECT_EQ(run.timesMs.size(), 2u);
  const Tensor& x = in.values[0].toTensor();
  std::vector<NamedOutput> outs = flattenOutputs(run.outputs);
  ASSERT_EQ(outs.size(), 1u);
  const Tensor& y = outs[0].value.toTensor();
  ASSERT_EQ(y.sizes(), (Shape{3, 4}));
  for (int64_t j = 0; j < 4; ++j) {
    EXPECT_FLOAT_EQ(y.getDouble(j), (float)(x.getDouble(4 + j) * 0.5f) * 2.0f);
    EXPECT_FLOAT_EQ(y.getDouble(4 + j), (float)(x.getDouble(4 + j) + 1.0f) * 2.0f);
    EXPECT_FLOAT_EQ(y.getDouble(8 + j), x.getDouble(8 + j) * 2.0f);
  }
}

TEST_F(DriverProgram, RepeatedRunsSeeFreshInputs) {
  LoadedProgram p = loadProgram(path_);
  SpecInputs in = bindSpecs(p, {"x=f64[5]"}, freshSeed());
  Tensor original = in.values[0].toTensor().clone();
  PassLogger logger;
  PipelineResult r = runPipeline(*p.module, p.entry.name, in.types, {}, logger);
  TimedRun run = runTimed(*r.graph, in.values, {}, 3);
  const Tensor& out = run.outputs.at(0).toTensor();
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(out.getDouble(i), original.getDouble(i) + 1.0);  // once, not four times
    EXPECT_EQ(in.values[0].toTensor().getDouble(i), original.getDouble(i));
  }
}

// As `stitch dump` types a program: nothing allocated for a random spec, and
// a parameter without one keeps its annotation.
TEST_F(DriverProgram, TypesOnlyInputsKeepAnnotationsForMissingOnes) {
  LoadedProgram p = loadProgram(path_, "swap_rows");
  std::vector<TypePtr> types = testing::specTypes(p, {"x=f32[100000,100000]"});
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0]->str(), Type::tensor(DType::f32, Shape{100000, 100000})->str());
  EXPECT_EQ(types[1]->kind(), TypeKind::Float);
}

// The code generator's stages: the kernel graph, then each kernel's uops,
// then one C file; each pass logs its text, and nothing is compiled.
TEST_F(DriverProgram, CodeStagesPlanLinearizeAndRender) {
  LoadedProgram p = loadProgram(path_, "swap_rows");
  std::vector<TypePtr> types = testing::specTypes(p, {"x=f32[3,4]", "s=0.5"});
  PassLogger logger(true);
  PipelineOptions options;
  options.last = Stage::Code;
  PipelineResult r = runPipeline(*p.module, p.entry.name, types, options, logger);
  ASSERT_FALSE(r.code.kernels.kernels.empty());
  EXPECT_FALSE(r.code.uops.empty());
  EXPECT_EQ(stageText(r, Stage::UOps).rfind("kernel " + r.code.uops[0].name + "\n", 0), 0u)
      << stageText(r, Stage::UOps);
  EXPECT_NE(stageText(r, Stage::Code).find("void " + r.code.uops[0].name + "("), std::string::npos);
  EXPECT_NE(stageText(r, Stage::UGraph).find(r.code.kernels.kernels[0].name), std::string::npos);
  const std::vector<PassRecord>& records = logger.records();
  ASSERT_GE(records.size(), 3u);
  const char* last[] = {"plan-kernels", "linearize", "render-c"};
  for (int i = 0; i < 3; ++i) {
    const PassRecord& rec = records[records.size() - 3 + i];
    EXPECT_EQ(rec.pass, last[i]);
    EXPECT_FALSE(rec.ir.empty()) << rec.pass;
  }
  EXPECT_EQ(records.back().ir, r.code.source);

  // Stopping at ugraph leaves the later parts empty.
  PassLogger quiet;
  options.last = Stage::UGraph;
  PipelineResult u = runPipeline(*p.module, p.entry.name, types, options, quiet);
  EXPECT_FALSE(u.code.kernels.kernels.empty());
  EXPECT_TRUE(u.code.uops.empty());
  EXPECT_TRUE(u.code.source.empty());
  EXPECT_EQ(quiet.records().back().pass, "plan-kernels");
  EXPECT_TRUE(quiet.records().back().ir.empty());  // a quiet logger keeps no text
}

// Stage fused stops after fusion: groups with schedules, no kernels yet.
// bump's add and the write-back form one group; its dump names the schedule.
TEST_F(DriverProgram, FusedStageStopsBeforeTheKernels) {
  LoadedProgram p = loadProgram(path_);
  PassLogger logger;
  PipelineOptions options;
  options.last = Stage::Fused;
  PipelineResult r = runPipeline(*p.module, p.entry.name, {Type::tensor(DType::f32, std::vector<int64_t>{4, 5})},
                                 options, logger);
  ASSERT_FALSE(r.fusion.groups.empty());
  EXPECT_TRUE(r.code.kernels.kernels.empty());
  std::string text = stageText(r, Stage::Fused);
  EXPECT_EQ(text.rfind("group g0 ", 0), 0u) << text;
  EXPECT_NE(text.find("schedule (split_dim="), std::string::npos) << text;
}

// `bump` writes its input: the functional graph returns x's new value as an
// extra output; runTimed copies it back into (its copy of) the input and
// hides it, so the caller sees one output, as under PyTorch.
TEST_F(DriverProgram, FunctionalStagesWriteBackMutatedInputs) {
  LoadedProgram p = loadProgram(path_);
  SpecInputs in = bindSpecs(p, {"x=f64[6]"}, freshSeed());
  Tensor original = in.values[0].toTensor().clone();
  for (Stage stage : {Stage::Functional, Stage::Simplified}) {
    SCOPED_TRACE(stageName(stage));
    PassLogger logger;
    PipelineOptions options;
    options.last = stage;
    PipelineResult r = runPipeline(*p.module, p.entry.name, in.types, options, logger);
    EXPECT_EQ(r.opCounts[stage].mutatingOps, 0);
    EXPECT_GT(r.opCounts[Stage::Parsed].mutatingOps, 0);
    ASSERT_EQ(r.writeBack.writtenBackInputs, (std::vector<size_t>{0}));
    ASSERT_EQ(r.graph->outputs().size(), 2u);
    TimedRun run = runTimed(*r.graph, in.values, {}, 0, r.writeBack);
    ASSERT_EQ(run.outputs.size(), 1u);
    IValueList fresh = cloneValues(in.values);
    IValueList outs = interpret(*r.graph, fresh);
    applyWriteBack(r.writeBack, fresh, outs);
    ASSERT_EQ(outs.size(), 1u);
    for (int64_t i = 0; i < 6; ++i) {
      EXPECT_EQ(run.outputs[0].toTensor().getDouble(i), original.getDouble(i) + 1.0);
      EXPECT_EQ(fresh[0].toTensor().getDouble(i), original.getDouble(i) + 1.0);
      EXPECT_EQ(in.values[0].toTensor().getDouble(i), original.getDouble(i));
    }
  }
}

// A view kept in a list under a branch and written through its base is
// aliasing that functionalization refuses: the later stages keep the
// imperative graph, say why, and still compute what the parsed program
// computes.
TEST(DriverFallback, RefusedProgramsRunAsWritten) {
  ScratchDir dir;
  std::string path = dir.file("views_in_list.py");
  std::ofstream(path) << "import torch\n"
                         "from typing import List\n"
                         "def f(x: torch.Tensor) -> List[torch.Tensor]:\n"
                         "    x = x.clone()\n"
                         "    rows = []\n"
                         "    for i in range(3):\n"
                         "        if i < 3:\n"
                         "            rows.append(x[i])\n"
                         "    x.mul_(10.0)\n"
                         "    return [rows[0], rows[2]]\n";
  LoadedProgram p = loadProgram(path);
  SpecInputs in = bindSpecs(p, {"x=f32[3,4]"}, freshSeed());
  const Tensor& x = in.values[0].toTensor();
  for (Stage stage : {Stage::Functional, Stage::Simplified}) {
    SCOPED_TRACE(stageName(stage));
    PassLogger logger;
    PipelineOptions options;
    options.last = stage;
    PipelineResult r = runPipeline(*p.module, p.entry.name, in.types, options, logger);
    EXPECT_NE(r.functionalFallback.find("error: "), std::string::npos) << r.functionalFallback;
    EXPECT_GT(r.opCounts[stage].mutatingOps, 0);
    TimedRun run = runTimed(*r.graph, in.values, {}, 0, r.writeBack);
    std::vector<NamedOutput> outs = flattenOutputs(run.outputs);
    ASSERT_EQ(outs.size(), 2u);
    for (int64_t j = 0; j < 4; ++j) {
      EXPECT_EQ(outs[0].value.toTensor().getDouble(j), (double)((float)x.getDouble(j) * 10.0f));
      EXPECT_EQ(outs[1].value.toTensor().getDouble(j), (double)((float)x.getDouble(8 + j) * 10.0f));
    }
  }
}

TEST(FreshInputs, CloneValuesCopiesTensorsDeeply) {
  std::mt19937_64 rng(freshSeed());
  Tensor t = testing::randomTensor(rng, DType::f32, {3});
  IValueList values = {IValue(t), IValue::list({IValue(t)})};
  IValueList copy = cloneValues(values);
  EXPECT_FALSE(copy[0].toTensor().sameStorage(t));
  EXPECT_FALSE(copy[1].toList()[0].toTensor().sameStorage(t));
  testing::expectSameTensor(copy[1].toList()[0].toTensor(), t);
}

}  // namespace
}  // namespace stitch
