#include "passes/functionalize.h"

#include <algorithm>

#include "passes/block_propagation.h"
#include "passes/branch_tails.h"
#include "passes/constant_folding.h"
#include "passes/constant_list_reads.h"
#include "passes/expanded_selects.h"
#include "passes/identity_carries.h"
#include "passes/loop_built_lists.h"
#include "passes/peel_first_iteration.h"
#include "passes/remove_inplace.h"
#include "passes/remove_update.h"
#include "passes/rename.h"
#include "passes/rewrite_mutation.h"
#include "passes/same_dtype_conversion.h"
#include "passes/setitem_values.h"
#include "passes/shape_inference.h"
#include "passes/view_carries.h"

namespace stitch {

// After block propagation every write to a graph input shows as a marker in
// the top block; its final version becomes an extra output (rename resolves
// the returned input to that version).
FunctionalizeResult returnMutatedInputs(Graph& g) {
  FunctionalizeResult result;
  result.originalOutputs = g.outputs().size();
  for (Node* n : *g.top()) {
    if (!n->is("tssa.update")) continue;
    const std::vector<Value*>& inputs = g.inputs();
    auto it = std::find(inputs.begin(), inputs.end(), n->input(1));
    if (it == inputs.end()) continue;
    size_t index = it - inputs.begin();
    auto& written = result.writtenBackInputs;
    if (std::find(written.begin(), written.end(), index) == written.end()) written.push_back(index);
  }
  std::sort(result.writtenBackInputs.begin(), result.writtenBackInputs.end());
  for (size_t index : result.writtenBackInputs) g.addOutput(g.inputs()[index]);
  return result;
}

namespace {

void respecialize(Graph& g) {
  std::vector<TypePtr> types;
  for (const Value* in : g.inputs()) types.push_back(in->type());
  inferShapes(g, types);
}

}  // namespace

FunctionalizeResult functionalize(Graph& graph, const SubPassRunner& runSubPass) {
  auto run = [&](const char* name, auto pass) {
    auto step = [&] { pass(graph); };
    if (runSubPass) runSubPass(name, step);
    else step();
  };
  FunctionalizeResult result;
  run("setitem-values", lowerSetitemValues);
  run("same-dtype-conversion", removeSameDtypeConversions);
  run("constant-folding", foldConstants);
  run("remove-inplace", removeInplace);
  run("identity-carries", removeIdentityCarries);
  // Aliasing made explicit: list reads, views through loops/branches,
  // branches whose output may alias. Types are specialized again where
  // they changed (an element read from a list of mixed shapes, code copied
  // into a branch with more precise types).
  bool changed = false;
  run("loop-built-lists", [&](Graph& g) { changed |= resolveLoopBuiltLists(g); });
  run("constant-list-reads", [&](Graph& g) { changed |= resolveConstantListReads(g); });
  run("view-carries", [&](Graph& g) { changed |= carryViewsAsScalars(g); });
  run("branch-tails", [&](Graph& g) { changed |= duplicateBranchTails(g); });
  run("peel-first-iteration", [&](Graph& g) { changed |= peelFirstIterations(g); });
  run("expanded-selects", [&](Graph& g) { changed |= selectThroughExpands(g); });
  if (changed) run("shape-inference", respecialize);
  run("rewrite-mutation", rewriteMutation);
  run("block-propagation", propagateBlocks);
  run("return-mutated-inputs", [&](Graph& g) { result = returnMutatedInputs(g); });
  run("rename", renameVersions);
  run("remove-update", removeUpdates);
  return result;
}

}  // namespace stitch
