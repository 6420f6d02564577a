// Every literal program of the differential suite (tests/differential),
// specialized on its case's inputs, functionalized and simplified, is planned
// without an internal error; where inputs can be made up (tensors and
// numbers), every kernel evaluated by the ThreadGraph evaluator must agree
// with the reference interpreter.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

struct SourceCase {
  std::string file;
  std::string source;
  std::string tail;  // the case's arguments after the source: inputs, fn=...
};

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<SourceCase> literalPrograms(const std::filesystem::path& file, const std::string& text) {
  std::vector<SourceCase> out;
  size_t pos = 0;
  while (true) {
    size_t open = text.find("\"\"\"", pos);
    if (open == std::string::npos) break;
    size_t close = text.find("\"\"\"", open + 3);
    if (close == std::string::npos) break;
    std::string body = text.substr(open + 3, close - open - 3);
    size_t tailEnd = std::min(text.find("case(", close), text.find("expr(", close));
    pos = close + 3;
    size_t first = body.find_first_not_of(" \n");
    if (first == std::string::npos || body.compare(first, 4, "def ") != 0) continue;
    out.push_back({file.filename().string(), "import torch\nfrom typing import List, Tuple, Optional\n" + body,
                   text.substr(pos, tailEnd == std::string::npos ? std::string::npos : tailEnd - pos)});
  }
  return out;
}

// Reads the few spellings of inputs the suite uses: ("f32", [3, 4], ...),
// f32(3, 4), NAME bound at the top of the file, numbers, booleans, lists.
class InputSpecs {
 public:
  explicit InputSpecs(const std::string& fileText) : fileText_(fileText) {}

  TypePtr typeOf(const std::string& tail, const std::string& name) const {
    size_t at = tail.find("\"" + name + "\":");
    if (at == std::string::npos) return nullptr;
    std::string rest = tail.substr(at + name.size() + 3);
    rest.erase(0, rest.find_first_not_of(' '));
    return value(rest);
  }

 private:
  TypePtr value(const std::string& s) const {
    if (s.empty()) return nullptr;
    if (s[0] == '(') return tupleSpec(s);
    if (s[0] == '[') {
      TypePtr elem = value(s.substr(1));
      return elem ? Type::list(Type::tensor(elem->dtype(), std::nullopt)) : nullptr;
    }
    if (s.rfind("True", 0) == 0 || s.rfind("False", 0) == 0) return Type::boolT();
    if (std::isdigit((unsigned char)s[0]) || s[0] == '-') {
      size_t end = s.find_first_of(",}) \n");
      std::string num = s.substr(0, end);
      return num.find_first_of(".e") == std::string::npos ? Type::intT() : Type::floatT();
    }
    size_t end = 0;
    while (end < s.size() && (std::isalnum((unsigned char)s[end]) || s[end] == '_')) ++end;
    std::string word = s.substr(0, end);
    if (auto dt = dtypeFromName(word); dt && end < s.size() && s[end] == '(')
      return Type::tensor(*dt, dims(s.substr(end + 1), ')'));
    size_t def = fileText_.find("\n" + word + " = ");
    if (def == std::string::npos) return nullptr;
    return value(fileText_.substr(def + word.size() + 4));
  }

  TypePtr tupleSpec(const std::string& s) const {
    size_t q1 = s.find('"'), q2 = s.find('"', q1 + 1), br = s.find('[');
    if (q1 == std::string::npos || q2 == std::string::npos || br == std::string::npos) return nullptr;
    auto dt = dtypeFromName(s.substr(q1 + 1, q2 - q1 - 1));
    return dt ? Type::tensor(*dt, dims(s.substr(br + 1), ']')) : nullptr;
  }

  static std::vector<int64_t> dims(const std::string& s, char close) {
    std::vector<int64_t> out;
    std::stringstream in(s.substr(0, s.find(close)));
    std::string item;
    while (std::getline(in, item, ','))
      if (item.find_first_of("0123456789") != std::string::npos) out.push_back(std::stoll(item));
    return out;
  }

  const std::string& fileText_;
};

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
  std::filesystem::path dir = std::filesystem::path(STITCH_SOURCE_DIR) / "tests" / "differential";
  size_t programs = 0, planned = 0, evaluated = 0, kernels = 0, imperativeCount = 0;
  std::map<std::string, int> hostOps;  // pure ops with static tensor results left to the host
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".py" || entry.path().filename().string().rfind("cases_", 0) != 0)
      continue;
    std::string text = readFile(entry.path());
    InputSpecs specs(text);
    for (const SourceCase& c : literalPrograms(entry.path(), text)) {
      ++programs;
      std::string where = c.file + ":\n" + c.source;
      std::unique_ptr<Graph> g;
      std::vector<IValue> inputs;
      bool canRun = true;
      try {
        auto module = SourceModule::parse(c.source, c.file);
        std::string fn;
        size_t fnAt = c.tail.find("fn=\"");
        if (fnAt != std::string::npos) fn = c.tail.substr(fnAt + 4, c.tail.find('"', fnAt + 4) - fnAt - 4);
        for (const FunctionSignature& sig : module->functions())
          if (fn.empty() && sig.name == "f") fn = "f";
        g = module->emit(fn);
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
