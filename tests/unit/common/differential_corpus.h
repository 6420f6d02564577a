// The literal programs of the differential suite (tests/differential/
// cases_*.py) and the input types their cases give, for tests that run every
// program of the suite through a stage of the compiler.
#pragma once
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "ir/type.h"

namespace stitch::corpus {

struct SourceCase {
  std::string file;
  std::string source;
  std::string tail;  // the case's arguments after the source: inputs, fn=...
};

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The suite's case files, cases_*.py.
inline std::vector<std::filesystem::path> caseFiles() {
  std::filesystem::path dir = std::filesystem::path(STITCH_SOURCE_DIR) / "tests" / "differential";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".py" && entry.path().filename().string().rfind("cases_", 0) == 0)
      files.push_back(entry.path());
  return files;
}

// Every triple-quoted program (one starting with `def `) of a case file.
inline std::vector<SourceCase> literalPrograms(const std::filesystem::path& file, const std::string& text) {
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

// The function the case calls: its fn="...", else f when the program has
// one, else empty (SourceModule::emit then takes the last function).
inline std::string entryFunction(const SourceCase& c, const SourceModule& module) {
  size_t at = c.tail.find("fn=\"");
  std::string fn = at == std::string::npos ? "" : c.tail.substr(at + 4, c.tail.find('"', at + 4) - at - 4);
  if (!fn.empty()) return fn;
  for (const FunctionSignature& sig : module.functions())
    if (sig.name == "f") return sig.name;
  return fn;
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

}  // namespace stitch::corpus
