// Every literal program of the differential suite (tests/differential) through
// the front end, shape inference on the case's own inputs, the verifier and
// the IR text form: no internal error, and print -> parse -> print is the
// identity before and after shape inference.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/frontend.h"
#include "ir/ir_parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/shape_inference.h"

namespace stitch {
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

void expectRoundTrip(const Graph& g, const std::string& what) {
  verifyGraph(g);
  std::string text = printGraph(g);
  auto parsed = parseGraph(text);
  verifyGraph(*parsed);
  EXPECT_EQ(printGraph(*parsed), text) << what;
}

TEST(DifferentialSources, EmitSpecializeVerifyRoundTrip) {
  std::filesystem::path dir = std::filesystem::path(STITCH_SOURCE_DIR) / "tests" / "differential";
  size_t programs = 0, specialized = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".py" || entry.path().filename().string().rfind("cases_", 0) != 0)
      continue;
    std::string text = readFile(entry.path());
    InputSpecs specs(text);
    for (const SourceCase& c : literalPrograms(entry.path(), text)) {
      ++programs;
      std::string where = c.file + ":\n" + c.source;
      try {
        auto module = SourceModule::parse(c.source, c.file);
        std::string fn;
        size_t fnAt = c.tail.find("fn=\"");
        if (fnAt != std::string::npos) fn = c.tail.substr(fnAt + 4, c.tail.find('"', fnAt + 4) - fnAt - 4);
        for (const FunctionSignature& sig : module->functions())
          if (fn.empty() && sig.name == "f") fn = "f";
        auto g = module->emit(fn);
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
