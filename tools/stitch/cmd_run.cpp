// `stitch run`: load, bind inputs, run the pipeline to --stage, interpret,
// optionally check against the graph before shape specialization, save and
// print the outputs.
#include <iostream>
#include <optional>

#include "commands.h"
#include "driver/command_options.h"
#include "driver/compare.h"
#include "driver/input_binding.h"
#include "driver/json_writer.h"
#include "driver/outputs.h"
#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "driver/timed_run.h"
#include "usage.h"

namespace stitch::cli {

namespace {

// What --check compares against in interp mode: the same program interpreted
// before shape inference, so a wrong specialization shows as a mismatch.
const char* const kCheckReference = "interp on the graph before shape specialization";

struct RunReport {
  std::string function;
  std::vector<NamedOutput> outputs;
  std::vector<double> timesMs;
  std::optional<CheckResult> check;
  std::map<Stage, OpCounts> opCounts;
  std::string functionalFallback;  // see PipelineResult
};

InputSources inputSourcesFor(const RunOptions& o) {
  InputSources sources;
  sources.specs = o.inputs;
  sources.seed = o.seed;
  if (!o.inputsFile.empty()) {
    sources.arrays = readNpz(o.inputsFile);
    sources.arraysFile = o.inputsFile;
  }
  return sources;
}

RunReport runProgram(const RunOptions& o) {
  LoadedProgram program = loadProgram(o.file, o.fn);
  BoundInputs inputs = bindInputs(program.entry, inputSourcesFor(o));

  PassLogger logger = PassLogger::fromEnvironment(false);
  PipelineOptions pipelineOptions;
  pipelineOptions.last = o.stage;
  pipelineOptions.keepSpecializationInput = o.check;
  PipelineResult compiled =
      runPipeline(*program.module, program.entry.name, inputs.types, pipelineOptions, logger);

  InterpOptions interpOptions;
  interpOptions.threads = o.threads;
  TimedRun run = runTimed(*compiled.graph, inputs.values, interpOptions, o.bench, compiled.writeBack);

  RunReport report;
  report.function = program.entry.name;
  report.outputs = flattenOutputs(run.outputs);
  report.timesMs = run.timesMs;
  report.opCounts = compiled.opCounts;
  report.functionalFallback = compiled.functionalFallback;
  if (o.check) {
    IValueList reference = interpretFresh(*compiled.emitted, inputs.values, interpOptions);
    report.check = compareOutputs(report.outputs, flattenOutputs(reference));
  }
  return report;
}

std::string jsonReport(const RunOptions& o, const RunReport& r) {
  JsonWriter j;
  j.beginObject();
  j.key("function").value(r.function);
  j.key("mode").value("interp");
  j.key("stage").value(stageName(o.stage));
  j.key("outputs").beginArray();
  for (const NamedOutput& out : r.outputs) {
    j.beginObject();
    j.key("name").value(out.name);
    j.key("dtype").value(outputDType(out.value));
    j.key("shape").intArray(outputShape(out.value));
    j.endObject();
  }
  j.endArray();
  j.key("kernels").value(0);  // the interpreter launches no kernels
  TimeSummary t = summarizeTimes(r.timesMs);
  j.key("time_ms").beginObject();
  j.key("median").value(t.medianMs).key("min").value(t.minMs).key("runs").value((int64_t)r.timesMs.size());
  j.endObject();
  if (r.check) {
    j.key("check").beginObject();
    j.key("max_abs_err").value(r.check->maxAbsError).key("ok").value(r.check->ok);
    j.key("reference").value(kCheckReference);
    j.endObject();
  }
  j.key("stages").beginObject();
  for (const auto& [stage, counts] : r.opCounts) {
    j.key(stageName(stage)).beginObject();
    j.key("ops").value(counts.ops).key("mutating_ops").value(counts.mutatingOps);
    j.endObject();
  }
  j.endObject();
  if (!r.functionalFallback.empty()) j.key("functional_fallback").value(r.functionalFallback);
  j.endObject();
  return j.str();
}

void printText(const RunOptions& o, const RunReport& r) {
  for (const NamedOutput& out : r.outputs) std::cout << describeOutput(out) << "\n";
  TimeSummary t = summarizeTimes(r.timesMs);
  std::cout << "time: ";
  if (o.bench > 0)
    std::cout << "median " << t.medianMs << " ms, min " << t.minMs << " ms over " << o.bench << " runs";
  else
    std::cout << t.medianMs << " ms";
  std::cout << " (interp, stage " << stageName(o.stage) << ")\n";
  if (!r.functionalFallback.empty())
    std::cout << "note: functionalization refused this program, so the later stages run it as "
                 "written: "
              << r.functionalFallback << "\n";
  if (r.check)
    std::cout << "check: " << (r.check->ok ? "ok" : "MISMATCH") << ", max abs error "
              << r.check->maxAbsError << " (" << kCheckReference << ")\n";
}

}  // namespace

int runCommand(const std::vector<std::string>& args) {
  RunOptions o = parseRunOptions(args);
  if (o.help) {
    std::cout << kRunUsage;
    return 0;
  }
  RunReport report = runProgram(o);
  if (!o.outputsFile.empty()) writeNpz(o.outputsFile, outputsAsArrays(report.outputs));
  if (o.json)
    std::cout << jsonReport(o, report) << "\n";
  else
    printText(o, report);
  std::cout.flush();
  if (report.check && !report.check->ok) {
    std::cerr << "stitch: error: check failed: " << report.check->mismatch << "\n";
    return 1;
  }
  return 0;
}

}  // namespace stitch::cli
