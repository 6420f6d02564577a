#include "frontend/lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace stitch {

std::string describeToken(const Token& t) {
  switch (t.kind) {
    case TokenKind::Name:
      return "NAME '" + t.text + "'";
    case TokenKind::Int:
      return "INT " + t.text;
    case TokenKind::Float:
      return "FLOAT " + t.text;
    case TokenKind::String:
      return "STRING \"" + t.text + "\"";
    case TokenKind::Op:
      return "'" + t.text + "'";
    case TokenKind::Newline:
      return "NEWLINE";
    case TokenKind::Indent:
      return "INDENT";
    case TokenKind::Dedent:
      return "DEDENT";
    case TokenKind::End:
      return "EOF";
  }
  return "?";
}

namespace {

// Longest first so that "**=" wins over "**" and "*".
const char* const kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "==", "!=", "<=", ">=",
    "+=",  "-=",  "*=",  "/=",  "%=",  "@=", "&=", "|=", "^=", "<<", ">>", ":=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "=",
};

class Lexer {
 public:
  Lexer(const std::string& src, const std::string& file) : src_(src), file_(file) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    while (pos_ < src_.size()) {
      if (atLineStart_ && depth_ == 0) {
        if (!handleIndentation()) continue;
      }
      lexOne();
    }
    finish();
    return std::move(tokens_);
  }

 private:
  const std::string& src_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t lineStart_ = 0;
  bool atLineStart_ = true;
  bool lineHasTokens_ = false;
  int depth_ = 0;                                 // open brackets
  std::vector<std::pair<char, SourceLoc>> open_;  // where each open bracket is
  std::vector<int> indents_;
  std::vector<Token> tokens_;

  SourceLoc locAt(size_t p) const { return SourceLoc{file_, line_, (int)(p - lineStart_) + 1}; }
  [[noreturn]] void fail(size_t p, const std::string& msg) const { throw UserError(msg, locAt(p)); }

  char peek(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }

  void newLine() {
    ++line_;
    lineStart_ = pos_;
  }

  void push(TokenKind kind, std::string text, size_t start) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.loc = locAt(start);
    tokens_.push_back(std::move(t));
    if (kind != TokenKind::Newline && kind != TokenKind::Indent && kind != TokenKind::Dedent)
      lineHasTokens_ = true;
  }

  // Measures the indentation of a new line. Returns false when the line is
  // blank or a comment (consumed entirely).
  bool handleIndentation() {
    int width = 0;
    size_t p = pos_;
    while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\f')) {
      if (src_[p] == '\t')
        width = (width / 8 + 1) * 8;
      else if (src_[p] == ' ')
        ++width;
      ++p;
    }
    if (p >= src_.size()) {
      pos_ = p;
      return false;
    }
    char c = src_[p];
    if (c == '#' || c == '\n' || c == '\r' || (c == '\\' && isLineEnd(p + 1))) {
      pos_ = p;
      skipRestOfLine();
      return false;
    }
    atLineStart_ = false;
    pos_ = p;
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(TokenKind::Indent, "", p);
      return true;
    }
    while (width < indents_.back()) {
      indents_.pop_back();
      push(TokenKind::Dedent, "", p);
    }
    if (width != indents_.back()) fail(p, "unindent does not match any outer indentation level");
    return true;
  }

  bool isLineEnd(size_t p) const {
    return p >= src_.size() || src_[p] == '\n' || (src_[p] == '\r');
  }

  // Skips a comment or blank rest of line including its newline.
  void skipRestOfLine() {
    while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    if (pos_ < src_.size()) {
      ++pos_;
      newLine();
    }
  }

  void endLogicalLine(size_t at) {
    if (lineHasTokens_) push(TokenKind::Newline, "", at);
    lineHasTokens_ = false;
    atLineStart_ = true;
  }

  void lexOne() {
    char c = peek();
    size_t start = pos_;
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
      ++pos_;
      return;
    }
    if (c == '#') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      return;
    }
    if (c == '\n') {
      ++pos_;
      if (depth_ == 0) endLogicalLine(start);
      newLine();
      return;
    }
    if (c == '\\') {
      size_t p = pos_ + 1;
      while (p < src_.size() && src_[p] == '\r') ++p;
      if (p < src_.size() && src_[p] == '\n') {
        pos_ = p + 1;
        newLine();
        return;
      }
      fail(start, "unexpected character after line continuation character");
    }
    if (std::isdigit((unsigned char)c) || (c == '.' && std::isdigit((unsigned char)peek(1)))) {
      lexNumber();
      return;
    }
    if (std::isalpha((unsigned char)c) || c == '_') {
      lexNameOrPrefixedString();
      return;
    }
    if (c == '"' || c == '\'') {
      lexString(start, start);
      return;
    }
    lexOperator();
  }

  void lexNameOrPrefixedString() {
    size_t start = pos_;
    while (pos_ < src_.size() && (std::isalnum((unsigned char)src_[pos_]) || src_[pos_] == '_'))
      ++pos_;
    std::string word = src_.substr(start, pos_ - start);
    char q = peek();
    if ((q == '"' || q == '\'') && word.size() <= 2) {
      std::string lower;
      for (char ch : word) lower += (char)std::tolower((unsigned char)ch);
      if (lower.find('f') != std::string::npos) fail(start, "f-strings are not supported");
      if (lower == "r" || lower == "b" || lower == "u" || lower == "rb" || lower == "br") {
        lexString(start, pos_);
        return;
      }
    }
    push(TokenKind::Name, word, start);
  }

  void lexString(size_t start, size_t quotePos) {
    bool raw = false;
    for (size_t p = start; p < quotePos; ++p)
      if (src_[p] == 'r' || src_[p] == 'R') raw = true;
    pos_ = quotePos;
    char q = peek();
    bool triple = peek(1) == q && peek(2) == q;
    pos_ += triple ? 3 : 1;
    std::string text;
    int startLine = line_;
    size_t startLineStart = lineStart_;
    while (true) {
      if (pos_ >= src_.size()) {
        throw UserError("unterminated string literal",
                        SourceLoc{file_, startLine, (int)(start - startLineStart) + 1});
      }
      char c = src_[pos_];
      if (c == q && (!triple || (peek(1) == q && peek(2) == q))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (c == '\n') {
        if (!triple)
          throw UserError("unterminated string literal",
                          SourceLoc{file_, startLine, (int)(start - startLineStart) + 1});
        text += c;
        ++pos_;
        newLine();
        continue;
      }
      if (c == '\\' && !raw && pos_ + 1 < src_.size()) {
        char e = src_[pos_ + 1];
        pos_ += 2;
        switch (e) {
          case 'n':
            text += '\n';
            break;
          case 't':
            text += '\t';
            break;
          case 'r':
            text += '\r';
            break;
          case '0':
            text += '\0';
            break;
          case '\\':
            text += '\\';
            break;
          case '\'':
            text += '\'';
            break;
          case '"':
            text += '"';
            break;
          case '\n':
            newLine();
            break;
          default:
            text += '\\';
            text += e;
            break;
        }
        continue;
      }
      text += c;
      ++pos_;
    }
    Token t;
    t.kind = TokenKind::String;
    t.text = std::move(text);
    t.loc = SourceLoc{file_, startLine, (int)(start - startLineStart) + 1};
    tokens_.push_back(std::move(t));
    lineHasTokens_ = true;
  }

  void lexDigits(std::string& out, bool (*isDigit)(char)) {
    size_t start = pos_;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (isDigit(c)) {
        out += c;
        ++pos_;
      } else if (c == '_' && pos_ > start && pos_ + 1 < src_.size() && isDigit(src_[pos_ + 1])) {
        ++pos_;
      } else {
        break;
      }
    }
  }

  static bool isDec(char c) { return std::isdigit((unsigned char)c) != 0; }
  static bool isHex(char c) { return std::isxdigit((unsigned char)c) != 0; }
  static bool isBin(char c) { return c == '0' || c == '1'; }
  static bool isOct(char c) { return c >= '0' && c <= '7'; }

  void lexNumber() {
    size_t start = pos_;
    std::string digits;
    if (peek() == '0' && std::strchr("xXbBoO", peek(1)) && peek(1) != '\0') {
      char base = (char)std::tolower((unsigned char)peek(1));
      pos_ += 2;
      lexDigits(digits, base == 'x' ? isHex : base == 'b' ? isBin : isOct);
      if (digits.empty()) fail(start, "invalid number literal");
      pushInt(start, digits, base == 'x' ? 16 : base == 'b' ? 2 : 8);
      return;
    }
    lexDigits(digits, isDec);
    bool isFloat = false;
    if (peek() == '.' && !(peek(1) == '.' && peek(2) == '.')) {
      isFloat = true;
      digits += '.';
      ++pos_;
      lexDigits(digits, isDec);
    }
    if (peek() == 'e' || peek() == 'E') {
      size_t save = pos_;
      std::string exp = "e";
      ++pos_;
      if (peek() == '+' || peek() == '-') {
        exp += peek();
        ++pos_;
      }
      std::string expDigits;
      lexDigits(expDigits, isDec);
      if (expDigits.empty()) {
        pos_ = save;
      } else {
        isFloat = true;
        digits += exp + expDigits;
      }
    }
    if (peek() == 'j' || peek() == 'J') fail(start, "complex numbers are not supported");
    if (std::isalpha((unsigned char)peek()) || peek() == '_') fail(start, "invalid number literal");
    if (!isFloat) {
      pushInt(start, digits, 10);
      return;
    }
    Token t;
    t.kind = TokenKind::Float;
    t.text = src_.substr(start, pos_ - start);
    t.floatValue = std::strtod(digits.c_str(), nullptr);
    t.loc = locAt(start);
    tokens_.push_back(std::move(t));
    lineHasTokens_ = true;
  }

  void pushInt(size_t start, const std::string& digits, int base) {
    errno = 0;
    unsigned long long v = std::strtoull(digits.c_str(), nullptr, base);
    if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
      fail(start, "integer literal is too large");
    Token t;
    t.kind = TokenKind::Int;
    t.text = src_.substr(start, pos_ - start);
    t.intValue = (int64_t)v;
    t.loc = locAt(start);
    tokens_.push_back(std::move(t));
    lineHasTokens_ = true;
  }

  void lexOperator() {
    size_t start = pos_;
    for (const char* op : kOperators) {
      size_t n = std::strlen(op);
      if (src_.compare(pos_, n, op) != 0) continue;
      pos_ += n;
      std::string text(op);
      if (text == "(" || text == "[" || text == "{") {
        ++depth_;
        open_.emplace_back(text[0], locAt(start));
      }
      if (text == ")" || text == "]" || text == "}") {
        if (depth_ == 0) fail(start, "unmatched '" + text + "'");
        char expected = open_.back().first == '(' ? ')' : open_.back().first == '[' ? ']' : '}';
        if (text[0] != expected)
          fail(start,
               errorMessage("closing parenthesis '", text, "' does not match opening parenthesis '",
                            open_.back().first, "'"));
        --depth_;
        open_.pop_back();
      }
      push(TokenKind::Op, text, start);
      return;
    }
    char c = src_[pos_];
    if (c == '!') fail(start, "invalid syntax");
    if ((unsigned char)c >= 0x80) fail(start, "non-ASCII character in source");
    fail(start, errorMessage("invalid character '", c, "'"));
  }

  void finish() {
    if (depth_ > 0)
      throw UserError(errorMessage("'", open_.back().first, "' was never closed"),
                      open_.back().second);
    endLogicalLine(pos_);
    for (size_t i = 1; i < indents_.size(); ++i) push(TokenKind::Dedent, "", pos_);
    push(TokenKind::End, "", pos_);
  }
};

}  // namespace

std::vector<Token> tokenize(const std::string& source, const std::string& filename) {
  return Lexer(source, filename).run();
}

}  // namespace stitch
