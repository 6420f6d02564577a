#include "runtime/executable.h"

#include <omp.h>

#include <cstdlib>
#include <string>

#include "runtime/compiled_program.h"
#include "runtime/program_run.h"
#include "uops/uop_work.h"

namespace stitch {

namespace {

// A kernel call costing less than this (uops/uop_work.h uopCost: value
// operations per call, a transcendental counting 16) runs on the calling
// thread: waking the team and joining it (~1.5 us) costs more than the
// other threads would save. Medians on 2 threads, one thread -> two:
// sigmoid(x) * y over 4096 floats (cost 74K) 1.47 -> 2.80 us, over 8192
// (147K) 2.55 -> 3.19, over 16384 (295K) 4.66 -> 3.93; x * y + 1 over
// 32768 floats (98K) 4.03 -> 4.24.
constexpr int64_t kMinParallelCost = 1 << 18;

}  // namespace

CompiledProgram::CompiledProgram(const Graph& graph, CodePlan plan, const ExecutableOptions& options)
    : graph_(graph),
      plan_(std::move(plan)),
      liveness_(graph, plan_.kernels),
      slots_(graph),
      steps_(graph, plan_.kernels, liveness_),
      pureGraph_(options.pureGraph),
      setThreads_(options.threads > 0),
      threads_(options.threads > 0 ? options.threads : omp_get_max_threads()),
      onCuda_(options.cuda) {
  writtenBack_.assign(graph.inputs().size(), false);
  for (size_t i : options.writtenBackInputs) writtenBack_.at(i) = true;
  setUpContractions();
  loadKernels();
  setUpLoopKernels();
  // An imperative graph's host ops write tensors in place: its runs are
  // not functions of their signature.
  if (onCuda_ && pureGraph_ && graphsWanted() && gpuDevice().canCapture()) graphs_ = std::make_unique<RunGraphs>();
}

std::string CompiledProgram::deviceName() const { return onCuda_ ? gpuDevice().name() : "cpu"; }

void CompiledProgram::loadKernels() {
  functions_.assign(plan_.kernels.kernels.size(), nullptr);
  callThreads_.assign(plan_.kernels.kernels.size(), threads_);
  // A CUDA program needs the GPU even when it has no generated kernel:
  // asking for a device that is not there is an error either way.
  if (onCuda_) gpuDevice();
  bool anyCode = false;
  for (size_t i = 0; i < plan_.kernels.kernels.size(); ++i)
    anyCode |= plan_.kernels.kernels[i].kind == KernelKind::GraphDefined ||
               (!onCuda_ && contractions_[i] && contractions_[i]->compiledEpilogue());
  if (!anyCode) return;
  if (onCuda_) {
    cuda_ = std::make_unique<CudaKernels>(plan_.uops, plan_.source, plan_.cudaLimits);
    compileStats_.outcome = cuda_->compileStats().fromCache ? CacheOutcome::Disk : CacheOutcome::Compiled;
    compileStats_.ms = cuda_->compileStats().ms;
    compileStats_.compiler = cuda_->compileStats().compiler;
    return;
  }
  library_ = loadCompiled(plan_.source, &compileStats_);
  // A plan may come with C source only (no uops): its kernels keep the
  // team.
  std::unordered_map<std::string, const KernelUOps*> uopsOf;
  for (const KernelUOps& code : plan_.uops) uopsOf[code.name] = &code;
  for (size_t i = 0; i < plan_.kernels.kernels.size(); ++i) {
    const Kernel& k = plan_.kernels.kernels[i];
    // On CUDA the device applies a contraction's epilogue
    // (device_contraction.h); where it cannot run the product, the
    // interpreter runs the kernel's nodes (not runnable() without this).
    if (contractions_[i] && contractions_[i]->compiledEpilogue())
      contractions_[i]->setTileEpilogue(library_->tileEpilogue(tileEpilogueName(k.name)));
    if (k.kind != KernelKind::GraphDefined) continue;
    functions_[i] = library_->function(k.name);
    auto code = uopsOf.find(k.name);
    if (code != uopsOf.end() && uopCost(code->second->uops) < kMinParallelCost) callThreads_[i] = 1;
  }
}

void CompiledProgram::setUpContractions() {
  contractions_.resize(plan_.kernels.kernels.size());
  for (size_t i = 0; i < plan_.kernels.kernels.size(); ++i) {
    const Kernel& k = plan_.kernels.kernels[i];
    if (k.kind == KernelKind::Contraction) contractions_[i] = ContractionKernel::create(k.nodes, threads_);
  }
}

bool CompiledProgram::graphsWanted() {
  const char* v = std::getenv("STITCH_CUDA_GRAPHS");
  return !v || std::string(v) != "0";
}

void CompiledProgram::setUpLoopKernels() {
  if (plan_.kernels.loops.empty() || onCuda_) return;
  std::unordered_map<std::string, const KernelUOps*> uopsOf;
  for (const KernelUOps& code : plan_.uops) uopsOf[code.name] = &code;
  std::vector<PhaseCode> phases(plan_.kernels.kernels.size());
  for (size_t i = 0; i < phases.size(); ++i) {
    const Kernel& k = plan_.kernels.kernels[i];
    if (k.kind != KernelKind::GraphDefined) continue;
    phases[i].entry = functions_[i];
    // Without uops (a plan of C source only) the kernel runs whole on one
    // thread of the team.
    auto code = uopsOf.find(k.name);
    phases[i].blockCount = code != uopsOf.end() ? blockRangeCount(*code->second) : 0;
    if (phases[i].blockCount > 0) phases[i].blocks = library_->blockRange(k.name);
  }
  for (const LoopKernel& loop : plan_.kernels.loops)
    loopKernels_.emplace(loop.loop, std::make_unique<LoopKernelRunner>(loop, plan_.kernels, phases));
}

IValueList CompiledProgram::run(const IValueList& inputs, RunStats* stats) {
  std::lock_guard<std::mutex> lock(runMutex_);
  if (inputs.size() != graph_.inputs().size()) {
    throw UserError(
        errorMessage("the program takes ", graph_.inputs().size(), " inputs but ", inputs.size(), " were given"));
  }
  if (setThreads_) omp_set_num_threads(threads_);
  // Outputs of earlier runs that the caller still holds cannot be reused.
  pool_.releaseEscaped();
  if (graphs_) {
    switch (graphs_->next(inputs)) {
      case RunGraphs::Step::Replay:
        return replayed(inputs, stats);
      case RunGraphs::Step::Capture:
        if (std::optional<IValueList> out = captured(inputs, stats)) return std::move(*out);
        break;
      case RunGraphs::Step::Eager:
        break;
    }
  }
  int64_t reusesBefore = pool_.reuses();
  ProgramRun run(*this, stats && stats->timeKernels, writableArguments(inputs, writtenBack_));
  IValueList outputs = run.runBlock(graph_.top(), inputs);
  if (stats) {
    stats->kernelCalls = run.kernelCalls();
    stats->hostSyncs = run.hostSyncs();
    stats->buffersReused = pool_.reuses() - reusesBefore;
    stats->inPlaceAssigns = run.inPlaceAssigns();
    stats->inPlaceAppends = run.inPlaceAppends();
    stats->hostIterations = run.hostIterations();
    stats->kernelMs = run.kernelMs();
  }
  return outputs;
}

// The run recorded by the device, then replayed; nullopt when the capture
// refused (the caller runs the program as usual). A user error or a run-time
// failure during the capture refuses too: the usual run raises it where
// the program says.
std::optional<IValueList> CompiledProgram::captured(const IValueList& inputs, RunStats* stats) {
  GpuDevice& device = gpuDevice();
  RunCapture capture(inputs);
  CapturedOutputs outputs;
  int64_t kernels = 0;
  std::unique_ptr<GpuGraph> graph;
  auto abandon = [&] {
    if (device.capturing()) device.endCapture();
    graphs_->refuse();
  };
  device.beginCapture();
  try {
    {
      ProgramRun run(*this, false, writableArguments(inputs, writtenBack_), &capture);
      run.runBlock(graph_.top(), inputs);
      outputs = std::move(run.captured());
      kernels = run.kernelCalls();
    }  // the run's buffers go back to the graph's memory
    graph = device.endCapture();
  } catch (const CaptureRefused&) {
    abandon();
    return std::nullopt;
  } catch (const UserError&) {
    abandon();
    return std::nullopt;
  } catch (const RuntimeFailure&) {
    abandon();
    return std::nullopt;
  } catch (...) {
    if (device.capturing()) device.endCapture();
    throw;
  }
  if (!graph) {
    graphs_->refuse();
    return std::nullopt;
  }
  graphs_->store(std::move(graph), std::move(capture.uploads()), std::move(outputs), kernels);
  return replayed(inputs, stats);
}

IValueList CompiledProgram::replayed(const IValueList& inputs, RunStats* stats) {
  int64_t syncs = 0;
  IValueList outputs = graphs_->replay(gpuDevice(), inputs, syncs);
  if (stats) {
    const bool timeKernels = stats->timeKernels;
    *stats = RunStats();
    stats->timeKernels = timeKernels;
    stats->kernelCalls = 1;
    stats->graphKernels = graphs_->kernels();
    stats->hostSyncs = syncs;
  }
  return outputs;
}

std::unique_ptr<Executable> Executable::build(const Graph& graph, const ExecutableOptions& options) {
  return build(graph, planCode(graph, options.pureGraph, options.threads), options);
}

std::unique_ptr<Executable> Executable::build(const Graph& graph, CodePlan plan, const ExecutableOptions& options) {
  return std::make_unique<CompiledProgram>(graph, std::move(plan), options);
}

}  // namespace stitch
