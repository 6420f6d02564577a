#include "runtime/executable.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "codegen/c_renderer.h"
#include "interp/interpreter.h"
#include "runtime/attention_kernel.h"
#include "runtime/buffer_pool.h"
#include "runtime/contraction_kernel.h"
#include "runtime/copy_kernels.h"
#include "runtime/cuda_kernels.h"
#include "runtime/device_attention.h"
#include "runtime/device_contraction.h"
#include "runtime/device_copy.h"
#include "runtime/device_values.h"
#include "runtime/host_ops.h"
#include "runtime/in_place_assign.h"
#include "runtime/loop_kernel.h"
#include "runtime/node_steps.h"
#include "runtime/run_graphs.h"
#include "runtime/value_liveness.h"
#include "runtime/writable_arguments.h"
#include "uops/uop_work.h"

namespace stitch {

namespace {

const Type& staticTensorType(const Value* v) {
  const Type& t = *v->type();
  STITCH_ASSERT(t.isTensor() && t.fullyKnown(), "kernel value %", v->debugName(),
                " has no static tensor type: ", t.str());
  return t;
}

// A kernel call costing less than this (uops/uop_work.h uopCost: value
// operations per call, a transcendental counting 16) runs on the calling
// thread: waking the team and joining it (~1.5 us) costs more than the
// other threads would save (a 128 x 128 GEMV with its tanh, 18K: greedy
// decoding's hidden state update, 12% faster per run alone; a SwiGLU's
// 8192 silus, 150K, keep both threads).
constexpr int64_t kMinParallelCost = 1 << 16;

bool matchesStaticType(const Tensor& t, const Value* v) {
  const Type& type = staticTensorType(v);
  return t.dtype() == *type.dtype() && t.sizes() == *type.shape();
}

// A dense slot per value of the graph (block parameters and node outputs),
// found by the value's id: a run's environment is a vector, so binding a
// value allocates nothing (a hash map allocated a node per binding, the
// largest host cost of a loop of small kernels).
class ValueSlots {
 public:
  explicit ValueSlots(const Graph& graph) { addBlock(graph.top()); }

  size_t size() const { return count_; }
  size_t of(const Value* v) const {
    uint64_t id = v->id();
    STITCH_ASSERT(id < slotOfId_.size() && slotOfId_[id] >= 0, "value %", v->debugName(), " is not in the program");
    return (size_t)slotOfId_[id];
  }

 private:
  void add(const Value* v) {
    if (v->id() >= slotOfId_.size()) slotOfId_.resize(v->id() + 1, -1);
    if (slotOfId_[v->id()] < 0) slotOfId_[v->id()] = (int32_t)count_++;
  }
  void addBlock(const Block* block) {
    for (const Value* p : block->params()) add(p);
    for (const Node* node : *block) {
      for (const Value* out : node->outputs()) add(out);
      for (const Block* sub : node->blocks()) addBlock(sub);
    }
  }

  std::vector<int32_t> slotOfId_;
  size_t count_ = 0;
};

class CompiledProgram final : public Executable {
 public:
  CompiledProgram(const Graph& graph, CodePlan plan, const ExecutableOptions& options)
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
    loadKernels();
    setUpContractions();
    setUpLoopKernels();
    // An imperative graph's host ops write tensors in place: its runs are
    // not functions of their signature.
    if (onCuda_ && pureGraph_ && graphsWanted() && gpuDevice().canCapture()) graphs_ = std::make_unique<RunGraphs>();
  }

  IValueList run(const IValueList& inputs, RunStats* stats) override;

  const KernelGraph& kernelGraph() const override { return plan_.kernels; }
  const std::vector<KernelUOps>& kernelUOps() const override { return plan_.uops; }
  const std::string& source() const override { return plan_.source; }
  const CompileStats& compileStats() const override { return compileStats_; }
  bool loadedCode() const override { return library_ != nullptr || cuda_ != nullptr; }
  std::string deviceName() const override {
    return onCuda_ ? gpuDevice().name() : "cpu";
  }

 private:
  friend class ProgramRun;

  void loadKernels() {
    functions_.assign(plan_.kernels.kernels.size(), nullptr);
    callThreads_.assign(plan_.kernels.kernels.size(), threads_);
    // A CUDA program needs the GPU even when it has no generated kernel:
    // asking for a device that is not there is an error either way.
    if (onCuda_) gpuDevice();
    bool anyCode = false;
    for (const Kernel& k : plan_.kernels.kernels) anyCode |= k.kind == KernelKind::GraphDefined;
    if (!anyCode) return;
    if (onCuda_) {
      cuda_ = std::make_unique<CudaKernels>(plan_.uops, plan_.source);
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
      if (k.kind != KernelKind::GraphDefined) continue;
      functions_[i] = library_->function(k.name);
      auto code = uopsOf.find(k.name);
      if (code != uopsOf.end() && uopCost(code->second->uops) < kMinParallelCost) callThreads_[i] = 1;
    }
  }

  void setUpContractions() {
    contractions_.resize(plan_.kernels.kernels.size());
    for (size_t i = 0; i < plan_.kernels.kernels.size(); ++i) {
      const Kernel& k = plan_.kernels.kernels[i];
      if (k.kind == KernelKind::Contraction) contractions_[i] = ContractionKernel::create(k.nodes, threads_);
    }
  }

  // STITCH_CUDA_GRAPHS=0 turns graphs off (every run walks the program).
  static bool graphsWanted() {
    const char* v = std::getenv("STITCH_CUDA_GRAPHS");
    return !v || std::string(v) != "0";
  }

  std::optional<IValueList> captured(const IValueList& inputs, RunStats* stats);
  IValueList replayed(const IValueList& inputs, RunStats* stats);

  // Each loop kernel's program over the loaded phases.
  void setUpLoopKernels() {
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

  const Graph& graph_;
  CodePlan plan_;
  ValueLiveness liveness_;
  ValueSlots slots_;
  ProgramSteps steps_;
  bool pureGraph_;
  std::vector<bool> writtenBack_;  // per graph input: ExecutableOptions::writtenBackInputs
  bool setThreads_;
  int threads_;
  bool onCuda_;
  std::unique_ptr<CudaKernels> cuda_;  // onCuda_: the generated kernels on the GPU
  CompileStats compileStats_;
  std::shared_ptr<const LoadedLibrary> library_;
  std::vector<KernelFunction> functions_;  // per kernel; null unless GraphDefined
  std::vector<int64_t> callThreads_;        // per kernel: threads_, or 1 below kMinParallelCost
  // Per kernel: the tensor-operation backend's routine for a Contraction
  // kernel it can run; null otherwise (the interpreter's routine runs it).
  std::vector<std::unique_ptr<ContractionKernel>> contractions_;
  std::unordered_map<const Node*, std::unique_ptr<LoopKernelRunner>> loopKernels_;
  BufferPool pool_;
  std::unique_ptr<RunGraphs> graphs_;  // on CUDA: runs as graphs
  std::mutex runMutex_;
};

// One run: the environment of live values, walked block by block like the
// reference interpreter, with kernels called where they end.
class ProgramRun {
 public:
  // `capture`: the device records this run (runtime/run_graphs.h), and
  // the top block's returns go to captured() instead of the caller.
  ProgramRun(CompiledProgram& program, bool timeKernels, std::vector<WritableArgument> writable,
             RunCapture* capture = nullptr)
      : p_(program),
        env_(program.slots_.size()),
        bound_(program.slots_.size(), 0),
        writable_(std::move(writable)),
        timeKernels_(timeKernels),
        capture_(capture) {
    if (program.onCuda_)
      device_ = std::make_unique<DeviceValues>(gpuDevice(), program.slots_.size(), program.pureGraph_, capture);
  }

  int64_t kernelCalls() const { return kernelCalls_ + (device_ ? device_->copyLaunches() : 0); }
  CapturedOutputs& captured() { return captured_; }
  int64_t inPlaceAssigns() const { return inPlaceAssigns_; }
  int64_t inPlaceAppends() const { return inPlaceAppends_; }
  int64_t hostIterations() const { return hostIterations_; }
  int64_t hostSyncs() const { return device_ ? device_->hostSyncs() : 0; }
  double kernelMs() const { return kernelNs_ * 1e-6; }

  // `carries`: a loop body's device copies, of its params on the way in
  // (each taken for its param) and of its returns on the way out.
  IValueList runBlock(const Block* block, IValueList params, std::vector<CudaPointer>* carries = nullptr) {
    const std::vector<Value*>& ps = block->params();
    STITCH_ASSERT(ps.size() == params.size(), "block expects ", ps.size(), " values, got ",
                  params.size());
    for (size_t i = 0; i < ps.size(); ++i) {
      bind(ps[i], std::move(params[i]));
      if (carries && (*carries)[i]) {
        const size_t slot = p_.slots_.of(ps[i]);
        device_->written(slot, (*carries)[i], env_[slot].toTensor());
        (*carries)[i] = 0;
      }
    }
    const BlockLiveness& live = p_.liveness_.of(block);
    const std::vector<NodeStep>& steps = p_.steps_.of(block);
    drop(live.unusedParams);
    size_t index = 0;
    for (const Node* node : *block) {
      const NodeStep& step = steps[index];
      withNodeLocation(*node, [&] { runNode(node, step); });
      drop(live.dropAfter[index++]);
    }
    IValueList out;
    const std::vector<Value*>& rs = block->returns();
    if (capture_ && block == p_.graph_.top()) {
      captureReturns(rs);
    } else {
      if (carries) carries->assign(rs.size(), 0);
      for (size_t j = 0; j < rs.size(); ++j) out.push_back(carries ? carryOut(rs[j], (*carries)[j]) : lookup(rs[j]));
    }
    drop(live.dropAtEnd);
    return out;
  }

 private:
  // Times a kernel's own routine, from construction to the end of the
  // scope, when the run counts kernel time (and `kernel` says the routine
  // is one).
  class KernelClock {
   public:
    explicit KernelClock(ProgramRun& run, bool kernel = true) : run_(run.timeKernels_ && kernel ? &run : nullptr) {
      if (run_) start_ = std::chrono::steady_clock::now();
    }
    ~KernelClock() {
      if (run_) run_->kernelNs_ +=
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
    }

   private:
    ProgramRun* run_;
    std::chrono::steady_clock::time_point start_;
  };

  // The value's slot when it is bound; null when it is not. A tensor a
  // kernel wrote on the device is read back first: the host reads values
  // through here.
  IValue* find(const Value* v) {
    size_t slot = p_.slots_.of(v);
    if (!bound_[slot]) return nullptr;
    if (capture_ && holdsTensor(env_[slot])) throw CaptureRefused("the host reads a tensor");
    if (device_) {
      const IValue& value = env_[slot];
      if (value.isTensor())
        device_->readOnHost(slot);
      else if (device_->keepsAny() && (value.isList() || value.isTuple()))
        device_->readOnHost(value);
    }
    return &env_[slot];
  }
  const IValue* find(const Value* v) const { return const_cast<ProgramRun*>(this)->find(v); }

  const IValue& lookup(const Value* v) const {
    const IValue* value = find(v);
    STITCH_ASSERT(value, "value %", v->debugName(), " used before it is defined");
    return *value;
  }

  void bind(const Value* v, IValue value) {
    size_t slot = p_.slots_.of(v);
    if (device_) device_->forget(slot);
    env_[slot] = std::move(value);
    bound_[slot] = 1;
  }

  // Releases the value now (a kernel buffer nobody else holds goes back to
  // the pool).
  void unbind(const Value* v) {
    size_t slot = p_.slots_.of(v);
    if (device_) device_->forget(slot);
    env_[slot] = IValue();
    bound_[slot] = 0;
  }

  void drop(const std::vector<const Value*>& dead) {
    for (const Value* v : dead) unbind(v);
  }

  IValueList inputValues(const Node* node) const {
    IValueList args;
    args.reserve(node->inputs().size());
    for (const Value* in : node->inputs()) args.push_back(lookup(in));
    return args;
  }

  // list.append on a list this environment alone holds, which nothing
  // reads after it (NodeStep::appendsInPlace): the list grows where it is.
  bool appendedInPlace(const Node* node) {
    const size_t slot = p_.slots_.of(node->input(0));
    STITCH_ASSERT(bound_[slot], "value %", node->input(0)->debugName(), " used before it is defined");
    IValue* list = &env_[slot];  // not find(): appending reads no element
    if (!list->appendIfUnshared(appendedElement(node))) return false;
    IValue grown = std::move(*list);
    unbind(node->input(0));
    bind(node->output(), std::move(grown));
    ++inPlaceAppends_;
    return true;
  }

  // The value a list.append adds. On the GPU a tensor with a device
  // buffer is not read back: the buffer is kept for the list
  // (DeviceValues::keepForList), and the host reads it with the list.
  const IValue& appendedElement(const Node* node) {
    const size_t slot = p_.slots_.of(node->input(1));
    if (!device_ || !bound_[slot] || !env_[slot].isTensor() || !device_->onDevice(slot))
      return lookup(node->input(1));
    device_->keepForList(slot, env_[slot].toTensor());
    return env_[slot];
  }

  // A host op on the node's inputs, their list the run's own, reused: a
  // loop's host steps allocate no argument list per step.
  IValueList callHost(const HostOp& op, const Node* node) {
    hostArgs_.clear();
    if (device_ && op.appends) {
      const size_t list = p_.slots_.of(node->input(0));
      STITCH_ASSERT(bound_[list], "value %", node->input(0)->debugName(), " used before it is defined");
      hostArgs_.push_back(env_[list]);  // copying the list reads no element
      hostArgs_.push_back(appendedElement(node));
    } else {
      for (const Value* in : node->inputs()) hostArgs_.push_back(lookup(in));
    }
    IValueList results = runHostOp(op, *node, hostArgs_);
    // The references go now: how many hold a buffer decides in-place writes.
    hostArgs_.clear();
    return results;
  }

  // A host op that reads no tensor's data (HostOp::readsShapes), on the
  // values as they are: nothing is read back.
  IValueList callHostUnread(const HostOp& op, const Node* node) {
    hostArgs_.clear();
    for (const Value* in : node->inputs()) {
      const size_t slot = p_.slots_.of(in);
      STITCH_ASSERT(bound_[slot], "value %", in->debugName(), " used before it is defined");
      hostArgs_.push_back(env_[slot]);
    }
    IValueList results = runHostOp(op, *node, hostArgs_);
    hostArgs_.clear();
    return results;
  }

  // Elements taken out of a list or tuple without reading them: a tensor
  // whose data a list keeps on the device (DeviceValues::keepForList)
  // shares that buffer; any other is current on the host.
  void extractedOnDevice(const Node* node, const HostOp& op) {
    bindOutputs(node, callHostUnread(op, node));
    for (const Value* out : node->outputs()) {
      const size_t slot = p_.slots_.of(out);
      if (env_[slot].isTensor() && env_[slot].toTensor().defined())
        device_->takeFromList(slot, env_[slot].toTensor());
    }
  }

  // A view of a value that has a device buffer: taken of the host's tensor
  // without reading it back (a view reads no data), sharing the buffer.
  bool viewedOnDevice(const Node* node, const HostOp& op) {
    const size_t base = p_.slots_.of(node->input(0));
    if (!bound_[base] || !env_[base].isTensor()) return false;
    if (op.reshapes && !env_[base].toTensor().isContiguous()) return false;  // the host would copy
    if (!residentOnDevice(base)) return false;
    hostArgs_.clear();
    hostArgs_.push_back(env_[base]);  // not find(): nothing is read back
    for (size_t i = 1; i < node->inputs().size(); ++i) hostArgs_.push_back(lookup(node->input(i)));
    IValueList results = runHostOp(op, *node, hostArgs_);
    hostArgs_.clear();
    STITCH_ASSERT(results.size() == 1 && results[0].isTensor() &&
                      results[0].toTensor().sameStorage(env_[base].toTensor()),
                  "'", node->kind(), "' took no view of its input");
    bind(node->output(), std::move(results[0]));
    const size_t view = p_.slots_.of(node->output());
    // A buffer that mirrors no host memory is an upload: the host is current.
    if (!device_->shareView(view, base, env_[view].toTensor()))
      STITCH_ASSERT(!device_->hostBehind(base), "a view of a value the host is behind");
    return true;
  }

  static bool holdsTensor(const IValue& v) {
    if (v.isTensor()) return v.toTensor().defined();
    if (!v.isList() && !v.isTuple()) return false;
    for (const IValue& e : v.toList())
      if (holdsTensor(e)) return true;
    return false;
  }

  // The top block's returns as the device holds them, for a replay to
  // read (the host reads none of them now).
  void captureReturns(const std::vector<Value*>& rs) {
    for (const Value* r : rs) {
      const size_t slot = p_.slots_.of(r);
      STITCH_ASSERT(bound_[slot], "value %", r->debugName(), " used before it is defined");
      captured_.add(env_[slot], *capture_,
                    [&](const Tensor& t, DeviceMirror& m) { return device_->mirrorOf(slot, t, m); });
    }
  }

  // A value a loop carries into its next iteration, and in `device` a copy
  // of it on the device when the host is behind it: then the host's copy
  // is not brought up to date (no host sync per iteration). A capture
  // carries every dense tensor on the device: the host may read none.
  IValue carryOut(const Value* v, CudaPointer& device) {
    const size_t slot = p_.slots_.of(v);
    STITCH_ASSERT(bound_[slot], "value %", v->debugName(), " used before it is defined");
    const bool tensor = device_ && env_[slot].isTensor();
    const bool always = tensor && capture_ && env_[slot].toTensor().defined() && residentOnDevice(slot);
    device = tensor ? device_->copyForCarry(slot, env_[slot].toTensor(), always) : 0;
    // Carrying a list reads none of its elements (kept on the device).
    if (device || (device_ && (env_[slot].isList() || env_[slot].isTuple()))) return env_[slot];
    return lookup(v);
  }

  void bindOutputs(const Node* node, IValueList results) {
    const std::vector<Value*>& outs = node->outputs();
    STITCH_ASSERT(results.size() == outs.size(), "'", node->kind(), "' gave ", results.size(),
                  " values for ", outs.size(), " outputs");
    for (size_t i = 0; i < outs.size(); ++i) bind(outs[i], std::move(results[i]));
  }

  void runNode(const Node* node, const NodeStep& step) {
    using A = NodeStep::Action;
    // Constants are cheap and kernels bake theirs, but a host op may still
    // read one, so they are always bound.
    if (step.action == A::Constant) return bind(node->output(), step.constant);
    if (step.mayAssignInPlace && assignedInPlace(node, step)) return;
    switch (step.action) {
      case A::Kernel: return callKernel(step.kernel);
      case A::Loop: return runLoop(node);
      case A::If: return runIf(node);
      case A::Host:
        if (step.appendsInPlace && appendedInPlace(node)) return;
        if (device_ && (step.host.aliases || step.host.reshapes) && viewedOnDevice(node, step.host)) return;
        if (device_ && step.host.readsShapes) return bindOutputs(node, callHostUnread(step.host, node));
        if (device_ && step.host.extracts) return extractedOnDevice(node, step.host);
        if (device_ && step.host.copies && p_.pureGraph_ && hostCopyOnDevice(node)) return;
        return bindOutputs(node, callHost(step.host, node));
      case A::Constant:
      case A::InKernel:
      case A::Nothing: return;
    }
  }

  // TorchScript's loop: runs while iter < max_trip_count and cond holds.
  void runLoop(const Node* node) {
    auto kernel = p_.loopKernels_.find(node);
    if (kernel != p_.loopKernels_.end() && runLoopKernel(node, *kernel->second)) return;
    const std::vector<Value*>& ins = node->inputs();
    STITCH_ASSERT(ins.size() >= 2, "prim.loop needs max_trip_count and cond");
    int64_t maxTrip = lookup(ins[0]).toInt();
    bool cond = lookup(ins[1]).toBool();
    IValueList carried;
    // The carried values' device copies, as the body's params see them
    // (the first param is the trip count): a GPU run's carries stay there.
    CarriedCopies copies(device_.get(), ins.size() - 1);
    const std::vector<bool>& moved = p_.steps_.movedCarries(node);
    for (size_t i = 2; i < ins.size(); ++i) {
      carried.push_back(carryOut(ins[i], copies.ptrs[i - 1]));
      if (moved[i]) unbind(ins[i]);  // the body may write it in place
    }
    const Block* body = node->block(0);
    std::vector<CudaPointer>* carries = device_ ? &copies.ptrs : nullptr;
    bindOutputs(node, runLoopIterations(maxTrip, cond, std::move(carried), [&](IValueList params) {
                  ++hostIterations_;
                  IValueList returns = runBlock(body, std::move(params), carries);
                  // The condition is a bool the host reads, never on the device.
                  STITCH_ASSERT(!copies.ptrs[0], "a loop condition held on the device");
                  return returns;
                }));
    if (!device_) return;
    for (size_t i = 0; i < node->outputs().size(); ++i) {
      CudaPointer& copy = copies.ptrs.at(i + 1);
      if (!copy) continue;
      const size_t slot = p_.slots_.of(node->output(i));
      device_->written(slot, copy, env_[slot].toTensor());
      copy = 0;
    }
  }

  // Device copies a loop owns until a slot takes them (returned on a throw).
  struct CarriedCopies {
    CarriedCopies(DeviceValues* values, size_t n) : values(values), ptrs(n, 0) {}
    ~CarriedCopies() {
      for (CudaPointer p : ptrs)
        if (p) values->release(p);
    }
    DeviceValues* values;
    std::vector<CudaPointer> ptrs;
  };

  // The whole loop in one call; false when a value it reads does not have
  // its static type (the loop then runs here, step by step).
  bool runLoopKernel(const Node* node, const LoopKernelRunner& kernel) {
    loopOuter_.clear();
    for (const Value* v : kernel.outerValues()) loopOuter_.push_back(&lookup(v));
    findWritableOuter(node, kernel);
    IValueList outputs;
    KernelClock clock(*this);
    if (!kernel.run(loopOuter_, loopWritable_, p_.pool_, p_.threads_, outputs)) return false;
    ++kernelCalls_;
    bindOutputs(node, std::move(outputs));
    return true;
  }

  // The values a loop kernel's in-place carries start from that it may
  // write: dying at the loop and held by this environment alone (or an
  // argument the caller lets the program write). Another value sharing the
  // memory, one the loop reads included, would hold a reference.
  void findWritableOuter(const Node* node, const LoopKernelRunner& kernel) {
    loopWritable_.assign(loopOuter_.size(), false);
    const std::vector<int>& inputs = kernel.inPlaceInputs();
    const std::vector<bool>& moved = p_.steps_.movedCarries(node);
    for (size_t k = 0; k < loopOuter_.size(); ++k) {
      if (inputs[k] < 0 || !moved[(size_t)inputs[k]] || !loopOuter_[k]->isTensor()) continue;
      const Tensor& t = loopOuter_[k]->toTensor();
      loopWritable_[k] = t.defined() && (p_.pool_.onlyHeldBy(t.storage(), 1) || writableArgument(t));
    }
  }

  void runIf(const Node* node) {
    bool cond = lookup(node->input(0)).toBool();
    bindOutputs(node, runBlock(node->block(cond ? 0 : 1), {}));
  }

  // An Assign op whose base nobody else can see any more writes into the
  // base (the one reference is this environment's entry).
  bool assignedInPlace(const Node* node, const NodeStep& step) {
    // On the GPU an assign that is a kernel runs there: here it would bring
    // both tensors to the host.
    if (device_ && step.kernel >= 0) return false;
    if (device_ && assignedOnDevice(node, step)) return true;
    const IValue& base = lookup(node->input(0));
    const IValue& src = lookup(node->input(1));
    if (!base.isTensor() || !src.isTensor()) return false;
    const Tensor& b = base.toTensor();
    if (!b.defined() || b.sameStorage(src.toTensor())) return false;
    if (!p_.pool_.onlyHeldBy(b.storage(), 1) && !writableArgument(b)) return false;
    IValueList args = inputValues(node);
    Tensor out;
    {
      KernelClock clock(*this, step.kernel >= 0);  // else a host op's work
      out = assignInPlace(*node, step.view, args);
    }
    bind(node->output(), std::move(out));
    if (step.kernel >= 0) ++kernelCalls_;
    ++inPlaceAssigns_;
    return true;
  }

  // Whether slot's tensor has a device buffer, uploading it (whole, once)
  // when it is dense: a view or a region write on the host would bring
  // the value back, or upload a piece of it in the middle of the run.
  bool residentOnDevice(size_t slot) {
    if (device_->onDevice(slot)) return true;
    const Tensor& t = env_[slot].toTensor();
    if (!p_.pureGraph_ || !t.defined() || !t.isContiguous()) return false;
    device_->forKernel(slot, t);
    return true;
  }

  // The same on the device, for a base that has a device buffer: the
  // region is the forward view of the host's tensor (no data read), src is
  // copied into it there, and the result shares the base's buffer.
  bool assignedOnDevice(const Node* node, const NodeStep& step) {
    const size_t baseSlot = p_.slots_.of(node->input(0)), srcSlot = p_.slots_.of(node->input(1));
    if (!env_[baseSlot].isTensor() || !env_[srcSlot].isTensor() || !residentOnDevice(baseSlot)) return false;
    const IValue base = env_[baseSlot];
    const Tensor& b = base.toTensor();
    const Tensor& src = env_[srcSlot].toTensor();
    if (!b.defined() || !src.defined() || b.sameStorage(src)) return false;
    // This environment's reference and `base`'s.
    if (!p_.pool_.onlyHeldBy(b.storage(), 2) && !writableArgument(b, 1)) return false;
    Tensor region = b;
    if (step.view) {
      IValueList viewArgs{base};
      for (size_t i = 2; i < node->inputs().size(); ++i) viewArgs.push_back(lookup(node->input(i)));
      IValueList r = (*step.view)(*node, viewArgs);
      STITCH_ASSERT(r.size() == 1 && r[0].isTensor() && r[0].toTensor().sameStorage(b), node->kind(),
                    "'s view gave no view of its base");
      region = r[0].toTensor();
    }
    if (!device_->writeRegion(baseSlot, region, srcSlot, src)) return false;
    bind(node->output(), base);
    device_->shareView(p_.slots_.of(node->output()), baseSlot, b);
    ++inPlaceAssigns_;
    return true;
  }

  // An argument's tensor that this environment alone holds, besides the
  // caller (writableArguments) and `extra` references the code asking
  // holds itself.
  bool writableArgument(const Tensor& t, long extra = 0) const {
    for (const WritableArgument& w : writable_)
      if (w.storage == t.storage().get()) return t.storage().use_count() == w.callerReferences + 1 + extra;
    return false;
  }

  // ---- kernels ----

  void callKernel(int index) {
    const Kernel& k = p_.plan_.kernels.kernels.at(index);
    ++kernelCalls_;
    switch (k.kind) {
      case KernelKind::GraphDefined: return callGenerated(k, p_.functions_.at(index));
      case KernelKind::Copy: return callCopy(k);
      case KernelKind::Contraction: return callContraction(k, p_.contractions_.at(index).get());
      case KernelKind::Attention: return callAttention(k);
    }
  }

  // The runtime's routine where it applies; else the interpreter's op,
  // which also raises PyTorch's errors for operands that do not fit.
  void callAttention(const Kernel& k) {
    const Node* node = k.nodes[0];
    if (device_ && attendOnDevice(k)) return;
    // Rows must be contiguous: an operand strided along its last dim is
    // copied first.
    auto rows = [&](const Value* v) {
      const Tensor& t = lookup(v).toTensor();
      return t.dim() > 0 && t.size(t.dim() - 1) > 1 && t.stride(t.dim() - 1) != 1 ? t.contiguous() : t;
    };
    const Tensor q = rows(node->input(0)), keys = rows(node->input(1)), v = rows(node->input(2));
    if (!attentionApplies(q, keys, v)) return runNodesOnHost(k);
    Tensor out = p_.pool_.allocate(attentionOutputShape(q, v), DType::f32);
    {
      KernelClock clock(*this);
      attentionF32(q, keys, v, (float)lookup(node->input(3)).toDouble(), out, p_.threads_);
    }
    bind(node->output(), std::move(out));
  }

  // On the GPU (runtime/device_attention.h): operands and result in device
  // memory, as for a generated kernel. False (nothing done) when the
  // kernels do not take the operands.
  bool attendOnDevice(const Kernel& k) {
    const Node* node = k.nodes[0];
    const std::vector<const Value*> operands = {node->input(0), node->input(1), node->input(2)};
    // The host tensors' sizes, not their data: nothing is read back here.
    auto sized = [&](int i) -> const IValue& { return env_[p_.slots_.of(operands[(size_t)i])]; };
    for (int i = 0; i < 3; ++i)
      if (!sized(i).isTensor()) return false;
    const Tensor &q = sized(0).toTensor(), &keys = sized(1).toTensor(), &v = sized(2).toTensor();
    DeviceAttention a;
    if (!deviceAttentionSizes(q, keys, v, a) || !deviceRunsAttention(a)) return false;
    // Each operand where it lies when the kernel can step through it (a
    // slice of a KV cache), else dense.
    auto place = [&](int i, CudaPointer& ptr, int64_t& batch, int64_t& row) {
      const size_t slot = p_.slots_.of(operands[(size_t)i]);
      const Tensor& t = sized(i).toTensor();
      int64_t b = 0, r = 0;
      if ((ptr = device_->inPlace(slot, t)) && attentionStrides(t, b, r)) {
        batch = b;
        row = r;
      } else {
        ptr = device_->forKernel(slot, t);  // dense: the strides deviceAttentionSizes set
      }
    };
    place(0, a.q, a.qBatch, a.qRow);
    place(1, a.k, a.kBatch, a.kRow);
    place(2, a.v, a.vBatch, a.vRow);
    a.scale = (float)lookup(node->input(3)).toDouble();
    Tensor out = p_.pool_.allocate(attentionOutputShape(q, v), DType::f32);
    a.out = device_->allocate(size_t(out.numel()) * 4);
    {
      KernelClock clock(*this);
      // The dispatch counted one call; a combine is a second launch.
      kernelCalls_ += runAttentionOnDevice(gpuDevice(), a) - 1;
    }
    device_->endCall();
    bind(node->output(), std::move(out));
    const size_t slot = p_.slots_.of(node->output());
    device_->written(slot, a.out, env_[slot].toTensor());
    return true;
  }

  // The backend's kernel when it has one and the operands have their static
  // shapes; else the interpreter's routine (double accumulation for f32).
  void callContraction(const Kernel& k, const ContractionKernel* kernel) {
    if (!kernel) return runNodesOnHost(k);
    if (device_ && contractOnDevice(k, *kernel)) return;
    std::vector<Tensor> operands;
    for (const Value* v : kernel->operands()) {
      const IValue& value = lookup(v);
      if (!value.isTensor() || !matchesStaticType(value.toTensor(), v)) return runNodesOnHost(k);
      operands.push_back(dense(value.toTensor()));
    }
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : operands) ptrs.push_back(&t);
    const Type& type = staticTensorType(k.outputs.at(0));
    Tensor out = p_.pool_.allocate(*type.shape(), *type.dtype());
    {
      KernelClock clock(*this);
      kernel->run(ptrs, out);
    }
    bind(k.outputs.at(0), std::move(out));
  }

  // On the GPU: operands and result in device memory, as for a generated
  // kernel. False (nothing done) when the device cannot run it.
  bool contractOnDevice(const Kernel& k, const ContractionKernel& kernel) {
    if (!deviceRunsContraction(gpuDevice(), kernel.form())) return false;
    std::vector<CudaPointer> operands(kernel.operands().size());
    if (!deviceOperands(kernel.operands(), operands.data())) return false;
    const Type& type = staticTensorType(k.outputs.at(0));
    Tensor out = p_.pool_.allocate(*type.shape(), *type.dtype());
    const CudaPointer result = device_->allocate(size_t(out.numel()) * dtypeSize(out.dtype()));
    {
      KernelClock clock(*this);
      // The dispatch counted one call; an epilogue is a second launch.
      kernelCalls_ += runContractionOnDevice(gpuDevice(), kernel.form(), operands, result) - 1;
    }
    device_->endCall();
    bind(k.outputs.at(0), std::move(out));
    const size_t slot = p_.slots_.of(k.outputs.at(0));
    device_->written(slot, result, env_[slot].toTensor());
    return true;
  }

  // Runs the kernel's nodes one by one as host ops: exactly the
  // interpreter's result, and its errors, for values a kernel cannot take.
  void runNodesOnHost(const Kernel& k) {
    for (const Node* node : k.nodes) {
      if (node->kind() == "prim.constant") continue;  // bound where it stands
      withNodeLocation(*node, [&] { bindOutputs(node, runHostOp(*node, inputValues(node))); });
    }
  }

  // A dense copy of a strided input, on a pooled buffer that goes back to
  // the pool right after the call.
  Tensor dense(const Tensor& t) {
    if (t.isContiguous()) return t;
    Tensor copy = p_.pool_.allocate(t.sizes(), t.dtype());
    copy.copyFrom(t);
    return copy;
  }

  // The argument arrays live in the run and are reused by every call: a
  // loop calls small kernels thousands of times, and each vector (and each
  // copied Tensor's shape) was an allocation per call.
  void callGenerated(const Kernel& k, KernelFunction fn) {
    if (device_) return callOnDevice(k);
    STITCH_ASSERT(fn, "kernel ", k.name, " has no loaded code");
    const size_t nOut = k.outputs.size();
    bufs_.assign(nOut + k.inputs.size(), nullptr);
    denseCopies_.clear();
    for (size_t i = 0; i < k.inputs.size(); ++i) {
      const Value* v = k.inputs[i];
      const IValue& value = lookup(v);
      // A shape the static type did not foresee (data-dependent): the host
      // computes it exactly instead.
      if (!value.isTensor() || !matchesStaticType(value.toTensor(), v)) {
        denseCopies_.clear();
        return runNodesOnHost(k);
      }
      const Tensor& t = value.toTensor();
      if (t.isContiguous()) {
        bufs_[nOut + i] = t.rawData();
      } else {
        denseCopies_.push_back(dense(t));
        bufs_[nOut + i] = denseCopies_.back().rawData();
      }
    }
    setParams(k);
    outputs_.clear();
    bool anyElement = false;
    for (size_t i = 0; i < nOut; ++i) {
      const Type& type = staticTensorType(k.outputs[i]);
      outputs_.push_back(p_.pool_.allocate(*type.shape(), *type.dtype()));
      anyElement |= outputs_.back().numel() > 0;
      bufs_[i] = outputs_.back().rawData();
    }
    if (anyElement) {
      KernelClock clock(*this);
      fn(bufs_.data(), params_.data(), p_.callThreads_[&k - p_.plan_.kernels.kernels.data()]);
    }
    denseCopies_.clear();
    for (size_t i = 0; i < nOut; ++i) bind(k.outputs[i], std::move(outputs_[i]));
    outputs_.clear();
  }

  void setParams(const Kernel& k) {
    params_.resize(k.params.size());
    for (size_t i = 0; i < k.params.size(); ++i) {
      const IValue& value = lookup(k.params[i]);
      if (k.params[i]->type()->kind() == TypeKind::Float)
        params_[i].f = value.toDouble();
      else
        params_[i].i = value.toInt();
    }
  }

  // The device buffers of `values` for a kernel to read, uploaded where the
  // device has none. False (the call's uploads released) when one lacks
  // its static type: the host then runs the kernel's nodes.
  bool deviceOperands(const std::vector<const Value*>& values, CudaPointer* out) {
    for (size_t i = 0; i < values.size(); ++i) {
      const Value* v = values[i];
      const size_t slot = p_.slots_.of(v);
      STITCH_ASSERT(bound_[slot], "value %", v->debugName(), " used before it is defined");
      const IValue& value = env_[slot];  // not find(): a value already on the device stays there
      if (!value.isTensor() || !matchesStaticType(value.toTensor(), v)) {
        device_->endCall();
        return false;
      }
      out[i] = device_->forKernel(slot, value.toTensor());
    }
    return true;
  }

  // A graph-defined kernel on the GPU: operands in device memory
  // (DeviceValues), outputs left there until the host reads them.
  void callOnDevice(const Kernel& k) {
    const size_t nOut = k.outputs.size();
    deviceBufs_.assign(nOut + k.inputs.size(), 0);
    if (!deviceOperands(k.inputs, deviceBufs_.data() + nOut)) return runNodesOnHost(k);
    setParams(k);
    outputs_.clear();
    for (size_t i = 0; i < nOut; ++i) {
      const Type& type = staticTensorType(k.outputs[i]);
      outputs_.push_back(p_.pool_.allocate(*type.shape(), *type.dtype()));
      deviceBufs_[i] = device_->allocate(size_t(outputs_.back().numel()) * dtypeSize(outputs_.back().dtype()));
    }
    {
      KernelClock clock(*this);
      // The dispatch counted one call; a part after the grid is a second launch.
      kernelCalls_ += p_.cuda_->launch(k.name, deviceBufs_.data(), deviceBufs_.size(), params_.data(), params_.size()) - 1;
    }
    device_->endCall();
    for (size_t i = 0; i < nOut; ++i) {
      bind(k.outputs[i], std::move(outputs_[i]));
      const size_t slot = p_.slots_.of(k.outputs[i]);
      device_->written(slot, deviceBufs_[i], env_[slot].toTensor());
    }
    outputs_.clear();
  }

  // A copy kernel's operand: its value, or a list built inside the kernel
  // from values outside it.
  // On the GPU (`onDevice`) the values are taken as they are, nothing read
  // back, and `slots` gets each tensor's slot (a list's elements' too).
  bool copyOperand(const Kernel& k, const Value* v, IValue& out, bool onDevice,
                   std::vector<std::pair<Tensor, size_t>>& slots) const {
    auto value = [&](const Value* x) -> const IValue* {
      if (!onDevice) return find(x);
      const size_t slot = p_.slots_.of(x);
      if (!bound_[slot]) return nullptr;
      if (env_[slot].isTensor()) slots.emplace_back(env_[slot].toTensor(), slot);
      return &env_[slot];
    };
    if (const IValue* found = value(v)) {
      out = *found;
      return true;
    }
    const Node* def = v->node();
    bool inside = std::find(k.nodes.begin(), k.nodes.end(), def) != k.nodes.end();
    if (!inside || def->kind() != "prim.list_construct") return false;
    IValueList elems;
    for (const Value* e : def->inputs()) {
      const IValue* found = value(e);
      if (!found) return false;
      elems.push_back(*found);
    }
    out = IValue::list(std::move(elems));
    return true;
  }

  void callCopy(const Kernel& k) {
    const Node* node = k.nodes.back();
    // In an imperative graph `contiguous` returns its input when that is
    // contiguous, and later writes through either must show in both.
    bool supported = isCopyKernelOp(node->kind()) && node->outputs().size() == 1 &&
                     k.outputs.size() == 1 && k.outputs[0] == node->output() &&
                     (p_.pureGraph_ || node->kind() != "contiguous");
    IValueList args;
    std::vector<std::pair<Tensor, size_t>> slots;
    for (const Value* in : node->inputs()) {
      if (!supported) break;
      args.emplace_back();
      supported = copyOperand(k, in, args.back(), device_ != nullptr, slots);
    }
    if (supported) {
      const Type& type = staticTensorType(node->output());
      Tensor out = p_.pool_.allocate(*type.shape(), *type.dtype());
      if (device_) {
        if (copiedOnDevice(node, args, slots, out)) {
          --kernelCalls_;  // the dispatch counted one call; the pieces count as copies
          return;
        }
        // The host copies: the operands as the host has them.
        args.clear();
        for (const Value* in : node->inputs()) {
          args.emplace_back();
          copyOperand(k, in, args.back(), false, slots);
        }
      }
      bool ran;
      {
        KernelClock clock(*this);
        ran = runCopyKernel(*node, args, out);
      }
      if (ran) {
        bind(node->output(), std::move(out));
        return;
      }
    }
    runNodesOnHost(k);
  }

  // A copy op the host runs (its result's shape unknown to the graph: a
  // stack of a list a loop built) on the GPU as a copy kernel would.
  bool hostCopyOnDevice(const Node* node) {
    IValueList args;
    std::vector<std::pair<Tensor, size_t>> slots;
    for (const Value* in : node->inputs()) {
      const size_t slot = p_.slots_.of(in);
      if (!bound_[slot]) return false;
      args.push_back(env_[slot]);  // nothing read back
      if (env_[slot].isTensor()) slots.emplace_back(env_[slot].toTensor(), slot);
    }
    const auto result = copyKernelResult(*node, args);
    if (!result) return false;
    return copiedOnDevice(node, args, slots, p_.pool_.allocate(result->first, result->second));
  }

  // A copy kernel on the GPU: each piece copied into its place in the
  // output there, read where it lies (its value's buffer, or a list's kept
  // one) or uploaded when the host holds it. False (nothing done) when a
  // piece's dtype is not the output's (the host converts) or it has more
  // dims than a strided copy takes.
  bool copiedOnDevice(const Node* node, const IValueList& args, const std::vector<std::pair<Tensor, size_t>>& slots,
                      const Tensor& out) {
    const std::optional<std::vector<CopyPiece>> pieces = copyKernelPieces(*node, args, out);
    if (!pieces) return false;
    for (const CopyPiece& p : *pieces)
      if (p.from.dtype() != out.dtype() || p.from.dim() != p.to.dim() || p.to.dim() > kDeviceCopyMaxRank)
        return false;
    const CudaPointer result = device_->allocate(size_t(out.numel()) * dtypeSize(out.dtype()));
    // Each piece's source and its strides, and where it goes (elements
    // into the output).
    struct Source {
      CudaPointer src;
      Shape strides;
      int64_t at;
    };
    std::vector<Source> sources;
    for (const CopyPiece& p : *pieces) {
      const Tensor& from = p.from;
      CudaPointer src = device_->listedPlace(from);
      Shape strides = from.strides();
      for (const auto& [t, slot] : slots) {
        if (src || !t.sameStorage(from) || t.rawData() != from.rawData() || t.sizes() != from.sizes()) continue;
        if (!(src = device_->inPlace(slot, from))) {
          src = device_->forKernel(slot, from);
          strides = contiguousStrides(from.sizes());
        }
      }
      if (!src) {  // no device buffer holds it: the host's copy is current
        src = device_->uploadForCall(from);
        strides = contiguousStrides(from.sizes());
      }
      sources.push_back({src, std::move(strides), p.to.offset() - out.offset()});
    }
    // Runs of pieces alike in shape and strides at a fixed distance (a
    // stack's rows) go in one launch.
    const size_t elem = dtypeSize(out.dtype());
    for (size_t i = 0; i < sources.size();) {
      const Tensor& to = (*pieces)[i].to;
      std::vector<CudaPointer> srcs{sources[i].src};
      const int64_t step = i + 1 < sources.size() ? sources[i + 1].at - sources[i].at : 0;
      size_t j = i + 1;
      for (; j < sources.size() && (int64_t)srcs.size() < kDeviceCopyMaxPieces; ++j) {
        const Tensor& next = (*pieces)[j].to;
        if (next.sizes() != to.sizes() || next.strides() != to.strides() ||
            sources[j].strides != sources[i].strides || sources[j].at - sources[j - 1].at != step)
          break;
        srcs.push_back(sources[j].src);
      }
      device_->copyPieces(to, result + CudaPointer(sources[i].at * (int64_t)elem), to.strides(), step, srcs,
                          sources[i].strides);
      i = j;
    }
    device_->endCall();
    const Value* v = node->output();
    bind(v, out);
    device_->written(p_.slots_.of(v), result, out);
    return true;
  }

  CompiledProgram& p_;
  std::vector<IValue> env_;  // per value slot (ValueSlots)
  std::vector<char> bound_;
  int64_t kernelCalls_ = 0;
  // callGenerated's argument arrays, kept between calls.
  std::vector<void*> bufs_;
  std::vector<CudaPointer> deviceBufs_;  // callOnDevice's
  std::unique_ptr<DeviceValues> device_;  // on CUDA: the values' device copies
  std::vector<StitchScalar> params_;
  std::vector<Tensor> outputs_, denseCopies_;
  IValueList hostArgs_;  // callHost's
  std::vector<WritableArgument> writable_;
  std::vector<const IValue*> loopOuter_;
  std::vector<bool> loopWritable_;
  int64_t inPlaceAssigns_ = 0;
  int64_t inPlaceAppends_ = 0;
  bool timeKernels_;
  RunCapture* capture_;
  CapturedOutputs captured_;
  int64_t kernelNs_ = 0;
  int64_t hostIterations_ = 0;
};

IValueList CompiledProgram::run(const IValueList& inputs, RunStats* stats) {
  std::lock_guard<std::mutex> lock(runMutex_);
  if (inputs.size() != graph_.inputs().size()) {
    throw UserError(errorMessage("the program takes ", graph_.inputs().size(), " inputs but ",
                                 inputs.size(), " were given"));
  }
  if (setThreads_) omp_set_num_threads(threads_);
  // Outputs of earlier runs that the caller still holds cannot be reused.
  pool_.releaseEscaped();
  if (graphs_) {
    switch (graphs_->next(inputs)) {
      case RunGraphs::Step::Replay: return replayed(inputs, stats);
      case RunGraphs::Step::Capture:
        if (std::optional<IValueList> out = captured(inputs, stats)) return std::move(*out);
        break;
      case RunGraphs::Step::Eager: break;
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

}  // namespace

std::unique_ptr<Executable> Executable::build(const Graph& graph, const ExecutableOptions& options) {
  return build(graph, planCode(graph, options.pureGraph, options.threads), options);
}

std::unique_ptr<Executable> Executable::build(const Graph& graph, CodePlan plan,
                                              const ExecutableOptions& options) {
  return std::make_unique<CompiledProgram>(graph, std::move(plan), options);
}

}  // namespace stitch
