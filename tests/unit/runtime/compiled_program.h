// Source text -> every pipeline stage -> an Executable, for runtime tests
// that go through the real front end, passes and code generator.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "driver/input_binding.h"
#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "runtime_test_util.h"

namespace stitch::rtest {

struct Compiled {
  LoadedProgram program;
  PipelineResult result;  // keeps the parsed graph (the reference)
  std::unique_ptr<Executable> exe;
  std::vector<TypePtr> types;
};

// Compiles function `fn` of `source` (imports prepended) for inputs given as
// NAME=SPEC strings; the executable runs on 1 to 3 threads, chosen at random.
inline Compiled compileProgram(const std::string& source, const std::string& fn,
                               const std::vector<std::string>& specs) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("stitch-runtime-" + std::to_string(::getpid()) + "-" + fn + ".py"))
                         .string();
  std::ofstream(path) << "import torch\nfrom typing import List, Tuple\n\n\n" << source;
  Compiled c{loadProgram(path, fn), {}, nullptr, {}};
  std::filesystem::remove(path);
  InputSources sources;
  for (const std::string& s : specs) sources.specs.push_back(parseNamedInputSpec(s));
  c.types = bindInputTypes(c.program.entry, sources);
  PassLogger logger;
  PipelineOptions options;
  options.last = Stage::Code;
  options.keepParsed = true;
  c.result = runPipeline(*c.program.module, c.program.entry.name, c.types, options, logger);
  ExecutableOptions eo;
  eo.pureGraph = c.result.functionalFallback.empty();
  eo.threads = 1 + (int)(rng()() % 3);
  c.exe = Executable::build(*c.result.graph, std::move(c.result.code), eo);
  return c;
}

}  // namespace stitch::rtest
