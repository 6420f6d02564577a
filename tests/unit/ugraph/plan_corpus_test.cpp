// Every literal program of the differential suite (tests/differential),
// specialized on its case's inputs, functionalized and simplified, is planned
// without an internal error; where inputs can be made up (tensors and
// numbers), every kernel evaluated by the ThreadGraph evaluator must agree
// with the reference interpreter.
#include "../common/differential_corpus.h"
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

using namespace corpus;

// A number or bool given for `name` in the case's inputs.
std::optional<IValue> scalarOf(const std::string& tail, const std::string& name) {
  size_t at = tail.find("\"" + name + "\":");
  if (at == std::string::npos) return std::nullopt;
  std::string rest = tail.substr(at + name.size() + 3);
  rest.erase(0, rest.find_first_not_of(' '));
  if (rest.rfind("True", 0) == 0) return IValue(true);
  if (rest.rfind("False", 0) == 0) return IValue(false);
  std::string num = rest.substr(0, rest.find_first_of(",}) \n"));
  try {
    if (num.find_first_of(".e") == std::string::npos) return IValue((int64_t)std::stoll(num));
    return IValue(std::stod(num));
  } catch (...) {
    return std::nullopt;
  }
}

TEST(PlanCorpus, DifferentialProgramsPlanAndAgree) {
  size_t programs = 0, planned = 0, evaluated = 0, kernels = 0, imperativeCount = 0;
  std::map<std::string, int> hostOps;  // pure ops with static tensor results left to the host
  for (const std::filesystem::path& file : caseFiles()) {
    std::string text = readFile(file);
    InputSpecs specs(text);
    for (const SourceCase& c : literalPrograms(file, text)) {
      ++programs;
      std::string where = c.file + ":\n" + c.source;
      std::unique_ptr<Graph> g;
      std::vector<IValue> inputs;
      bool canRun = true;
      try {
        auto module = SourceModule::parse(c.source, c.file);
        g = module->emit(entryFunction(c, *module));
        std::vector<TypePtr> types;
        for (const Value* in : g->inputs()) {
          TypePtr t = specs.typeOf(c.tail, in->debugName());
          types.push_back(t ? t : in->type());
          if (t && t->isTensor() && t->fullyKnown()) {
            inputs.push_back(IValue(functionalize_test::randomTensor(*t->shape(), *t->dtype())));
          } else if (auto s = scalarOf(c.tail, in->debugName())) {
            inputs.push_back(*s);
          } else {
            canRun = false;
          }
        }
        inferShapes(*g, types);
      } catch (const UserError&) {
        continue;  // refused programs are the front end's business
      }
      // As the driver does: an imperative graph that functionalization
      // refuses is planned one node per kernel.
      PlanOptions options;
      std::unique_ptr<Graph> imperative = g->clone();
      try {
        functionalize(*g);
        canonicalize(*g);
        foldConstants(*g);
        eliminateCommonSubexpressions(*g);
        eliminateDeadCode(*g);
      } catch (const UserError&) {
        g = std::move(imperative);
        options.fuseChains = false;
        ++imperativeCount;
      }
      KernelGraph kg;
      try {
        kg = planKernels(*g, options);
        ++planned;
        kernels += kg.kernels.size();
        printKernelGraph(kg);
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what() << "\nin " << where;
        continue;
      }
      std::function<void(const Block*)> collect = [&](const Block* b) {
        for (const Node* node : *b) {
          for (const Block* sub : node->blocks()) collect(sub);
          bool tensorOut = node->outputs().size() == 1 && node->output()->type()->isTensor() &&
                           node->output()->type()->fullyKnown();
          if (tensorOut && node->schema().isPure() && !kg.inKernel.count(node)) {
            ++hostOps[node->kind()];
            if (std::getenv("STITCH_SHOW_HOST") && node->kind() == std::getenv("STITCH_SHOW_HOST"))
              std::cout << printNode(*node) << (std::getenv("STITCH_SHOW_GRAPH") ? printGraph(*g) : std::string());
          }
        }
      };
      collect(g->top());
      if (!canRun) continue;
      IValueList expected, got;
      try {
        IValueList copy;
        for (const IValue& v : inputs) copy.push_back(functionalize_test::deepCopy(v));
        expected = interpret(*g, copy);
      } catch (const std::exception&) {
        continue;  // fails on these inputs (e.g. division by zero)
      }
      try {
        got = runPlanned(*g, kg, inputs);
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what() << "\nin " << where << "\n" << printGraph(*g) << printKernelGraph(kg);
        continue;
      }
      ++evaluated;
      ASSERT_EQ(expected.size(), got.size());
      for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_TRUE(closeValue(expected[i], got[i], 1e-5)) << "output " << i << " of " << where << "\n"
                                                           << printGraph(*g) << printKernelGraph(kg);
    }
  }
  std::cout << planned << " of " << programs << " programs planned (" << kernels << " kernels), "
            << evaluated << " evaluated, " << imperativeCount << " imperative\n";
  std::cout << "host ops with static results:";
  for (const auto& [kind, count] : hostOps) std::cout << " " << kind << "x" << count;
  std::cout << "\n";
  EXPECT_GT(evaluated, 100u);
}

}  // namespace
}  // namespace stitch::ugraph_test
