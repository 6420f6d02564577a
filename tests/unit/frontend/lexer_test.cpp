#include "frontend/lexer.h"

#include <gtest/gtest.h>

namespace stitch {
namespace {

std::vector<std::string> kinds(const std::string& src) {
  std::vector<std::string> out;
  for (const Token& t : tokenize(src, "t.py")) out.push_back(describeToken(t));
  return out;
}

TEST(Lexer, IndentAndDedentFollowBlocks) {
  std::string src =
      "def f(x):\n"
      "    if x:\n"
      "        y = 1\n"
      "\n"
      "    # comment only\n"
      "    return y\n";
  std::vector<std::string> expected = {
      "NAME 'def'",    "NAME 'f'", "'('",       "NAME 'x'", "')'",     "':'",
      "NEWLINE",       "INDENT",   "NAME 'if'", "NAME 'x'", "':'",     "NEWLINE",
      "INDENT",        "NAME 'y'", "'='",       "INT 1",    "NEWLINE", "DEDENT",
      "NAME 'return'", "NAME 'y'", "NEWLINE",   "DEDENT",   "EOF"};
  EXPECT_EQ(kinds(src), expected);
}

TEST(Lexer, NewlinesInsideBracketsAndAfterBackslashJoinLines) {
  std::vector<std::string> expected = {"NAME 'a'", "'='", "'('",   "INT 1",   "','", "INT 2",
                                       "')'",      "'+'", "INT 3", "NEWLINE", "EOF"};
  EXPECT_EQ(kinds("a = (1,\n        2) \\\n  + 3\n"), expected);
}

TEST(Lexer, NumberLiterals) {
  auto toks = tokenize("1_000 1e-5 2.5 .5 3. 0x1f 7", "t.py");
  ASSERT_EQ(toks.size(), 9u);
  EXPECT_EQ(toks[0].kind, TokenKind::Int);
  EXPECT_EQ(toks[0].intValue, 1000);
  EXPECT_EQ(toks[1].kind, TokenKind::Float);
  EXPECT_DOUBLE_EQ(toks[1].floatValue, 1e-5);
  EXPECT_DOUBLE_EQ(toks[2].floatValue, 2.5);
  EXPECT_DOUBLE_EQ(toks[3].floatValue, 0.5);
  EXPECT_EQ(toks[4].kind, TokenKind::Float);
  EXPECT_DOUBLE_EQ(toks[4].floatValue, 3.0);
  EXPECT_EQ(toks[5].intValue, 31);
  EXPECT_EQ(toks[6].intValue, 7);
}

TEST(Lexer, OperatorsTakeTheLongestMatch) {
  std::vector<std::string> expected = {"'**='", "'**'", "'//='", "'//'", "'@'", "'@='",    "'->'",
                                       "'...'", "'<='", "'!='",  "'>>'", "'.'", "NEWLINE", "EOF"};
  EXPECT_EQ(kinds("**= ** //= // @ @= -> ... <= != >> ."), expected);
}

TEST(Lexer, StringsDecodeEscapesAndTripleQuotes) {
  auto toks = tokenize("'a\\tb' \"\"\"x\ny\"\"\" r'\\n'", "t.py");
  ASSERT_GE(toks.size(), 3u);
  EXPECT_EQ(toks[0].text, "a\tb");
  EXPECT_EQ(toks[1].text, "x\ny");
  EXPECT_EQ(toks[2].text, "\\n");
}

TEST(Lexer, TokensCarryFileLineAndColumn) {
  auto toks = tokenize("x = 1\nif  yy:\n    z\n", "prog.py");
  EXPECT_EQ(toks[0].loc.str(), "prog.py:1:1");
  EXPECT_EQ(toks[2].loc.str(), "prog.py:1:5");
  EXPECT_EQ(toks[4].loc.str(), "prog.py:2:1");
  EXPECT_EQ(toks[5].loc.str(), "prog.py:2:5");
  EXPECT_EQ(toks[9].loc.str(), "prog.py:3:5");  // after NEWLINE, INDENT
}

void expectLexError(const std::string& src, int line, int col, const std::string& part) {
  try {
    tokenize(src, "t.py");
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, line) << e.formatted();
    EXPECT_EQ(e.loc().col, col) << e.formatted();
    EXPECT_NE(e.message().find(part), std::string::npos) << e.formatted();
    return;
  }
  ADD_FAILURE() << "no error for " << src;
}

TEST(Lexer, ErrorsPointAtTheOffendingCharacter) {
  expectLexError("if x:\n        a\n    b\n", 3, 5, "unindent does not match");
  expectLexError("x = 'abc\n", 1, 5, "unterminated string");
  expectLexError("x = (1,\n 2\n", 1, 5, "'(' was never closed");
  expectLexError("x = 1 $ 2\n", 1, 7, "invalid character");
  expectLexError("x = (1]\n", 1, 7, "does not match");
  expectLexError("x = 3j\n", 1, 5, "complex numbers");
  expectLexError("x = f'{y}'\n", 1, 5, "f-strings are not supported");
  expectLexError("x = 99999999999999999999\n", 1, 5, "too large");
}

}  // namespace
}  // namespace stitch
