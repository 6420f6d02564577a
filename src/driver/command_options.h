// The options of `stitch run` and `stitch dump`, parsed and validated (the
// CLI contract is in DESIGN.md). Throws UserError for bad arguments,
// including stages this build does not implement yet.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/input_spec.h"
#include "driver/pipeline.h"

namespace stitch {

enum class RunMode { Interp, Compiled };

struct RunOptions {
  bool help = false;
  std::string file;
  std::string fn;  // empty: the last function
  std::vector<NamedInputSpec> inputs;
  std::string inputsFile;   // --inputs, empty: none
  std::string outputsFile;  // --outputs, empty: none
  RunMode mode = RunMode::Compiled;
  Stage stage = Stage::Parsed;  // the IR to interpret (--mode interp only)
  bool check = false;
  int bench = 0;  // 0: a single timed run
  uint64_t seed = 0;
  int threads = 0;  // 0: OpenMP's default (kernels and host ops alike)
  bool json = false;
  bool tune = false;  // measure the schedule candidates (compiled mode only)
};

struct DumpOptions {
  bool help = false;
  std::string file;
  std::string fn;
  std::vector<NamedInputSpec> inputs;
  std::optional<Stage> stage = Stage::Parsed;  // nullopt: all stages
};

RunOptions parseRunOptions(const std::vector<std::string>& args);
DumpOptions parseDumpOptions(const std::vector<std::string>& args);

}  // namespace stitch
