#include "api/program.h"

#include <algorithm>
#include <cstring>
#include <iostream>

#include "api/error_translation.h"
#include "api/value_bridge.h"
#include "driver/compare.h"
#include "driver/outputs.h"
#include "driver/schedule_tuner.h"
#include "driver/timed_run.h"
#include "driver/work_estimate.h"
#include "interp/interpreter.h"
#include "runtime/gpu_device.h"

namespace stitch {

namespace {

void appendInt(std::string& key, int64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); }

void appendSignature(std::string& key, const api::Value& v) {
  api::Value::Kind kind = v.kind();
  key.push_back((char)('0' + (int)kind));
  switch (kind) {
    case api::Value::Kind::None:
    case api::Value::Kind::Bool:
    case api::Value::Kind::Int:
    case api::Value::Kind::Float:
      return;
    case api::Value::Kind::Tensor: {
      const api::Tensor& t = v.tensor();
      key.push_back((char)t.dtype);
      appendInt(key, (int64_t)t.sizes.size());
      for (int64_t s : t.sizes) appendInt(key, s);
      return;
    }
    case api::Value::Kind::List:
    case api::Value::Kind::Tuple:
      appendInt(key, (int64_t)v.items().size());
      for (const api::Value& e : v.items()) appendSignature(key, e);
      return;
  }
}

const char* const kCompiledReference = "interp on the parsed graph";
const char* const kInterpReference = "interp on the graph before shape specialization";

api::StageOps stageOps(Stage stage, const OpCounts& counts) {
  return api::StageOps{static_cast<api::Stage>(stage), counts.ops, counts.mutatingOps};
}

}  // namespace

static_assert((int)api::Stage::Code == (int)Stage::Code && (int)api::Stage::Parsed == (int)Stage::Parsed,
              "api::Stage mirrors the pipeline's stages");

std::string argumentSignature(const std::vector<api::Value>& args) {
  std::string key;
  key.reserve(16 * args.size());
  for (const api::Value& a : args) appendSignature(key, a);
  return key;
}

CompiledFunction::CompiledFunction(const CompileRequest& request, const IValueList& args)
    : options_(request.options), signature_(request.signature) {
  bool compiled = options_.mode == api::Mode::Compiled;
  PipelineOptions pipeline;
  pipeline.last = compiled ? Stage::Code : static_cast<Stage>(options_.stage);
  pipeline.keepSpecializationInput = options_.check && !compiled;
  pipeline.keepParsed = options_.check && compiled;
  pipeline.threads = options_.threads;
  pipeline.target = options_.device == api::Device::Cuda ? RenderTarget::Cuda : RenderTarget::C;
  // CUDA text is rendered for the device it will run on (its shared memory
  // per block); asking for a device that is not there fails here.
  if (compiled && pipeline.target == RenderTarget::Cuda)
    pipeline.cudaLimits.sharedMemoryPerBlock = gpuDevice().sharedMemoryPerBlock();
  pipeline.listInputs = request.listInputs;
  PassLogger logger = PassLogger::fromEnvironment(false);
  result_ = runPipeline(*request.module, request.function, request.types, pipeline, logger);

  info_.mode = options_.mode;
  for (const auto& [stage, counts] : result_.opCounts) info_.stages.push_back(stageOps(stage, counts));
  info_.functionalFallback = result_.functionalFallback;
  if (!compiled) return;
  if (options_.tune) {
    TuneOptions tune;
    tune.threads = options_.threads;
    tune.programKey = request.source + "\nfn " + request.function + "\n";
    for (const TypePtr& t : request.types) tune.programKey += t->str() + "\n";
    if (options_.tuneProgress) tune.progress = &std::cerr;
    TuneReport report = tuneSchedules(result_, cloneValues(args), tune);
    info_.tuned = std::make_pair((int64_t)report.groupsTuned, (int64_t)report.candidatesMeasured);
    info_.tuneFromCache = report.fromCache;
  }
  if (options_.estimateWork) {
    for (const KernelWorkEstimate& k : estimateWork(result_.code))
      info_.work.push_back(api::KernelWork{k.kernel, k.kind, k.work, k.opWork});
  }
  ExecutableOptions exe;
  exe.threads = options_.threads;
  exe.cuda = options_.device == api::Device::Cuda;
  exe.pureGraph = result_.functionalFallback.empty();
  exe.writtenBackInputs = result_.writeBack.writtenBackInputs;
  executable_ = Executable::build(*result_.graph, std::move(result_.code), exe);
  info_.kernels = (int64_t)executable_->kernelGraph().kernels.size();
  info_.compiledCode = executable_->loadedCode();
  info_.cache = "none";
  info_.device = executable_->deviceName();
  if (info_.compiledCode) {
    const CompileStats& stats = executable_->compileStats();
    info_.compileMs = stats.ms;
    info_.cache = cacheOutcomeName(stats.outcome);
    info_.compiler = stats.compiler;
    info_.rebuiltBadEntry = stats.rebuiltBadEntry;
  }
}

std::vector<bool> CompiledFunction::argumentsRunsMayWrite(size_t count) const {
  // A functional graph writes no argument but those it writes back.
  const bool functional = result_.functionalFallback.empty() &&
                          (executable_ || static_cast<int>(options_.stage) >= static_cast<int>(api::Stage::Functional));
  std::vector<bool> may(count, !functional);
  for (size_t i : result_.writeBack.writtenBackInputs)
    if (i < count) may[i] = true;
  return may;
}

IValueList CompiledFunction::runOnce(const IValueList& inputs, RunStats* stats) const {
  IValueList outputs;
  if (executable_) {
    outputs = executable_->run(inputs, stats);
  } else {
    InterpOptions interp;
    interp.threads = options_.threads;
    outputs = interpret(*result_.graph, inputs, interp);
  }
  applyWriteBack(result_.writeBack, inputs, outputs);
  returnWrittenArguments(inputs, outputs);
  return outputs;
}

// `x.add_(1); return x` returns the argument itself under PyTorch: an
// output that is a written argument's final version is that argument (the
// write-back has just put the same values there), so the caller's result
// aliases it as the program says.
void CompiledFunction::returnWrittenArguments(const IValueList& inputs, IValueList& outputs) const {
  const FunctionalizeResult& wb = result_.writeBack;
  const std::vector<Value*>& graphOutputs = result_.graph->outputs();
  for (size_t k = 0; k < wb.writtenBackInputs.size(); ++k) {
    const Value* final = graphOutputs.at(wb.originalOutputs + k);
    for (size_t i = 0; i < wb.originalOutputs && i < outputs.size(); ++i)
      if (graphOutputs[i] == final) outputs[i] = inputs.at(wb.writtenBackInputs[k]);
  }
}

api::CheckResult CompiledFunction::compareWithReference(const IValueList& originals, const IValueList& outputs) const {
  bool compiled = executable_ != nullptr;
  const Graph& reference = compiled ? *result_.parsed : *result_.emitted;
  InterpOptions interp;
  interp.threads = options_.threads;
  IValueList expected = interpret(reference, originals, interp);
  CheckResult r = compareOutputs(flattenOutputs(outputs), flattenOutputs(expected));
  return api::CheckResult{r.ok, r.maxAbsError, r.mismatch, compiled ? kCompiledReference : kInterpReference};
}

std::vector<api::Value> CompiledFunction::runChecked(const std::vector<api::Value>& args, api::RunInfo* info) const {
  return translated([&] {
    IValueList inputs = toIValues(args);
    // The reference run needs the arguments as they were before this run
    // writes into them.
    IValueList originals = options_.check ? cloneValues(inputs) : IValueList{};
    RunStats stats;
    IValueList outputs = runOnce(inputs, &stats);
    if (info) {
      info->kernelCalls = stats.kernelCalls;
      info->hostSyncs = stats.hostSyncs;
      info->graphKernels = stats.graphKernels;
      if (options_.check) info->check = compareWithReference(originals, outputs);
    }
    std::vector<api::Value> out;
    out.reserve(outputs.size());
    for (const IValue& v : outputs) out.push_back(toPublic(v));
    return out;
  });
}

void CompiledFunction::requireSignature(const std::vector<api::Value>& args) const {
  if (argumentSignature(args) != signature_)
    throw api::CompileError("stitch: error: the arguments' types differ from those the program was compiled for");
}

std::vector<api::Value> CompiledFunction::run(const std::vector<api::Value>& args, api::RunInfo* info) const {
  requireSignature(args);
  return runChecked(args, info);
}

api::TimedRuns CompiledFunction::runTimed(const std::vector<api::Value>& args, int repetitions) const {
  requireSignature(args);
  return translated([&] {
    // One entry per run, the untimed warm-up first when there is one.
    std::vector<RunStats> stats;
    const std::vector<bool> mayWrite = argumentsRunsMayWrite(args.size());
    TimedRun run = ::stitch::runTimed(
        [&](const IValueList& fresh) {
          stats.emplace_back().timeKernels = true;
          return runOnce(fresh, &stats.back());
        },
        toIValues(args), repetitions, {}, &mayWrite);
    api::TimedRuns out;
    for (const IValue& v : run.outputs) out.outputs.push_back(toPublic(v));
    TimeSummary summary = summarizeTimes(run.timesMs);
    const size_t warmUps = stats.size() - run.timesMs.size();
    out.kernelCalls = stats.back().kernelCalls;
    out.hostSyncs = stats.back().hostSyncs;
    out.graphKernels = stats.back().graphKernels;
    out.hostIterations = stats.back().hostIterations;
    if (out.hostIterations > 0) {
      std::vector<double> hostUs;
      for (size_t i = 0; i < run.timesMs.size(); ++i) {
        const RunStats& s = stats[warmUps + i];
        hostUs.push_back((run.timesMs[i] - s.kernelMs) * 1e3 / std::max<int64_t>(s.hostIterations, 1));
      }
      out.hostUsPerIteration = summarizeTimes(std::move(hostUs)).medianMs;
    }
    out.timesMs = std::move(run.timesMs);
    out.medianMs = summary.medianMs;
    out.minMs = summary.minMs;
    return out;
  });
}

api::CheckResult CompiledFunction::check(const std::vector<api::Value>& args,
                                         const std::vector<api::Value>& outputs) const {
  requireSignature(args);
  return translated([&] {
    if (!options_.check)
      throw UserError("the program was compiled without Options::check, so it keeps no reference to check against");
    return compareWithReference(cloneValues(toIValues(args)), toIValues(outputs));
  });
}

}  // namespace stitch
