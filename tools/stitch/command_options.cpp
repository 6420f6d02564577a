#include "command_options.h"

#include <algorithm>
#include <cstdint>

#include "option_parser.h"
#include "user_error.h"

namespace stitch::cli {

namespace {

constexpr int64_t kMaxBench = 1000000;
constexpr int64_t kMaxThreads = 4096;

std::string fileArgument(const ParsedOptions& parsed, const std::string& command) {
  if (parsed.positional.empty())
    throw userError("missing FILE.py (usage: stitch ", command, " FILE.py [options]; see stitch ", command,
                    " --help)");
  if (parsed.positional.size() > 1)
    throw userError("unexpected argument '", parsed.positional[1], "' (stitch ", command, " takes one FILE.py)");
  return parsed.positional[0];
}

std::vector<NamedInputSpec> inputSpecs(const ParsedOptions& parsed) {
  std::vector<NamedInputSpec> specs;
  for (const std::string& text : parsed.all("input")) specs.push_back(parseNamedInputSpec(text));
  return specs;
}

api::Mode modeFrom(const std::string& text) {
  if (text == "interp") return api::Mode::Interp;
  if (text == "compiled") return api::Mode::Compiled;
  throw userError("--mode expects interp or compiled, got '", text, "'");
}

api::Stage stageFrom(const std::string& text, const std::vector<api::Stage>& allowed, const std::string& allowedNames) {
  std::optional<api::Stage> stage = api::stageFromName(text);
  if (stage && std::find(allowed.begin(), allowed.end(), *stage) != allowed.end()) return *stage;
  throw userError("--stage expects one of ", allowedNames, ", got '", text, "'");
}

api::Device deviceFrom(const ParsedOptions& parsed) {
  if (!parsed.has("device")) return api::Device::Cpu;
  std::optional<api::Device> device = api::deviceFromName(parsed.get("device"));
  if (!device) throw userError("--device expects cpu or cuda, got '", parsed.get("device"), "'");
  return *device;
}

}  // namespace

RunOptions parseRunOptions(const std::vector<std::string>& args) {
  static const std::vector<OptionDef> defs = {
      {"fn"},           {"input", true, true}, {"inputs"}, {"outputs"},
      {"mode"},         {"stage"},             {"check", false}, {"bench"},
      {"seed"},         {"threads"},           {"json", false},   {"tune", false},
      {"work", false},  {"device"},
  };
  ParsedOptions parsed = parseOptions(args, defs, "run");
  RunOptions o;
  o.help = parsed.help;
  if (o.help) return o;
  o.file = fileArgument(parsed, "run");
  o.fn = parsed.get("fn");
  o.inputs = inputSpecs(parsed);
  o.inputsFile = parsed.get("inputs");
  o.outputsFile = parsed.get("outputs");
  if (parsed.has("mode")) o.mode = modeFrom(parsed.get("mode"));
  if (parsed.has("stage")) {
    // A compiled run always runs the whole pipeline; --stage picks the IR
    // the interpreter runs.
    if (o.mode == api::Mode::Compiled)
      throw userError("--stage applies to --mode interp (a compiled run runs every stage)");
    o.stage = stageFrom(parsed.get("stage"), {api::Stage::Parsed, api::Stage::Functional, api::Stage::Simplified},
                        "parsed, functional, simplified");
  }
  o.check = parsed.has("check");
  if (parsed.has("bench")) o.bench = (int)parseIntegerOption("bench", parsed.get("bench"), 1, kMaxBench);
  if (parsed.has("seed")) o.seed = (uint64_t)parseIntegerOption("seed", parsed.get("seed"), 0, INT64_MAX);
  if (parsed.has("threads")) o.threads = (int)parseIntegerOption("threads", parsed.get("threads"), 1, kMaxThreads);
  o.json = parsed.has("json");
  o.tune = parsed.has("tune");
  if (o.tune && o.mode != api::Mode::Compiled)
    throw userError("--tune applies to --mode compiled (it measures the kernels' schedules)");
  o.work = parsed.has("work");
  o.device = deviceFrom(parsed);
  if (o.device == api::Device::Cuda && o.mode != api::Mode::Compiled)
    throw userError("--device cuda applies to --mode compiled (the interpreter runs on the CPU)");
  if (o.device == api::Device::Cuda && o.tune)
    throw userError("--tune measures CPU schedules; it does not apply to --device cuda");
  if (o.work && o.mode != api::Mode::Compiled)
    throw userError("--work applies to --mode compiled (it counts the kernels' operations)");
  if (parsed.has("inputs") && o.inputsFile.empty()) throw userError("--inputs needs a file name");
  if (parsed.has("outputs") && o.outputsFile.empty()) throw userError("--outputs needs a file name");
  return o;
}

DumpOptions parseDumpOptions(const std::vector<std::string>& args) {
  static const std::vector<OptionDef> defs = {{"fn"}, {"input", true, true}, {"stage"}, {"device"}, {"threads"}};
  ParsedOptions parsed = parseOptions(args, defs, "dump");
  DumpOptions o;
  o.help = parsed.help;
  if (o.help) return o;
  o.file = fileArgument(parsed, "dump");
  o.fn = parsed.get("fn");
  o.inputs = inputSpecs(parsed);
  o.device = deviceFrom(parsed);
  if (parsed.has("threads")) o.threads = (int)parseIntegerOption("threads", parsed.get("threads"), 1, kMaxThreads);
  std::string stage = parsed.get("stage", "parsed");
  if (stage == "all") {
    o.stage = std::nullopt;
    return o;
  }
  o.stage = stageFrom(stage,
                      {api::Stage::Parsed, api::Stage::Functional, api::Stage::Simplified, api::Stage::Fused,
                       api::Stage::UGraph, api::Stage::UOps, api::Stage::Code},
                      "parsed, functional, simplified, fused, ugraph, uops, code, all");
  return o;
}

}  // namespace stitch::cli
