#include "frontend/expression_parser.h"

#include <set>

namespace stitch {

namespace {

const std::set<std::string> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

const std::set<std::string> kAugOps = {
    "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>="};

}  // namespace

bool ExpressionParser::isKeyword(const std::string& s) { return kKeywords.count(s) != 0; }

bool ExpressionParser::isAugOp(const std::string& s) { return kAugOps.count(s) != 0; }

std::shared_ptr<Expr> ExpressionParser::newExpr(ExprKind kind, SourceLoc loc) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->loc = std::move(loc);
  return e;
}

bool ExpressionParser::atExpressionEnd() const {
  if (at(TokenKind::Newline) || at(TokenKind::End)) return true;
  if (at(TokenKind::Op)) {
    const std::string& o = cur().text;
    return o == ")" || o == "]" || o == "}" || o == "=" || o == ":" || o == ";" || isAugOp(o);
  }
  return false;
}

// test (',' test)* [','] -> a Tuple when there is a comma.
ExprPtr ExpressionParser::parseTestList() {
  SourceLoc loc = cur().loc;
  ExprPtr first = parseTest();
  if (!atOp(",")) return first;
  auto t = newExpr(ExprKind::Tuple, loc);
  t->operands.push_back(first);
  while (acceptOp(",")) {
    if (atExpressionEnd()) break;
    t->operands.push_back(parseTest());
  }
  return t;
}

ExprPtr ExpressionParser::parseTest() {
  Nesting level = nestedExpression();
  if (atName("lambda")) fail("lambda is not supported");
  SourceLoc loc = cur().loc;
  ExprPtr body = parseOrTest();
  if (!atName("if")) return body;
  advance();
  ExprPtr cond = parseOrTest();
  if (!acceptName("else")) fail("expected 'else'");
  ExprPtr orelse = parseTest();
  auto e = newExpr(ExprKind::IfExp, loc);
  e->operands = {cond, body, orelse};
  return e;
}

ExprPtr ExpressionParser::binary(ExprKind kind, const std::string& op, SourceLoc loc, ExprPtr l,
                                 ExprPtr r) {
  auto e = newExpr(kind, std::move(loc));
  e->op = op;
  e->operands = {std::move(l), std::move(r)};
  return e;
}

ExprPtr ExpressionParser::parseOrTest() {
  ExprPtr left = parseAndTest();
  while (atName("or")) {
    SourceLoc loc = advance().loc;
    left = binary(ExprKind::BoolOp, "or", loc, left, parseAndTest());
  }
  return left;
}

ExprPtr ExpressionParser::parseAndTest() {
  ExprPtr left = parseNotTest();
  while (atName("and")) {
    SourceLoc loc = advance().loc;
    left = binary(ExprKind::BoolOp, "and", loc, left, parseNotTest());
  }
  return left;
}

ExprPtr ExpressionParser::parseNotTest() {
  if (!atName("not")) return parseComparison();
  Nesting level = nestedExpression();
  SourceLoc loc = advance().loc;
  auto e = newExpr(ExprKind::UnaryOp, loc);
  e->op = "not";
  e->operands = {parseNotTest()};
  return e;
}

// Returns the comparison operator at the cursor (consuming it) or "".
std::string ExpressionParser::acceptCompareOp() {
  static const std::set<std::string> ops = {"<", ">", "==", ">=", "<=", "!="};
  if (at(TokenKind::Op) && ops.count(cur().text)) return advance().text;
  if (atName("in")) {
    advance();
    return "in";
  }
  if (atName("not") && peekTok(1).isName("in")) {
    advance();
    advance();
    return "not in";
  }
  if (atName("is")) {
    advance();
    if (acceptName("not")) return "is not";
    return "is";
  }
  return "";
}

ExprPtr ExpressionParser::parseComparison() {
  SourceLoc loc = cur().loc;
  ExprPtr first = parseBitOr();
  std::shared_ptr<Expr> cmp;
  while (true) {
    SourceLoc opLoc = cur().loc;
    std::string op = acceptCompareOp();
    if (op.empty()) break;
    if (op == "in" || op == "not in") fail("the '" + op + "' operator is not supported", opLoc);
    if (!cmp) {
      cmp = newExpr(ExprKind::Compare, opLoc);
      cmp->operands.push_back(first);
    }
    cmp->ops.push_back(op);
    cmp->operands.push_back(parseBitOr());
  }
  (void)loc;
  if (cmp) return cmp;
  return first;
}

ExprPtr ExpressionParser::parseBinaryLevel(const std::vector<const char*>& ops,
                                           ExprPtr (ExpressionParser::*next)()) {
  ExprPtr left = (this->*next)();
  while (at(TokenKind::Op)) {
    const char* match = nullptr;
    for (const char* o : ops)
      if (cur().text == o) match = o;
    if (!match) break;
    SourceLoc loc = advance().loc;
    left = binary(ExprKind::BinOp, match, loc, left, (this->*next)());
  }
  return left;
}

ExprPtr ExpressionParser::parseTerm() {
  return parseBinaryLevel({"*", "/", "//", "%", "@"}, &ExpressionParser::parseFactor);
}

ExprPtr ExpressionParser::parseFactor() {
  if (atOp("-") || atOp("+") || atOp("~")) {
    Nesting level = nestedExpression();
    const Token& t = advance();
    auto e = newExpr(ExprKind::UnaryOp, t.loc);
    e->op = t.text;
    e->operands = {parseFactor()};
    return e;
  }
  return parsePower();
}

ExprPtr ExpressionParser::parsePower() {
  if (atName("await")) fail("await is not supported");
  ExprPtr base = parseAtomExpr();
  if (!atOp("**")) return base;
  Nesting level = nestedExpression();
  SourceLoc loc = advance().loc;
  return binary(ExprKind::BinOp, "**", loc, base, parseFactor());
}

ExprPtr ExpressionParser::parseAtomExpr() {
  ExprPtr e = parseAtom();
  while (true) {
    if (atOp("(")) {
      e = parseCall(e);
    } else if (atOp("[")) {
      advance();  // '['; the subscript is located at its base, as PyTorch reports it
      auto s = newExpr(ExprKind::Subscript, e->loc);
      s->operands = {e, parseSubscriptList()};
      expectOp("]");
      e = s;
    } else if (atOp(".")) {
      advance();  // '.'
      auto a = newExpr(ExprKind::Attribute, e->loc);
      if (!(at(TokenKind::Name))) fail("expected a name after '.'");
      a->name = advance().text;
      a->operands = {e};
      e = a;
    } else {
      return e;
    }
  }
}

ExprPtr ExpressionParser::parseCall(const ExprPtr& fn) {
  auto call = newExpr(ExprKind::Call, fn->loc);
  advance();  // '('
  call->operands.push_back(fn);
  while (!atOp(")")) {
    if (atOp("*") || atOp("**")) fail("star-args are not supported");
    if (at(TokenKind::Name) && !isKeyword(cur().text) && peekTok(1).isOp("=")) {
      Keyword k;
      k.loc = cur().loc;
      k.name = advance().text;
      advance();  // '='
      for (const Keyword& other : call->keywords)
        if (other.name == k.name) fail("keyword argument repeated: " + k.name, k.loc);
      k.value = parseTest();
      call->keywords.push_back(std::move(k));
    } else {
      if (!call->keywords.empty()) fail("positional argument follows keyword argument");
      call->operands.push_back(parseTest());
      if (atName("for")) fail("generator expressions are not supported");
    }
    if (!acceptOp(",")) break;
  }
  expectOp(")");
  return call;
}

ExprPtr ExpressionParser::parseSubscriptList() {
  SourceLoc loc = cur().loc;
  ExprPtr first = parseSubscriptItem();
  if (!atOp(",")) return first;
  auto t = newExpr(ExprKind::Tuple, loc);
  t->operands.push_back(first);
  while (acceptOp(",")) {
    if (atOp("]")) break;
    t->operands.push_back(parseSubscriptItem());
  }
  return t;
}

ExprPtr ExpressionParser::parseSubscriptItem() {
  SourceLoc loc = cur().loc;
  ExprPtr lower;
  if (!atOp(":")) {
    lower = parseTest();
    if (!atOp(":")) return lower;
  }
  advance();  // ':'
  auto s = newExpr(ExprKind::Slice, loc);
  ExprPtr upper, step;
  if (!atOp("]") && !atOp(",") && !atOp(":")) upper = parseTest();
  if (acceptOp(":")) {
    if (!atOp("]") && !atOp(",")) step = parseTest();
  }
  s->operands = {lower, upper, step};
  return s;
}

ExprPtr ExpressionParser::parseSequenceBody(ExprKind kind, SourceLoc loc, const char* close) {
  auto e = newExpr(kind, std::move(loc));
  bool sawComma = false;
  while (!atOp(close)) {
    e->operands.push_back(parseTest());
    if (atName("for")) fail("comprehensions are not supported");
    if (!acceptOp(",")) break;
    sawComma = true;
  }
  expectOp(close);
  if (kind == ExprKind::Tuple && e->operands.size() == 1 && !sawComma) return e->operands[0];
  return e;
}

ExprPtr ExpressionParser::parseAtom() {
  const Token& t = cur();
  SourceLoc loc = t.loc;
  switch (t.kind) {
    case TokenKind::Int: {
      auto e = newExpr(ExprKind::Int, loc);
      e->intValue = t.intValue;
      advance();
      return e;
    }
    case TokenKind::Float: {
      auto e = newExpr(ExprKind::Float, loc);
      e->floatValue = t.floatValue;
      advance();
      return e;
    }
    case TokenKind::String: {
      auto e = newExpr(ExprKind::Str, loc);
      while (at(TokenKind::String)) e->name += advance().text;
      return e;
    }
    case TokenKind::Name:
      return parseNameAtom();
    case TokenKind::Op:
      break;
    case TokenKind::Newline:
    case TokenKind::Indent:
    case TokenKind::Dedent:
    case TokenKind::End:
      failUnexpected();
  }
  if (t.text == "(") {
    advance();
    return parseSequenceBody(ExprKind::Tuple, loc, ")");
  }
  if (t.text == "[") {
    advance();
    return parseSequenceBody(ExprKind::List, loc, "]");
  }
  if (t.text == "{") fail("dict and set literals are not supported");
  if (t.text == "...") {
    advance();
    return newExpr(ExprKind::Ellipsis, loc);
  }
  if (t.text == "*") fail("star-args are not supported");
  failUnexpected();
}

ExprPtr ExpressionParser::parseNameAtom() {
  const Token& t = cur();
  SourceLoc loc = t.loc;
  const std::string& w = t.text;
  if (w == "None") {
    advance();
    return newExpr(ExprKind::None, loc);
  }
  if (w == "True" || w == "False") {
    auto e = newExpr(ExprKind::Bool, loc);
    e->intValue = w == "True";
    advance();
    return e;
  }
  if (w == "lambda") fail("lambda is not supported");
  if (w == "yield") fail("yield is not supported");
  if (w == "await") fail("await is not supported");
  if (isKeyword(w)) fail("invalid syntax");
  auto e = newExpr(ExprKind::Name, loc);
  e->name = w;
  advance();
  return e;
}
}  // namespace stitch
