// `stitch run`: load, bind the inputs, compile for their types (the whole
// pipeline and generated kernels with --mode compiled, the default; the IR
// after --stage for the reference interpreter with --mode interp), run and
// time it, optionally check it against the reference interpreter, then
// save and print the outputs.
#include <unistd.h>

#include <iostream>
#include <optional>

#include "command_options.h"
#include "commands.h"
#include "input_binding.h"
#include "json_writer.h"
#include "outputs.h"
#include "usage.h"

namespace stitch::cli {

namespace {

struct RunReport {
  std::string function;
  std::vector<NamedOutput> outputs;
  api::TimedRuns runs;
  std::optional<api::CheckResult> check;
  api::ProgramInfo program;
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

api::Options compileOptions(const RunOptions& o) {
  api::Options options;
  options.mode = o.mode;
  options.stage = o.stage;
  options.threads = o.threads;
  options.device = o.device;
  options.check = o.check;
  options.tune = o.tune;
  options.tuneProgress = o.tune && ::isatty(STDERR_FILENO);
  options.estimateWork = o.work;
  return options;
}

// The timed runs work on copies of the arguments, so the check's reference
// run sees them as they were before any run.
RunReport runProgram(const RunOptions& o) {
  api::Function fn = api::Module::fromFile(o.file).function(o.fn);
  std::vector<api::Value> args = fn.bind({}, bindInputs(fn, inputSourcesFor(o)));
  std::shared_ptr<const api::Program> program = fn.compile(args, compileOptions(o));
  RunReport report;
  report.function = fn.name();
  report.runs = program->runTimed(args, o.bench);
  report.outputs = flattenOutputs(report.runs.outputs);
  if (o.check) report.check = program->check(args, report.runs.outputs);
  report.program = program->info();
  return report;
}

void jsonCompile(JsonWriter& j, const api::ProgramInfo& p) {
  j.key("compile").beginObject();
  j.key("kernels").value(p.kernels);
  if (p.compiledCode) {
    j.key("ms").value(p.compileMs);
    j.key("cache").value(p.cache);
    j.key("compiler").value(p.compiler);
    j.key("rebuilt_bad_entry").value(p.rebuiltBadEntry);
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
  bool compiledMode = o.mode == api::Mode::Compiled;
  j.key("mode").value(compiledMode ? "compiled" : "interp");
  if (!compiledMode) j.key("stage").value(api::stageName(o.stage));
  j.key("outputs").beginArray();
  for (const NamedOutput& out : r.outputs) {
    j.beginObject();
    j.key("name").value(out.name);
    j.key("dtype").value(outputDType(out.value));
    j.key("shape").intArray(outputShape(out.value));
    j.endObject();
  }
  j.endArray();
  j.key("kernels").value(r.runs.kernelCalls);  // the interpreter launches none
  j.key("device").value(r.program.device);
  j.key("host_syncs").value(r.runs.hostSyncs);
  j.key("graph_kernels").value(r.runs.graphKernels);
  j.key("time_ms").beginObject();
  j.key("median").value(r.runs.medianMs).key("min").value(r.runs.minMs);
  j.key("runs").value((int64_t)r.runs.timesMs.size());
  j.endObject();
  if (r.runs.hostIterations > 0) {
    j.key("host_loop").beginObject();
    j.key("iterations").value(r.runs.hostIterations);
    j.key("us_per_iteration").value(r.runs.hostUsPerIteration);
    j.endObject();
  }
  if (compiledMode) jsonCompile(j, r.program);
  if (r.program.tuned) {
    j.key("tune").beginObject();
    j.key("groups").value(r.program.tuned->first);
    j.key("measured").value(r.program.tuned->second);
    j.key("from_cache").value(r.program.tuneFromCache);
    j.endObject();
  }
  if (o.work) {
    j.key("work").beginArray();
    for (const api::KernelWork& k : r.program.work) {
      j.beginObject();
      j.key("kernel").value(k.kernel).key("kind").value(k.kind);
      j.key("work").value(k.work).key("op_work").value(k.opWork);
      j.endObject();
    }
    j.endArray();
  }
  if (r.check) {
    j.key("check").beginObject();
    j.key("max_abs_err").value(r.check->maxAbsError).key("ok").value(r.check->ok);
    j.key("reference").value(r.check->reference);
    j.endObject();
  }
  j.key("stages").beginObject();
  for (const api::StageOps& s : r.program.stages) {
    j.key(api::stageName(s.stage)).beginObject();
    j.key("ops").value(s.ops).key("mutating_ops").value(s.mutatingOps);
    j.endObject();
  }
  j.endObject();
  if (!r.program.functionalFallback.empty()) j.key("functional_fallback").value(r.program.functionalFallback);
  j.endObject();
  return j.str();
}

void printText(const RunOptions& o, const RunReport& r) {
  for (const NamedOutput& out : r.outputs) std::cout << describeOutput(out) << "\n";
  std::cout << "time: ";
  if (o.bench > 0)
    std::cout << "median " << r.runs.medianMs << " ms, min " << r.runs.minMs << " ms over " << o.bench << " runs";
  else
    std::cout << r.runs.medianMs << " ms";
  if (o.mode == api::Mode::Compiled)
    std::cout << " (compiled, " << r.runs.kernelCalls << " kernel calls per run)\n";
  else
    std::cout << " (interp, stage " << api::stageName(o.stage) << ")\n";
  if (o.bench > 0 && r.runs.hostIterations > 0)
    std::cout << "host: " << r.runs.hostUsPerIteration << " us per loop iteration beyond its kernels ("
              << r.runs.hostIterations << " iterations per run, median)\n";
  const api::ProgramInfo& p = r.program;
  if (p.compiledCode) std::cout << "compile: " << p.compileMs << " ms (" << p.cache << ", " << p.compiler << ")\n";
  if (p.tuned)
    std::cout << "tune: " << p.tuned->first << " groups, "
              << (p.tuneFromCache ? std::string("schedules from the tuning cache")
                                  : std::to_string(p.tuned->second) + " schedules measured")
              << "\n";
  for (const api::KernelWork& k : p.work)
    std::cout << "work: " << k.kernel << " (" << k.kind << ") " << k.work << " operations per call, its ops alone "
              << k.opWork << "\n";
  if (!p.functionalFallback.empty())
    std::cout << "note: functionalization refused this program, so the later stages run it as written: "
              << p.functionalFallback << "\n";
  if (r.check)
    std::cout << "check: " << (r.check->ok ? "ok" : "MISMATCH") << ", max abs error " << r.check->maxAbsError << " ("
              << r.check->reference << ")\n";
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
