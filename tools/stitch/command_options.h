// The options of `stitch run` and `stitch dump`, parsed and validated (the
// CLI contract is in DESIGN.md). Throws a userError for bad arguments.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "input_spec.h"
#include "stitch/stitch.h"

namespace stitch::cli {

struct RunOptions {
  bool help = false;
  std::string file;
  std::string fn;  // empty: the last function
  std::vector<NamedInputSpec> inputs;
  std::string inputsFile;   // --inputs, empty: none
  std::string outputsFile;  // --outputs, empty: none
  api::Mode mode = api::Mode::Compiled;
  api::Stage stage = api::Stage::Parsed;  // the IR to interpret (--mode interp only)
  bool check = false;
  int bench = 0;  // 0: a single timed run
  uint64_t seed = 0;
  int threads = 0;  // 0: OpenMP's default (kernels and host ops alike)
  bool json = false;
  bool tune = false;  // measure the schedule candidates (compiled mode only)
  bool work = false;  // each kernel's static work estimate (compiled mode only)
  api::Device device = api::Device::Cpu;
};

struct DumpOptions {
  bool help = false;
  std::string file;
  std::string fn;
  std::vector<NamedInputSpec> inputs;
  std::optional<api::Stage> stage = api::Stage::Parsed;  // nullopt: all stages
  api::Device device = api::Device::Cpu;
  int threads = 0;  // the threads the schedules are chosen for (0: one per core, as run)
};

RunOptions parseRunOptions(const std::vector<std::string>& args);
DumpOptions parseDumpOptions(const std::vector<std::string>& args);

}  // namespace stitch::cli
