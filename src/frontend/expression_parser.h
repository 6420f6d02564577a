// Token cursor and expression grammar (Python precedence) of the
// recursive-descent parser; the statement grammar (parser.cpp) builds on it.
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/token.h"

namespace stitch {

class ExpressionParser {
 public:
  ExpressionParser(std::vector<Token> tokens, std::string filename)
      : toks_(std::move(tokens)), filename_(std::move(filename)) {}

 protected:
  std::vector<Token> toks_;
  std::string filename_;
  size_t pos_ = 0;

  const Token& cur() const { return toks_[pos_]; }
  const Token& peekTok(size_t ahead) const {
    return toks_[std::min(pos_ + ahead, toks_.size() - 1)];
  }
  bool at(TokenKind k) const { return cur().kind == k; }
  bool atOp(const char* op) const { return cur().isOp(op); }
  bool atName(const char* n) const { return cur().isName(n); }
  static bool isKeyword(const std::string& s);
  static bool isAugOp(const std::string& s);

  const Token& advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  bool acceptOp(const char* op) {
    if (!atOp(op)) return false;
    advance();
    return true;
  }
  bool acceptName(const char* n) {
    if (!atName(n)) return false;
    advance();
    return true;
  }

  [[noreturn]] void fail(const std::string& msg) const { throw UserError(msg, cur().loc); }
  [[noreturn]] void fail(const std::string& msg, const SourceLoc& loc) const {
    throw UserError(msg, loc);
  }
  // Nesting limits. The parser, the emitter and every later walk of the
  // tree recurse once per level, so input nested without bound (a chain of
  // thousands of unary minuses, parentheses or indented blocks) would
  // overflow the stack; CPython refuses such input too (200 nested
  // parentheses, 100 indentation levels).
  static constexpr int kMaxExprNesting = 200;
  static constexpr int kMaxBlockNesting = 100;
  int exprNesting_ = 0;
  int blockNesting_ = 0;
  // Counts one level of recursion for as long as it lives.
  class Nesting {
   public:
    Nesting(int& level, int limit, const SourceLoc& loc, const char* what) : level_(level) {
      if (++level_ > limit) {
        --level_;
        throw UserError(errorMessage(what, " (more than ", limit, " levels)"), loc);
      }
    }
    ~Nesting() { --level_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    int& level_;
  };
  Nesting nestedExpression() {
    return Nesting(exprNesting_, kMaxExprNesting, cur().loc, "expression nested too deeply");
  }

  [[noreturn]] void failUnexpected() const {
    if (at(TokenKind::Indent)) fail("unexpected indent");
    if (at(TokenKind::End)) fail("unexpected end of file");
    fail("invalid syntax");
  }

  void expectOp(const char* op) {
    if (acceptOp(op)) return;
    fail(errorMessage("expected '", op, "'"));
  }
  std::string expectIdentifier() {
    if (at(TokenKind::Name) && !isKeyword(cur().text)) return advance().text;
    fail("expected a name");
  }
  void expectNewline() {
    if (accept(TokenKind::Newline)) return;
    if (at(TokenKind::End)) return;
    failUnexpected();
  }

  static std::shared_ptr<Expr> newExpr(ExprKind kind, SourceLoc loc);

  bool atExpressionEnd() const;
  ExprPtr parseTestList();
  ExprPtr parseTest();
  ExprPtr binary(ExprKind kind, const std::string& op, SourceLoc loc, ExprPtr l, ExprPtr r);
  ExprPtr parseOrTest();
  ExprPtr parseAndTest();
  ExprPtr parseNotTest();
  std::string acceptCompareOp();
  ExprPtr parseComparison();
  ExprPtr parseBinaryLevel(const std::vector<const char*>& ops,
                           ExprPtr (ExpressionParser::*next)());
  ExprPtr parseTerm();
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parseAtomExpr();
  ExprPtr parseCall(const ExprPtr& fn);
  ExprPtr parseSubscriptList();
  ExprPtr parseSubscriptItem();
  ExprPtr parseSequenceBody(ExprKind kind, SourceLoc loc, const char* close);
  ExprPtr parseAtom();
  ExprPtr parseNameAtom();
  ExprPtr parseBitOr() { return parseBinaryLevel({"|"}, &ExpressionParser::parseBitXor); }
  ExprPtr parseBitXor() { return parseBinaryLevel({"^"}, &ExpressionParser::parseBitAnd); }
  ExprPtr parseBitAnd() { return parseBinaryLevel({"&"}, &ExpressionParser::parseShift); }
  ExprPtr parseShift() { return parseBinaryLevel({"<<", ">>"}, &ExpressionParser::parseArith); }
  ExprPtr parseArith() { return parseBinaryLevel({"+", "-"}, &ExpressionParser::parseTerm); }
};

}  // namespace stitch
