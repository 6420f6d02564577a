// `stitch run`: load, bind inputs, run the pipeline, then either compile the
// program and run the Executable (--mode compiled, the default) or
// interpret the IR after --stage (--mode interp); optionally check against
// the reference interpreter, save and print the outputs.
#include <unistd.h>

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
#include "driver/schedule_tuner.h"
#include "driver/timed_run.h"
#include "runtime/executable.h"
#include "usage.h"

namespace stitch::cli {

namespace {

// What --check compares against. Interp mode: the same program interpreted
// before shape inference, so a wrong specialization shows as a mismatch.
// Compiled mode: the imperative program as parsed, interpreted, so every
// pass and the generated code are checked at once.
const char* const kInterpCheckReference = "interp on the graph before shape specialization";
const char* const kCompiledCheckReference = "interp on the parsed graph";

struct CompileReport {
  CompileStats stats;
  bool loadedCode = false;  // false: no generated kernel, nothing compiled
  size_t kernelCount = 0;   // kernels in the kernel graph
};

struct RunReport {
  std::string function;
  std::vector<NamedOutput> outputs;
  std::vector<double> timesMs;
  std::optional<CheckResult> check;
  std::map<Stage, OpCounts> opCounts;
  std::string functionalFallback;  // see PipelineResult
  int64_t kernelCalls = 0;         // per run (compiled mode)
  std::optional<CompileReport> compile;
  std::optional<TuneReport> tune;
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

// Compiles the pipeline's plan and runs it. The Executable refers to the
// pipeline's graph, which outlives it here.
TimedRun runCompiled(const RunOptions& o, PipelineResult& compiled, const BoundInputs& inputs,
                     RunReport& report) {
  ExecutableOptions options;
  options.threads = o.threads;
  options.pureGraph = compiled.functionalFallback.empty();
  std::unique_ptr<Executable> exe =
      Executable::build(*compiled.graph, std::move(compiled.code), options);
  CompileReport c;
  c.stats = exe->compileStats();
  c.loadedCode = exe->loadedCode();
  c.kernelCount = exe->kernelGraph().kernels.size();
  report.compile = c;
  RunStats stats;
  TimedRun run = runTimed([&](const IValueList& fresh) { return exe->run(fresh, &stats); },
                          inputs.values, o.bench, compiled.writeBack);
  report.kernelCalls = stats.kernelCalls;
  return run;
}

// --tune: the schedules measured on these inputs (or the stored choice).
TuneReport tuneProgram(const RunOptions& o, PipelineResult& compiled, const BoundInputs& inputs) {
  TuneOptions options;
  options.threads = o.threads;
  options.programKey = readSourceFile(o.file) + "\nfn " + o.fn + "\n";
  for (const TypePtr& t : inputs.types) options.programKey += t->str() + "\n";
  if (::isatty(STDERR_FILENO)) options.progress = &std::cerr;
  return tuneSchedules(compiled, inputs.values, options);
}

RunReport runProgram(const RunOptions& o) {
  LoadedProgram program = loadProgram(o.file, o.fn);
  BoundInputs inputs = bindInputs(program.entry, inputSourcesFor(o));
  bool compiledMode = o.mode == RunMode::Compiled;

  PassLogger logger = PassLogger::fromEnvironment(false);
  PipelineOptions pipelineOptions;
  pipelineOptions.last = compiledMode ? Stage::Code : o.stage;
  pipelineOptions.keepSpecializationInput = o.check && !compiledMode;
  pipelineOptions.keepParsed = o.check && compiledMode;
  pipelineOptions.threads = o.threads;
  pipelineOptions.listInputs = inputs.listElements;
  PipelineResult compiled =
      runPipeline(*program.module, program.entry.name, inputs.types, pipelineOptions, logger);

  RunReport report;
  if (o.tune) report.tune = tuneProgram(o, compiled, inputs);
  InterpOptions interpOptions;
  interpOptions.threads = o.threads;
  TimedRun run = compiledMode
                     ? runCompiled(o, compiled, inputs, report)
                     : runTimed(*compiled.graph, inputs.values, interpOptions, o.bench,
                                compiled.writeBack);
  report.function = program.entry.name;
  report.outputs = flattenOutputs(run.outputs);
  report.timesMs = run.timesMs;
  report.opCounts = compiled.opCounts;
  report.functionalFallback = compiled.functionalFallback;
  if (o.check) {
    const Graph& reference = compiledMode ? *compiled.parsed : *compiled.emitted;
    IValueList expected = interpretFresh(reference, inputs.values, interpOptions);
    report.check = compareOutputs(report.outputs, flattenOutputs(expected));
  }
  return report;
}

const char* checkReference(const RunOptions& o) {
  return o.mode == RunMode::Compiled ? kCompiledCheckReference : kInterpCheckReference;
}

void jsonCompile(JsonWriter& j, const CompileReport& c) {
  j.key("compile").beginObject();
  j.key("kernels").value((int64_t)c.kernelCount);
  if (c.loadedCode) {
    j.key("ms").value(c.stats.ms);
    j.key("cache").value(cacheOutcomeName(c.stats.outcome));
    j.key("compiler").value(c.stats.compiler);
    j.key("rebuilt_bad_entry").value(c.stats.rebuiltBadEntry);
  } else {
    // No generated kernel: nothing to compile.
    j.key("ms").value(0.0);
    j.key("cache").value("none");
  }
  j.endObject();
}

std::string jsonReport(const RunOptions& o, const RunReport& r) {
  JsonWriter j;
  j.beginObject();
  j.key("function").value(r.function);
  bool compiledMode = o.mode == RunMode::Compiled;
  j.key("mode").value(compiledMode ? "compiled" : "interp");
  if (!compiledMode) j.key("stage").value(stageName(o.stage));
  j.key("outputs").beginArray();
  for (const NamedOutput& out : r.outputs) {
    j.beginObject();
    j.key("name").value(out.name);
    j.key("dtype").value(outputDType(out.value));
    j.key("shape").intArray(outputShape(out.value));
    j.endObject();
  }
  j.endArray();
  j.key("kernels").value(r.kernelCalls);  // the interpreter launches none
  TimeSummary t = summarizeTimes(r.timesMs);
  j.key("time_ms").beginObject();
  j.key("median").value(t.medianMs).key("min").value(t.minMs).key("runs").value((int64_t)r.timesMs.size());
  j.endObject();
  if (r.compile) jsonCompile(j, *r.compile);
  if (r.tune) {
    j.key("tune").beginObject();
    j.key("groups").value((int64_t)r.tune->groupsTuned);
    j.key("measured").value((int64_t)r.tune->candidatesMeasured);
    j.key("from_cache").value(r.tune->fromCache);
    j.endObject();
  }
  if (r.check) {
    j.key("check").beginObject();
    j.key("max_abs_err").value(r.check->maxAbsError).key("ok").value(r.check->ok);
    j.key("reference").value(checkReference(o));
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
  if (o.mode == RunMode::Compiled)
    std::cout << " (compiled, " << r.kernelCalls << " kernel calls per run)\n";
  else
    std::cout << " (interp, stage " << stageName(o.stage) << ")\n";
  if (r.compile && r.compile->loadedCode)
    std::cout << "compile: " << r.compile->stats.ms << " ms ("
              << cacheOutcomeName(r.compile->stats.outcome) << ", " << r.compile->stats.compiler
              << ")\n";
  if (r.tune)
    std::cout << "tune: " << r.tune->groupsTuned << " groups, "
              << (r.tune->fromCache ? std::string("schedules from the tuning cache")
                                    : std::to_string(r.tune->candidatesMeasured) + " schedules measured")
              << "\n";
  if (!r.functionalFallback.empty())
    std::cout << "note: functionalization refused this program, so the later stages run it as "
                 "written: "
              << r.functionalFallback << "\n";
  if (r.check)
    std::cout << "check: " << (r.check->ok ? "ok" : "MISMATCH") << ", max abs error "
              << r.check->maxAbsError << " (" << checkReference(o) << ")\n";
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
