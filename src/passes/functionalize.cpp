#include "passes/functionalize.h"

#include <algorithm>

#include "passes/block_propagation.h"
#include "passes/constant_folding.h"
#include "passes/identity_carries.h"
#include "passes/remove_inplace.h"
#include "passes/remove_update.h"
#include "passes/rename.h"
#include "passes/rewrite_mutation.h"
#include "passes/same_dtype_conversion.h"

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

FunctionalizeResult functionalize(Graph& graph, const SubPassRunner& runSubPass) {
  auto run = [&](const char* name, auto pass) {
    auto step = [&] { pass(graph); };
    if (runSubPass) runSubPass(name, step);
    else step();
  };
  FunctionalizeResult result;
  run("same-dtype-conversion", removeSameDtypeConversions);
  run("constant-folding", foldConstants);
  run("remove-inplace", removeInplace);
  run("identity-carries", removeIdentityCarries);
  run("rewrite-mutation", rewriteMutation);
  run("block-propagation", propagateBlocks);
  run("return-mutated-inputs", [&](Graph& g) { result = returnMutatedInputs(g); });
  run("rename", renameVersions);
  run("remove-update", removeUpdates);
  return result;
}

}  // namespace stitch
