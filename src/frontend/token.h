// Tokens of the source language, as the lexer produces them.
#pragma once
#include <cstdint>
#include <string>

#include "common/error.h"

namespace stitch {

enum class TokenKind : uint8_t {
  Name,  // identifiers and keywords (the parser tells them apart)
  Int,
  Float,
  String,
  Op,       // operators and punctuation: "+", "**=", "(", "->", "..."
  Newline,  // end of a logical line
  Indent,
  Dedent,
  End,
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;  // the spelling; for String the decoded contents
  int64_t intValue = 0;
  double floatValue = 0.0;
  SourceLoc loc;

  bool isOp(const char* op) const { return kind == TokenKind::Op && text == op; }
  bool isName(const char* name) const { return kind == TokenKind::Name && text == name; }
};

// "NAME 'x'", "INDENT", "'+'" — for tests and messages.
std::string describeToken(const Token& t);

}  // namespace stitch
