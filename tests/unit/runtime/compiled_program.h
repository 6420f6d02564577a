// Source text -> every pipeline stage -> an Executable, for runtime tests
// that go through the real front end, passes and code generator.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../common/spec_inputs.h"
#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "driver/timed_run.h"
#include "runtime_test_util.h"

namespace stitch::rtest {

struct Compiled {
  LoadedProgram program;
  PipelineResult result;  // keeps the parsed graph (the reference)
  std::unique_ptr<Executable> exe;
  std::vector<TypePtr> types;
};

// Compiles function `fn` of `source` (imports prepended) for inputs given as
// NAME=SPEC strings; the executable runs on `threads` threads, or on 1 to 3
// chosen at random; with `cuda`, its generated kernels on the CUDA device
// (the emulator when STITCH_CUDA_EMULATOR is set), rendered for `limits`.
inline Compiled compileProgram(const std::string& source, const std::string& fn,
                               const std::vector<std::string>& specs, int threads = 0, bool cuda = false,
                               const CudaDeviceLimits& limits = {}) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("stitch-runtime-" + std::to_string(::getpid()) + "-" + fn + ".py"))
                         .string();
  std::ofstream(path) << "import torch\nfrom typing import List, Tuple\n\n\n" << source;
  Compiled c{loadProgram(path, fn), {}, nullptr, {}};
  c.types = testing::specTypes(c.program, specs);
  std::filesystem::remove(path);
  PassLogger logger;
  PipelineOptions options;
  options.last = Stage::Code;
  options.keepParsed = true;
  options.target = cuda ? RenderTarget::Cuda : RenderTarget::C;
  options.cudaLimits = limits;
  c.result = runPipeline(*c.program.module, c.program.entry.name, c.types, options, logger);
  ExecutableOptions eo;
  eo.pureGraph = c.result.functionalFallback.empty();
  eo.writtenBackInputs = c.result.writeBack.writtenBackInputs;  // as the API does
  eo.threads = threads > 0 ? threads : 1 + (int)(rng()() % 3);
  eo.cuda = cuda;
  c.exe = Executable::build(*c.result.graph, std::move(c.result.code), eo);
  return c;
}

// Runs the executable and the reference interpreter (on the parsed program)
// on fresh copies of `inputs`; compares the outputs and the inputs as each
// left them (written-back inputs included). Returns the run's statistics.
inline RunStats expectAgreesWithInterpreter(Compiled& c, const IValueList& inputs,
                                            double tol = 1e-6) {
  IValueList mine = cloneInputs(inputs);
  RunStats stats;
  IValueList got = c.exe->run(mine, &stats);
  applyWriteBack(c.result.writeBack, mine, got);
  IValueList theirs = cloneInputs(inputs);
  IValueList want = interpret(*c.result.parsed, theirs);
  expectSameOutputs(got, want, tol);
  SCOPED_TRACE("inputs after the run");
  expectSameOutputs(mine, theirs, tol);
  return stats;
}

}  // namespace stitch::rtest
