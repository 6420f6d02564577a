// Every literal program of the differential suite, specialized on its
// case's inputs, functionalized and simplified, fuses into a plan that keeps
// the group invariants (fusion_test_util.h), and fusion actually merges on
// a good share of them.
#include "../common/differential_corpus.h"
#include "fusion_test_util.h"

namespace stitch::fusion_test {
namespace {

using namespace corpus;

TEST(FusionCorpus, DifferentialProgramsKeepTheGroupInvariants) {
  size_t programs = 0, fused = 0, merged = 0;
  for (const std::filesystem::path& file : caseFiles()) {
    std::string text = readFile(file);
    InputSpecs specs(text);
    for (const SourceCase& c : literalPrograms(file, text)) {
      std::unique_ptr<Graph> g;
      try {
        auto module = SourceModule::parse(c.source, c.file);
        g = module->emit(entryFunction(c, *module));
        std::vector<TypePtr> types;
        for (const Value* in : g->inputs()) {
          TypePtr t = specs.typeOf(c.tail, in->debugName());
          types.push_back(t ? t : in->type());
        }
        inferShapes(*g, types);
        functionalize(*g);
        canonicalize(*g);
        foldConstants(*g);
        eliminateCommonSubexpressions(*g);
        eliminateDeadCode(*g);
      } catch (const UserError&) {
        continue;  // refused programs are the front end's business
      }
      ++programs;
      FusionOptions options = testOptions();
      FusionPlan plan = fuseGraph(*g, options);
      EXPECT_TRUE(planKeepsInvariants(*g, plan, options)) << c.file << ":\n" << c.source << printGraph(*g);
      ++fused;
      for (const FusedGroup& grp : plan.groups) merged += grp.nodes.size() > 1;
    }
  }
  std::cout << programs << " programs, " << merged << " groups of several nodes\n";
  EXPECT_GT(programs, 50u);
  EXPECT_EQ(fused, programs);
  EXPECT_GT(merged, programs / 4) << "groups of more than one node";
}

}  // namespace
}  // namespace stitch::fusion_test
