#include "input_spec.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>

#include "user_error.h"

namespace stitch::cli {

namespace {

std::optional<api::DType> dtypeFromName(const std::string& name) {
  for (api::DType t : {api::DType::b8, api::DType::i32, api::DType::i64, api::DType::f32, api::DType::f64})
    if (name == api::dtypeName(t)) return t;
  return std::nullopt;
}

class SpecParser {
 public:
  explicit SpecParser(const std::string& text) : text_(text) {}

  InputSpec parseWhole() {
    InputSpec spec = parseSpec();
    skipSpaces();
    if (pos_ != text_.size()) fail(joined("unexpected '", text_.substr(pos_), "'"));
    return spec;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw userError("bad input spec '", text_, "': ", why);
  }

  void skipSpaces() {
    while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_])) ++pos_;
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void expect(char c) {
    skipSpaces();
    if (peek() != c) fail(joined("expected '", c, "'"));
    ++pos_;
  }

  InputSpec parseSpec() {
    skipSpaces();
    if (atEnd()) fail("empty spec");
    if (peek() == '[') return parseList();
    std::string word = readWord();
    skipSpaces();
    if (peek() == '[') return parseTensor(word);
    return parseLiteral(word);
  }

  // Letters, digits, sign, '.', exponent: a dtype name or a scalar literal.
  std::string readWord() {
    size_t start = pos_;
    while (!atEnd()) {
      char c = peek();
      if (std::isalnum((unsigned char)c) || c == '.' || c == '-' || c == '+' || c == '_') {
        ++pos_;
        continue;
      }
      break;
    }
    if (start == pos_) fail(joined("unexpected '", peek(), "'"));
    return text_.substr(start, pos_ - start);
  }

  InputSpec parseTensor(const std::string& dtypeName) {
    auto dtype = dtypeFromName(dtypeName);
    if (!dtype)
      fail(joined("unknown dtype '", dtypeName, "' (expected f32, f64, i32, i64 or bool)"));
    InputSpec spec;
    spec.kind = InputSpec::Kind::RandomTensor;
    spec.dtype = *dtype;
    parseBracketed([&] { spec.shape.push_back(parseDim()); });
    return spec;
  }

  // `[item, item, ...]`, possibly empty.
  template <typename ParseItem>
  void parseBracketed(ParseItem parseItem) {
    expect('[');
    skipSpaces();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    while (true) {
      parseItem();
      skipSpaces();
      if (peek() == ']') {
        ++pos_;
        return;
      }
      expect(',');
    }
  }

  int64_t parseDim() {
    skipSpaces();
    size_t start = pos_;
    while (!atEnd() && std::isdigit((unsigned char)peek())) ++pos_;
    if (start == pos_) fail("a dimension must be a non-negative integer");
    std::string digits = text_.substr(start, pos_ - start);
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(digits.c_str(), &end, 10);
    if (errno == ERANGE || v > (1LL << 40)) fail(joined("dimension ", digits, " is too large"));
    return v;
  }

  InputSpec parseLiteral(const std::string& word) {
    if (classifyLiteral(word) == LiteralKind::Invalid)
      fail("expected a tensor spec like f32[2,3], a scalar (2, 0.5, true) or a list [...]");
    InputSpec spec;
    spec.kind = InputSpec::Kind::Literal;
    spec.literal = word;
    return spec;
  }

  InputSpec parseList() {
    InputSpec spec;
    spec.kind = InputSpec::Kind::List;
    parseBracketed([&] { spec.elems.push_back(parseSpec()); });
    return spec;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

bool parsesFully(const std::string& text, bool asInteger) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  if (asInteger)
    (void)std::strtoll(text.c_str(), &end, 10);
  else
    (void)std::strtod(text.c_str(), &end);
  return errno == 0 && end == text.c_str() + text.size();
}

}  // namespace

LiteralKind classifyLiteral(const std::string& text) {
  if (text == "true" || text == "false" || text == "True" || text == "False")
    return LiteralKind::Bool;
  // strtod accepts "inf"/"nan"/hex; we want plain decimal numbers only.
  for (char c : text) {
    bool numeric = std::isdigit((unsigned char)c) || c == '.' || c == '-' || c == '+' ||
                   c == 'e' || c == 'E';
    if (!numeric) return LiteralKind::Invalid;
  }
  if (parsesFully(text, true)) return LiteralKind::Int;
  if (parsesFully(text, false)) return LiteralKind::Float;
  return LiteralKind::Invalid;
}

std::string InputSpec::str() const {
  switch (kind) {
    case Kind::RandomTensor: {
      std::string s = api::dtypeName(dtype);
      s += '[';
      for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(shape[i]);
      }
      return s + ']';
    }
    case Kind::Literal:
      return literal;
    case Kind::List: {
      std::string s = "[";
      for (size_t i = 0; i < elems.size(); ++i) {
        if (i) s += ',';
        s += elems[i].str();
      }
      return s + ']';
    }
  }
  return "";
}

InputSpec parseInputSpec(const std::string& text) { return SpecParser(text).parseWhole(); }

NamedInputSpec parseNamedInputSpec(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw userError("bad --input '", text, "': expected NAME=SPEC, e.g. x=f32[2,3]");
  NamedInputSpec named;
  named.name = text.substr(0, eq);
  if (named.name.empty())
    throw userError("bad --input '", text, "': the name before '=' is empty");
  named.spec = parseInputSpec(text.substr(eq + 1));
  return named;
}

}  // namespace stitch::cli
