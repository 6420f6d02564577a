#include "driver/pipeline.h"

#include <chrono>

#include "codegen/c_renderer.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/attention_chains.h"
#include "passes/canonicalize.h"
#include "passes/constant_folding.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/functionalize.h"
#include "passes/hoisted_products.h"
#include "passes/parallel_map.h"
#include "passes/shape_inference.h"
#include "passes/specialize_lists.h"
#include "passes/transposed_products.h"
#include "passes/unroll.h"
#include "runtime/code_plan.h"
#include "ugraph/kernel_graph_printer.h"

namespace stitch {

namespace {

const Stage kAllStages[] = {Stage::Parsed, Stage::Functional, Stage::Simplified, Stage::Fused,
                            Stage::UGraph, Stage::UOps,       Stage::Code};

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Runs one pass that rewrites the graph in place, then logs it.
template <typename Pass>
void runPass(const char* name, Graph& graph, PassLogger& logger, Pass pass) {
  auto start = Clock::now();
  pass(graph);
  logger.record(name, graph, millisecondsSince(start));
}

std::unique_ptr<Graph> emitGraph(const SourceModule& module, const std::string& fn,
                                 PassLogger& logger) {
  auto start = Clock::now();
  std::unique_ptr<Graph> graph = module.emit(fn);
  logger.record("emit", *graph, millisecondsSince(start));
  return graph;
}

void functionalStage(PipelineResult& result, PassLogger& logger) {
  Graph& g = *result.graph;
  result.writeBack = functionalize(g, [&](const char* name, const std::function<void()>& step) {
    runPass(name, g, logger, [&](Graph&) { step(); });
  });
}

// Runs one code-generation pass (its result is not a graph) and logs its
// text; the text is printed only when the logger keeps or echoes it.
template <typename Pass, typename Print>
void runCodePass(const char* name, PassLogger& logger, Pass pass, Print print) {
  auto start = Clock::now();
  pass();
  logger.recordText(name, print, millisecondsSince(start));
}

// Shape inference again on a graph already typed once: what a pass made
// more exact (a list's elements, unrolled iterations) reaches every value.
void reinferShapes(Graph& g) {
  std::vector<TypePtr> types;
  for (const Value* in : g.inputs()) types.push_back(in->type());
  inferShapes(g, types);
}

// Canonicalization and folding leave dead nodes and duplicates behind, so
// cse and dce come last.
void simplifyPasses(Graph& g, PassLogger& logger) {
  runPass("canonicalize", g, logger, canonicalize);
  runPass("constant-folding", g, logger, foldConstants);
  runPass("cse", g, logger, eliminateCommonSubexpressions);
  runPass("dce", g, logger, eliminateDeadCode);
}

constexpr int kUnrollRounds = 3;

// List inputs of known length become lists of exactly typed elements first,
// so `len` folds and loops over them get constant trip counts; parallel-map
// loops (independent iterations) with small constant trip counts are then
// unrolled. After either, canonicalize takes elements out of the rebuilt
// lists and shape inference gives what uses them their exact types before
// the simplification runs (again).
void simplifyAndUnroll(Graph& g, const PipelineOptions& options, PassLogger& logger) {
  bool specialized = false;
  if (!options.listInputs.empty()) {
    runPass("specialize-lists", g, logger,
            [&](Graph& g) { specialized = specializeListInputs(g, options.listInputs); });
  }
  if (specialized) {
    runPass("canonicalize", g, logger, canonicalize);
    runPass("shape-inference", g, logger, reinferShapes);
  }
  simplifyPasses(g, logger);
  // An outer loop can become a parallel map once its inner loops are
  // unrolled (their appends then stand in its body), hence the rounds.
  for (int round = 0; round < kUnrollRounds; ++round) {
    runPass("parallel-map", g, logger, markParallelMaps);
    bool unrolled = false;
    runPass("unroll", g, logger, [&](Graph& g) { unrolled = unrollParallelMaps(g); });
    if (!unrolled) return;
    runPass("canonicalize", g, logger, canonicalize);
    runPass("shape-inference", g, logger, reinferShapes);
    simplifyPasses(g, logger);
  }
}

// Then the choices that need the final static shapes: an attention chain
// becomes one node, a product of few rows reads a transposed operand as
// stored, a loop's products of its rows by fixed weights run before it.
void simplifiedStage(Graph& g, const PipelineOptions& options, PassLogger& logger) {
  simplifyAndUnroll(g, options, logger);
  bool rewritten = false;
  runPass("attention-chains", g, logger, [&](Graph& g) { rewritten = formAttentionChains(g); });
  runPass("transposed-products", g, logger, [&](Graph& g) { rewritten |= readTransposedOperandsInPlace(g); });
  runPass("hoisted-products", g, logger, [&](Graph& g) { rewritten |= hoistLoopInvariantProducts(g); });
  if (!rewritten) return;
  runPass("cse", g, logger, eliminateCommonSubexpressions);
  runPass("dce", g, logger, eliminateDeadCode);
}

}  // namespace

const char* stageName(Stage stage) {
  switch (stage) {
    case Stage::Parsed: return "parsed";
    case Stage::Functional: return "functional";
    case Stage::Simplified: return "simplified";
    case Stage::Fused: return "fused";
    case Stage::UGraph: return "ugraph";
    case Stage::UOps: return "uops";
    case Stage::Code: return "code";
  }
  return "";
}

std::optional<Stage> stageFromName(std::string_view name) {
  for (Stage s : kAllStages)
    if (name == stageName(s)) return s;
  return std::nullopt;
}

bool stageAvailable(Stage) { return true; }

std::string availableStageNames() {
  std::string names;
  for (Stage s : kAllStages)
    if (stageAvailable(s)) names += (names.empty() ? "" : ", ") + std::string(stageName(s));
  return names;
}

Stage lastAvailableStage() {
  Stage last = Stage::Parsed;
  for (Stage s : kAllStages)
    if (stageAvailable(s)) last = s;
  return last;
}

PipelineResult runPipeline(const SourceModule& module, const std::string& fn,
                           const std::vector<TypePtr>& inputTypes, const PipelineOptions& options,
                           PassLogger& logger) {
  if (!stageAvailable(options.last))
    throw UserError(errorMessage("stage '", stageName(options.last),
                                 "' is not available yet (available: ", availableStageNames(), ")"));
  PipelineResult result;

  // Stage parsed: the imperative program, typed for these inputs.
  result.graph = emitGraph(module, fn, logger);
  STITCH_ASSERT(result.graph->inputs().size() == inputTypes.size(), "function ", fn, " has ",
                result.graph->inputs().size(), " graph inputs but ", inputTypes.size(),
                " input types were given");
  if (options.keepSpecializationInput) result.emitted = result.graph->clone();
  runPass("shape-inference", *result.graph, logger,
          [&](Graph& g) { inferShapes(g, inputTypes); });
  verifyGraph(*result.graph);
  if (options.keepParsed) result.parsed = result.graph->clone();
  result.opCounts[Stage::Parsed] = countOps(*result.graph);
  if (options.last == Stage::Parsed) return result;

  // Stage functional: functionalize, each sub-pass timed and its IR logged.
  // Functionalization refuses
  // aliasing it cannot follow yet (functionalize.h lists the cases); the
  // program is still valid, so the later stages then keep the imperative
  // graph, which the interpreter runs exactly, and the result says so.
  std::unique_ptr<Graph> imperative = result.graph->clone();
  try {
    functionalStage(result, logger);
  } catch (const UserError& refusal) {
    result.graph = std::move(imperative);
    result.writeBack = FunctionalizeResult{result.graph->outputs().size(), {}};
    result.functionalFallback = refusal.formatted();
  }
  verifyGraph(*result.graph);
  result.opCounts[Stage::Functional] = countOps(*result.graph);
  if (options.last == Stage::Functional) return result;

  // The imperative graph gets only dead-code elimination: values nobody
  // reads must not become kernel outputs (or kernels) there either, while
  // folding and CSE would have to respect its aliasing.
  if (result.functionalFallback.empty())
    simplifiedStage(*result.graph, options, logger);
  else
    runPass("dce", *result.graph, logger, eliminateDeadCode);
  verifyGraph(*result.graph);
  result.opCounts[Stage::Simplified] = countOps(*result.graph);
  if (options.last == Stage::Simplified) return result;

  // Stage fused: groups of ops that become one kernel each, with their
  // schedules. An imperative graph (refused by functionalization) keeps
  // every op in a group of its own, so kernels run where the op stood.
  bool pure = result.functionalFallback.empty();
  // A grid block is a core's task on the host and a CUDA block on a GPU:
  // the schedules are ranked for the parallel units of the target.
  const int parallel = options.target == RenderTarget::Cuda ? kCudaConcurrentBlocks : options.threads;
  runCodePass(
      "fuse", logger, [&] { result.fusion = fuseProgram(*result.graph, pure, parallel); },
      [&] { return printFusionPlan(result.fusion); });
  if (options.last == Stage::Fused) return result;

  // Stage ugraph: a kernel per group over the graph.
  CodePlan& code = result.code;
  runCodePass(
      "plan-kernels", logger, [&] { code.kernels = planProgramKernels(*result.graph, pure, &result.fusion); },
      [&] { return printKernelGraph(code.kernels); });
  if (options.last == Stage::UGraph) return result;

  // Stage uops: each graph-defined kernel's loop nest as linear uops; on
  // a GPU a reduction's lanes are a block's threads.
  code.linearizing.threadLanes = options.target == RenderTarget::Cuda;
  code.linearizing.tilesInOutputs = options.target != RenderTarget::Cuda;
  code.linearizing.flatRows = options.target != RenderTarget::Cuda;
  runCodePass(
      "linearize", logger, [&] { code.uops = linearizeKernels(code.kernels, code.linearizing); },
      [&] { return printKernelUOps(code.uops); });
  if (options.last == Stage::UOps) return result;

  // Stage code: one C (or CUDA) translation unit for the whole program.
  const bool cuda = options.target == RenderTarget::Cuda;
  runCodePass(
      cuda ? "render-cuda" : "render-c", logger,
      [&] {
        code.cudaLimits = options.cudaLimits;
        code.source = cuda ? renderCuda(code.uops, code.cudaLimits) : renderProgramC(code.kernels, code.uops);
      },
      [&] { return code.source; });
  return result;
}

std::string stageText(const PipelineResult& result, Stage stage) {
  switch (stage) {
    case Stage::Parsed:
    case Stage::Functional:
    case Stage::Simplified: return printGraph(*result.graph);
    case Stage::Fused: return printFusionPlan(result.fusion);
    case Stage::UGraph: return printKernelGraph(result.code.kernels);
    case Stage::UOps: return printKernelUOps(result.code.uops);
    case Stage::Code: return result.code.source;
  }
  return "";
}

}  // namespace stitch
