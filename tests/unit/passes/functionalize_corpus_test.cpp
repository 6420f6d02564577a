// functionalize over every literal program of the differential suite
// (tests/differential/cases_*.py) whose inputs are concrete: each one is
// functionalized and compared bitwise with the imperative graph, like the
// hand-written corpus. A program functionalize refuses (UserError) is
// reported, never silently wrong; one the front end or shape inference
// rejects is skipped.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "functionalize_test_util.h"

namespace stitch::functionalize_test {
namespace {

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct CorpusCase {
  std::string file;
  std::string body;  // from `def` on
  std::string tail;  // the text after the source: inputs, fn=...
};

std::vector<CorpusCase> literalCases(const std::string& file, const std::string& text) {
  std::vector<CorpusCase> out;
  for (size_t pos = 0;;) {
    size_t open = text.find("\"\"\"", pos);
    if (open == std::string::npos) break;
    size_t close = text.find("\"\"\"", open + 3);
    if (close == std::string::npos) break;
    std::string body = text.substr(open + 3, close - open - 3);
    pos = close + 3;
    size_t first = body.find_first_not_of(" \n");
    if (first == std::string::npos || body.compare(first, 4, "def ") != 0) continue;
    size_t tailEnd = text.find("\n    case(", pos);
    out.push_back({file, body, text.substr(pos, tailEnd == std::string::npos ? std::string::npos : tailEnd - pos)});
  }
  return out;
}

// Reads the suite's input spellings: ("f32", [3, 4]), f32(3, 4), NAME bound
// at the top of the file, numbers, booleans, lists of tensors.
class ArgReader {
 public:
  explicit ArgReader(const std::string& fileText) : fileText_(fileText) {}

  std::optional<Arg> argOf(const std::string& tail, const std::string& name) const {
    size_t at = tail.find("\"" + name + "\":");
    if (at == std::string::npos) return std::nullopt;
    std::string rest = tail.substr(at + name.size() + 3);
    rest.erase(0, rest.find_first_not_of(' '));
    return read(rest);
  }

 private:
  std::optional<Arg> read(const std::string& s) const {
    if (s.empty()) return std::nullopt;
    if (s[0] == '(') return tupleSpec(s);
    if (s[0] == '[') return listSpec(s);
    if (s.rfind("True", 0) == 0) return Arg{Arg::BoolArg, DType::b8, {}, 1};
    if (s.rfind("False", 0) == 0) return Arg{Arg::BoolArg, DType::b8, {}, 0};
    if (std::isdigit((unsigned char)s[0]) || s[0] == '-') {
      std::string num = s.substr(0, s.find_first_of(",}) \n]"));
      if (num.find_first_of(".e") == std::string::npos) return I(std::stoll(num));
      return F(std::stod(num));
    }
    size_t end = 0;
    while (end < s.size() && (std::isalnum((unsigned char)s[end]) || s[end] == '_')) ++end;
    std::string word = s.substr(0, end);
    if (auto dt = dtypeFromName(word); dt && end < s.size() && s[end] == '(')
      return T(dims(s.substr(end + 1), ')'), *dt);
    size_t def = fileText_.find("\n" + word + " = ");
    if (def == std::string::npos) return std::nullopt;
    return read(fileText_.substr(def + word.size() + 4));
  }

  std::optional<Arg> tupleSpec(const std::string& s) const {
    size_t q1 = s.find('"'), q2 = s.find('"', q1 + 1), br = s.find('[');
    if (q1 == std::string::npos || q2 == std::string::npos || br == std::string::npos) return std::nullopt;
    auto dt = dtypeFromName(s.substr(q1 + 1, q2 - q1 - 1));
    if (!dt) return std::nullopt;
    return T(dims(s.substr(br + 1), ']'), *dt);
  }

  // [A, B, ...] of tensor specs of one dtype.
  std::optional<Arg> listSpec(const std::string& s) const {
    Arg list{Arg::TensorListArg, DType::f32, {}, 0};
    size_t pos = 1;
    while (pos < s.size() && s[pos] != ']') {
      pos = s.find_first_not_of(" ,\n", pos);
      if (pos == std::string::npos || s[pos] == ']') break;
      std::optional<Arg> elem = read(s.substr(pos));
      if (!elem || elem->kind != Arg::TensorArg) return std::nullopt;
      list.dtype = elem->dtype;
      list.shapes.push_back(elem->shapes[0]);
      pos = skipElement(s, pos);
    }
    if (list.shapes.empty()) return std::nullopt;
    return list;
  }

  static size_t skipElement(const std::string& s, size_t pos) {
    int depth = 0;
    for (; pos < s.size(); ++pos) {
      char c = s[pos];
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') {
        if (depth == 0) return pos;
        --depth;
      }
      if (c == ',' && depth == 0) return pos;
    }
    return pos;
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

std::string functionName(const CorpusCase& c) {
  size_t at = c.tail.find("fn=\"");
  if (at == std::string::npos) return "f";
  return c.tail.substr(at + 4, c.tail.find('"', at + 4) - at - 4);
}

// The program with its arguments, or nullopt when an input is not concrete
// or the front end / shape inference refuse the program.
std::optional<Program> programOf(const CorpusCase& c, const ArgReader& reader) {
  Program p{c.file, c.body, {}, functionName(c)};
  try {
    auto graph = SourceModule::parse("import torch\nfrom typing import List, Tuple, Optional\n" + c.body, c.file)
                     ->emit(p.fn);
    for (const Value* in : graph->inputs()) {
      std::optional<Arg> a = reader.argOf(c.tail, in->debugName());
      if (!a) return std::nullopt;
      p.args.push_back(*a);
    }
    specialize(p);
    return p;
  } catch (const UserError&) {
    return std::nullopt;
  }
}

// Whether the imperative program runs on random inputs (some cases check
// run-time errors; those are the interpreter's business).
bool runsImperatively(const Program& p) {
  try {
    interpret(*specialize(p), randomInputs(p));
    return true;
  } catch (const UserError&) {
    return false;
  } catch (const RuntimeFailure&) {
    return false;
  }
}

TEST(FunctionalizeCorpus, DifferentialSuiteProgramsMatchBitwise) {
  std::filesystem::path dir = std::filesystem::path(STITCH_SOURCE_DIR) / "tests" / "differential";
  size_t checked = 0, refused = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string file = entry.path().filename().string();
    if (entry.path().extension() != ".py" || file.rfind("cases_", 0) != 0) continue;
    std::string text = readFile(entry.path());
    ArgReader reader(text);
    for (const CorpusCase& c : literalCases(file, text)) {
      std::optional<Program> p = programOf(c, reader);
      if (!p || !runsImperatively(*p)) continue;
      SCOPED_TRACE(file + ":\n" + c.body);
      try {
        auto g = specialize(*p);
        functionalize(*g);
      } catch (const UserError& e) {
        ++refused;
        std::cout << "[refused] " << file << ": " << e.what() << "\n";
        continue;
      }
      int failuresBefore = ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count();
      checkProgram(*p, 1, true);
      if (::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count() != failuresBefore)
        std::cout << "[mismatch] " << file << ":\n" << c.body << "\n";
      ++checked;
    }
  }
  std::cout << checked << " programs functionalized and matched, " << refused << " refused\n";
  EXPECT_GT(checked, 50u);
}

}  // namespace
}  // namespace stitch::functionalize_test
