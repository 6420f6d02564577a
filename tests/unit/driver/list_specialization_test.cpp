// A program specialized on its list inputs' element shapes (the driver
// passes them to the pipeline) compiles the unrolled loop into kernels; run
// on lists of other lengths or shapes it must refuse with a clear run-time
// error, never compute a wrong result.
#include <gtest/gtest.h>

#include "../common/spec_inputs.h"
#include "driver/compare.h"
#include "driver/outputs.h"
#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "driver/timed_run.h"
#include "interp/interpreter.h"
#include "runtime/executable.h"
#include "test_util.h"

namespace stitch {
namespace {

using testing::bindSpecs;
using testing::freshSeed;
using testing::SpecInputs;

std::vector<std::string> bboxInputs(const std::string& anchors, const std::string& deltas) {
  return {"anchors=" + anchors, "deltas=" + deltas, "width=640", "height=480"};
}

TEST(ListSpecialization, CompiledForOneListShapeRefusesOthers) {
  testing::ScratchDir cache;
  setenv("STITCH_CACHE_DIR", cache.file("cache").c_str(), 1);
  LoadedProgram p = loadProgram(std::string(STITCH_SOURCE_DIR) + "/examples/bbox_decode.py");
  const std::string lists = "[f32[120,4],f32[30,4],f32[8,4]]";
  SpecInputs spec = bindSpecs(p, bboxInputs(lists, lists), freshSeed());
  PassLogger logger;
  PipelineOptions options;
  options.last = Stage::Code;
  options.keepParsed = true;
  options.listInputs = spec.listElements;
  PipelineResult r = runPipeline(*p.module, p.entry.name, spec.types, options, logger);
  ExecutableOptions exeOptions;
  exeOptions.threads = 2;
  std::unique_ptr<Executable> exe = Executable::build(*r.graph, std::move(r.code), exeOptions);
  ASSERT_GE(exe->kernelGraph().kernels.size(), 1u);

  uint64_t seed = freshSeed();
  SpecInputs same = bindSpecs(p, bboxInputs(lists, lists), seed);
  CheckResult c = compareOutputs(flattenOutputs(exe->run(cloneValues(same.values))),
                                 flattenOutputs(interpret(*r.parsed, cloneValues(same.values))));
  EXPECT_TRUE(c.ok) << "seed " << seed << ", max abs error " << c.maxAbsError;

  const std::vector<std::pair<std::string, std::string>> others = {
      {"[f32[120,4],f32[30,4]]", "[f32[120,4],f32[30,4]]"},                       // shorter
      {"[f32[120,4],f32[30,4],f32[8,4],f32[2,4]]", "[f32[120,4],f32[30,4],f32[8,4],f32[2,4]]"},  // longer
      {"[f32[120,4],f32[31,4],f32[8,4]]", "[f32[120,4],f32[31,4],f32[8,4]]"},     // other rows
  };
  for (const auto& [anchors, deltas] : others) {
    SpecInputs in = bindSpecs(p, bboxInputs(anchors, deltas), seed);
    try {
      exe->run(cloneValues(in.values));
      ADD_FAILURE() << "ran on " << anchors << " although compiled for " << lists;
    } catch (const RuntimeFailure& e) {
      EXPECT_NE(std::string(e.message()).find("was compiled for a list of 3 elements"), std::string::npos)
          << e.message();
    }
  }
}

}  // namespace
}  // namespace stitch
