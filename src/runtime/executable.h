// An Executable: a pure graph compiled to kernels, ready to run many times.
// It owns the loaded code; each run allocates buffers (reusing them by
// liveness), runs control flow and host ops, calls the kernels and returns
// the graph's outputs (the functional outputs, write-back extras included:
// the caller applies them as for the interpreter, see driver/timed_run.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel_cache.h"
#include "interp/ivalue.h"
#include "ir/graph.h"
#include "runtime/code_plan.h"
#include "ugraph/kernel_graph.h"
#include "uops/uop.h"

namespace stitch {

struct ExecutableOptions {
  int threads = 0;  // 0: OpenMP's default
  // false: the graph is imperative (functionalization refused it; views and
  // in-place ops remain), so no ops are fused and a `contiguous` that may
  // alias its input runs on the host.
  bool pureGraph = true;
  // Graph inputs the caller overwrites with the program's final value of
  // them after each run (functionalization's write-back,
  // passes/functionalize.h). The run may write such an argument where it
  // lies, once nothing reads its original values, instead of copying it
  // first and having the copy written back.
  std::vector<size_t> writtenBackInputs;
  // The plan's source is CUDA (renderCuda): generated kernels run on the
  // GPU (runtime/cuda_kernels.h), everything else on the host; loops stay
  // on the host.
  bool cuda = false;
};

struct RunStats {
  // Set by the caller: time each kernel's own routine (two clock reads per
  // call), so that the host's share of a run can be told apart.
  bool timeKernels = false;

  int64_t kernelCalls = 0;    // kernel launches in the last run
  int64_t hostSyncs = 0;      // waits for the GPU in the last run
  // The kernel launches inside the graph the last run launched (its one
  // kernel call; runtime/run_graphs.h), 0 when it launched none.
  int64_t graphKernels = 0;
  int64_t buffersReused = 0;  // kernel outputs placed on a pooled buffer in the last run
  int64_t inPlaceAssigns = 0; // Assign ops (immut.*_rev) that wrote into their dead base
  int64_t inPlaceAppends = 0; // list.append that grew its dead, unshared list where it lay
  int64_t hostIterations = 0; // loop bodies the host stepped through (not loop kernels)
  double kernelMs = 0;        // with timeKernels: time inside the kernels' routines
};

class Executable {
 public:
  // Plans kernels, linearizes, renders and compiles (or loads from the
  // cache). `graph` must outlive the Executable.
  static std::unique_ptr<Executable> build(const Graph& graph, const ExecutableOptions& options);
  // The same from a plan already made for `graph` (the pipeline's stages).
  static std::unique_ptr<Executable> build(const Graph& graph, CodePlan plan,
                                           const ExecutableOptions& options);
  virtual ~Executable() = default;

  // Not reentrant: concurrent calls on one Executable run one at a time.
  virtual IValueList run(const IValueList& inputs, RunStats* stats = nullptr) = 0;

  virtual const KernelGraph& kernelGraph() const = 0;
  virtual const std::vector<KernelUOps>& kernelUOps() const = 0;
  virtual const std::string& source() const = 0;       // the C (or CUDA) translation unit
  virtual const CompileStats& compileStats() const = 0;
  // False when the program has no graph-defined kernel, so nothing was
  // compiled (compileStats() then says nothing).
  virtual bool loadedCode() const = 0;
  // "cpu", or the GPU's name and architecture: "NVIDIA H200 (sm_90)".
  virtual std::string deviceName() const = 0;
};

}  // namespace stitch
