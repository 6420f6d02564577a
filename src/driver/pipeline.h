// The spine of the compiler: one call per pass, in order, each handed to the
// PassLogger afterwards (timing, STITCH_DEBUG output, `dump`). Read this
// file's .cpp first to see what happens to a program.
//
// Stages name the points where a user can stop and look (`--stage`):
//   parsed      emit (source -> imperative Graph IR), shape inference
//   functional  + functionalize (its sub-passes one by one)
//   simplified  + list specialization, canonicalization, constant folding, cse,
//               dce, parallel-map marking and unrolling
//   fused       + fuse: groups of ops with their schedules (fusion/fusion.h)
//   ugraph      + plan-kernels: the kernel graph (kernels, block graphs)
//   uops        + linearize: the uops of every graph-defined kernel
//   code        + render-c: the C translation unit of the whole program
// Compiling and loading the C code is the runtime's part
// (runtime/executable.h), so every stage here works without a C compiler.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/c_prelude.h"
#include "driver/graph_stats.h"
#include "driver/pass_logger.h"
#include "frontend/frontend.h"
#include "fusion/fusion_plan.h"
#include "ir/graph.h"
#include "passes/functionalize.h"
#include "passes/specialize_lists.h"
#include "runtime/code_plan.h"

namespace stitch {

enum class Stage { Parsed, Functional, Simplified, Fused, UGraph, UOps, Code };

const char* stageName(Stage stage);
std::optional<Stage> stageFromName(std::string_view name);
// Whether this build implements the stage.
bool stageAvailable(Stage stage);
// "parsed" (the available stages, for messages).
std::string availableStageNames();
// The furthest stage this build implements (what `dump --stage all` runs to).
Stage lastAvailableStage();

struct PipelineOptions {
  Stage last = Stage::Parsed;   // stop after this stage
  bool keepSpecializationInput = false;  // keep the graph as emitted, before shape inference
  bool keepParsed = false;  // keep a copy of the graph after stage parsed
  int threads = 2;  // the schedules are tuned for this many threads (0: all cores)
  RenderTarget target = RenderTarget::C;  // what stage code renders
  CudaDeviceLimits cudaLimits;  // target CUDA: the device rendered for (default: any CUDA GPU)
  // Per parameter: the exact element types of a list input (its length and
  // each element's type; api/argument_types.h's listElementTypes). Stage
  // simplified then rebuilds the list from its elements with a run-time
  // guard (passes/specialize_lists.h), so loops over it can be unrolled.
  // Empty: lists keep their joined element type.
  ListInputTypes listInputs;
};

struct PipelineResult {
  std::unique_ptr<Graph> graph;  // the IR after `last`
  // The emitted graph before shape inference (when kept): a second,
  // independently typed program for cross-checking the specialized one.
  std::unique_ptr<Graph> emitted;
  // The graph after stage parsed (when kept): the imperative program, typed,
  // for the reference interpreter to check a compiled run against.
  std::unique_ptr<Graph> parsed;
  // From stage ugraph on: the kernels planned for `graph`, then their uops
  // (stage uops), then the C source (stage code). Refers to `graph`'s nodes.
  CodePlan code;
  // From stage fused on: the groups the kernels are built from.
  FusionPlan fusion;
  std::map<Stage, OpCounts> opCounts;  // after each stage that ran
  // From stage functional on: the graph returns the final values of the
  // inputs it wrote as extra outputs (see functionalize.h); a runtime copies
  // them back (applyWriteBack in timed_run.h) and hides them.
  FunctionalizeResult writeBack;
  // Why functionalization refused this program ("" when it did not): the
  // functional and simplified stages then hold the imperative graph.
  std::string functionalFallback;
};

// Runs the passes up to options.last on function `fn` of `module`,
// specialized on inputTypes (one per parameter). Throws UserError for bad
// programs and for stages this build lacks.
PipelineResult runPipeline(const SourceModule& module, const std::string& fn,
                           const std::vector<TypePtr>& inputTypes, const PipelineOptions& options,
                           PassLogger& logger);

// What `stitch dump --stage STAGE` prints for a result that reached STAGE:
// the graph IR for the graph stages, the kernel graph, every kernel's uops
// ("kernel NAME" and its uop list) or the C source.
std::string stageText(const PipelineResult& result, Stage stage);

}  // namespace stitch
