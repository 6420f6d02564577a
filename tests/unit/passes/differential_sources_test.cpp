// Every literal program of the differential suite (tests/differential) through
// the front end, shape inference on the case's own inputs, the verifier and
// the IR text form: no internal error, and print -> parse -> print is the
// identity before and after shape inference.
#include <gtest/gtest.h>

#include "../common/differential_corpus.h"
#include "frontend/frontend.h"
#include "ir/ir_parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/shape_inference.h"

namespace stitch {
namespace {

using namespace corpus;

void expectRoundTrip(const Graph& g, const std::string& what) {
  verifyGraph(g);
  std::string text = printGraph(g);
  auto parsed = parseGraph(text);
  verifyGraph(*parsed);
  EXPECT_EQ(printGraph(*parsed), text) << what;
}

TEST(DifferentialSources, EmitSpecializeVerifyRoundTrip) {
  size_t programs = 0, specialized = 0;
  for (const std::filesystem::path& file : caseFiles()) {
    std::string text = readFile(file);
    InputSpecs specs(text);
    for (const SourceCase& c : literalPrograms(file, text)) {
      ++programs;
      std::string where = c.file + ":\n" + c.source;
      try {
        auto module = SourceModule::parse(c.source, c.file);
        auto g = module->emit(entryFunction(c, *module));
        expectRoundTrip(*g, where);
        std::vector<TypePtr> inputs;
        for (const Value* in : g->inputs()) {
          TypePtr t = specs.typeOf(c.tail, in->debugName());
          inputs.push_back(t ? t : in->type());
        }
        inferShapes(*g, inputs);
        expectRoundTrip(*g, where);
        ++specialized;
      } catch (const UserError& e) {
        // Some cases check that a bad program is refused; that is the
        // front end's and the rules' business, not the IR's.
        std::cout << "[user error] " << c.file << ": " << e.formatted() << "\n";
      } catch (const InternalError& e) {
        ADD_FAILURE() << e.what() << "\nin " << where;
      }
    }
  }
  std::cout << specialized << " of " << programs << " programs specialized\n";
  EXPECT_GT(programs, 0u);
  EXPECT_GT(specialized, 0u);
}

}  // namespace
}  // namespace stitch
