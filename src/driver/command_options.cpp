#include "driver/command_options.h"

#include <algorithm>
#include <cstdint>

#include "common/error.h"
#include "driver/option_parser.h"

namespace stitch {

namespace {

constexpr int64_t kMaxBench = 1000000;
constexpr int64_t kMaxThreads = 4096;

std::string fileArgument(const ParsedOptions& parsed, const std::string& command) {
  if (parsed.positional.empty())
    throw UserError(errorMessage("missing FILE.py (usage: stitch ", command,
                                 " FILE.py [options]; see stitch ", command, " --help)"));
  if (parsed.positional.size() > 1)
    throw UserError(errorMessage("unexpected argument '", parsed.positional[1], "' (stitch ",
                                 command, " takes one FILE.py)"));
  return parsed.positional[0];
}

std::vector<NamedInputSpec> inputSpecs(const ParsedOptions& parsed) {
  std::vector<NamedInputSpec> specs;
  for (const std::string& text : parsed.all("input")) specs.push_back(parseNamedInputSpec(text));
  return specs;
}

RunMode runModeFrom(const std::string& text) {
  if (text == "interp") return RunMode::Interp;
  if (text == "compiled") return RunMode::Compiled;
  throw UserError(errorMessage("--mode expects interp or compiled, got '", text, "'"));
}

Stage stageFrom(const std::string& text, const std::vector<Stage>& allowed,
                const std::string& allowedNames) {
  std::optional<Stage> stage = stageFromName(text);
  bool known = stage && std::find(allowed.begin(), allowed.end(), *stage) != allowed.end();
  if (!known)
    throw UserError(errorMessage("--stage expects one of ", allowedNames, ", got '", text, "'"));
  if (!stageAvailable(*stage))
    throw UserError(errorMessage("--stage ", text, " is not available yet (available: ",
                                 availableStageNames(), ")"));
  return *stage;
}

}  // namespace

RunOptions parseRunOptions(const std::vector<std::string>& args) {
  static const std::vector<OptionDef> defs = {
      {"fn"},           {"input", true, true}, {"inputs"}, {"outputs"},
      {"mode"},         {"stage"},             {"check", false}, {"bench"},
      {"seed"},         {"threads"},           {"json", false},   {"tune", false},
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
  if (parsed.has("mode")) o.mode = runModeFrom(parsed.get("mode"));
  if (parsed.has("stage")) {
    // A compiled run always runs the whole pipeline; --stage picks the IR
    // the interpreter runs.
    if (o.mode == RunMode::Compiled)
      throw UserError("--stage applies to --mode interp (a compiled run runs every stage)");
    o.stage = stageFrom(parsed.get("stage"), {Stage::Parsed, Stage::Functional, Stage::Simplified},
                        "parsed, functional, simplified");
  }
  o.check = parsed.has("check");
  if (parsed.has("bench")) o.bench = (int)parseIntegerOption("bench", parsed.get("bench"), 1, kMaxBench);
  if (parsed.has("seed"))
    o.seed = (uint64_t)parseIntegerOption("seed", parsed.get("seed"), 0, INT64_MAX);
  if (parsed.has("threads"))
    o.threads = (int)parseIntegerOption("threads", parsed.get("threads"), 1, kMaxThreads);
  o.json = parsed.has("json");
  o.tune = parsed.has("tune");
  if (o.tune && o.mode != RunMode::Compiled)
    throw UserError("--tune applies to --mode compiled (it measures the kernels' schedules)");
  if (parsed.has("inputs") && o.inputsFile.empty()) throw UserError("--inputs needs a file name");
  if (parsed.has("outputs") && o.outputsFile.empty()) throw UserError("--outputs needs a file name");
  return o;
}

DumpOptions parseDumpOptions(const std::vector<std::string>& args) {
  static const std::vector<OptionDef> defs = {{"fn"}, {"input", true, true}, {"stage"}};
  ParsedOptions parsed = parseOptions(args, defs, "dump");
  DumpOptions o;
  o.help = parsed.help;
  if (o.help) return o;
  o.file = fileArgument(parsed, "dump");
  o.fn = parsed.get("fn");
  o.inputs = inputSpecs(parsed);
  std::string stage = parsed.get("stage", "parsed");
  if (stage == "all") {
    o.stage = std::nullopt;
    return o;
  }
  o.stage = stageFrom(stage,
                      {Stage::Parsed, Stage::Functional, Stage::Simplified, Stage::Fused,
                       Stage::UGraph, Stage::UOps, Stage::Code},
                      "parsed, functional, simplified, fused, ugraph, uops, code, all");
  return o;
}

}  // namespace stitch
