// The Executable that Executable::build makes (runtime/executable.h): the
// loaded kernels of a plan and what its runs share (buffer pool, loop
// kernels, CUDA graphs). Its runs walk the graph in runtime/program_run.h.
#pragma once
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "codegen/c_renderer.h"
#include "interp/interpreter.h"
#include "runtime/buffer_pool.h"
#include "runtime/code_plan.h"
#include "runtime/contraction_kernel.h"
#include "runtime/cuda_kernels.h"
#include "runtime/device_values.h"
#include "runtime/executable.h"
#include "runtime/host_ops.h"
#include "runtime/loop_kernel.h"
#include "runtime/node_steps.h"
#include "runtime/run_graphs.h"
#include "runtime/value_liveness.h"
#include "runtime/writable_arguments.h"

namespace stitch {

inline const Type& staticTensorType(const Value* v) {
  const Type& t = *v->type();
  STITCH_ASSERT(t.isTensor() && t.fullyKnown(), "kernel value %", v->debugName(),
                " has no static tensor type: ", t.str());
  return t;
}

inline bool matchesStaticType(const Tensor& t, const Value* v) {
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
  CompiledProgram(const Graph& graph, CodePlan plan, const ExecutableOptions& options);
  IValueList run(const IValueList& inputs, RunStats* stats) override;

  const KernelGraph& kernelGraph() const override { return plan_.kernels; }
  const std::vector<KernelUOps>& kernelUOps() const override { return plan_.uops; }
  const std::string& source() const override { return plan_.source; }
  const CompileStats& compileStats() const override { return compileStats_; }
  bool loadedCode() const override { return library_ != nullptr || cuda_ != nullptr; }
  std::string deviceName() const override;

 private:
  friend class ProgramRun;

  void loadKernels();
  void setUpContractions();

  // STITCH_CUDA_GRAPHS=0 turns graphs off (every run walks the program).
  static bool graphsWanted();
  std::optional<IValueList> captured(const IValueList& inputs, RunStats* stats);
  IValueList replayed(const IValueList& inputs, RunStats* stats);

  // Each loop kernel's program over the loaded phases.
  void setUpLoopKernels();

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
  std::vector<int64_t> callThreads_;       // per kernel: threads_, or 1 below kMinParallelCost
  // Per kernel: the tensor-operation backend's routine for a Contraction
  // kernel it can run; null otherwise (the interpreter's routine runs it).
  std::vector<std::unique_ptr<ContractionKernel>> contractions_;
  std::unordered_map<const Node*, std::unique_ptr<LoopKernelRunner>> loopKernels_;
  BufferPool pool_;
  std::unique_ptr<RunGraphs> graphs_;  // on CUDA: runs as graphs
  std::mutex runMutex_;
};

}  // namespace stitch
