#include "frontend/parser.h"

#include <set>

#include "frontend/expression_parser.h"
#include "frontend/lexer.h"

namespace stitch {

namespace {

const std::set<std::string> kImportableModules = {
    "torch", "torch.nn", "torch.nn.functional", "torch.jit", "math", "typing", "__future__"};

std::shared_ptr<Stmt> newStmt(StmtKind kind, SourceLoc loc) {
  auto s = std::make_shared<Stmt>();
  s->kind = kind;
  s->loc = std::move(loc);
  return s;
}

class Parser : public ExpressionParser {
 public:
  using ExpressionParser::ExpressionParser;

  Module parseFile() {
    Module m;
    m.filename = filename_;
    while (!at(TokenKind::End)) {
      if (accept(TokenKind::Newline)) continue;
      if (at(TokenKind::Indent)) fail("unexpected indent");
      if (cur().isOp("@")) {
        parseDecorator();
        continue;
      }
      if (cur().isName("def")) {
        m.functions.push_back(parseFunctionDef());
        continue;
      }
      if (cur().isName("import") || cur().isName("from")) {
        parseImport(m);
        continue;
      }
      if (cur().isName("class")) fail("class definitions are not supported");
      if (cur().kind == TokenKind::String) {  // module docstring
        parseSimpleStatements();
        continue;
      }
      if (cur().kind == TokenKind::Name && !isKeyword(cur().text) && peekTok(1).isOp("=")) {
        fail("global variables are not supported");
      }
      fail("only imports and function definitions are supported at the top level of a file");
    }
    return m;
  }

 private:
  // ---- top level ----

  void parseDecorator() {
    SourceLoc loc = cur().loc;
    advance();  // '@'
    std::string dotted = expectIdentifier();
    while (acceptOp(".")) dotted += "." + expectIdentifier();
    if (dotted != "torch.jit.script") fail("decorators are not supported", loc);
    expectNewline();
    if (!atName("def")) fail("expected a function definition after a decorator");
  }

  // `import torch`, `import torch.nn.functional as F`, `from typing import List`.
  void parseImport(Module& m) {
    if (acceptName("import")) {
      do {
        SourceLoc modLoc = cur().loc;
        std::string mod = expectIdentifier();
        while (acceptOp(".")) mod += "." + expectIdentifier();
        if (kImportableModules.count(mod) == 0)
          fail("import of module '" + mod + "' is not supported", modLoc);
        if (acceptName("as")) m.moduleAliases[expectIdentifier()] = mod;
      } while (acceptOp(","));
      expectNewline();
      return;
    }
    advance();  // from
    SourceLoc modLoc = cur().loc;
    std::string mod = expectIdentifier();
    while (acceptOp(".")) mod += "." + expectIdentifier();
    if (kImportableModules.count(mod) == 0)
      fail("import of module '" + mod + "' is not supported", modLoc);
    if (!acceptName("import")) fail("expected 'import'");
    bool paren = acceptOp("(");
    do {
      if (paren && atOp(")")) break;
      if (atOp("*")) fail("'import *' is not supported");
      std::string name = expectIdentifier();
      std::string full = mod + "." + name;
      if (acceptName("as")) name = expectIdentifier();
      if (kImportableModules.count(full)) m.moduleAliases[name] = full;
    } while (acceptOp(","));
    if (paren) expectOp(")");
    expectNewline();
  }

  std::shared_ptr<const FunctionDef> parseFunctionDef() {
    auto fn = std::make_shared<FunctionDef>();
    fn->loc = cur().loc;
    advance();  // def
    fn->name = expectIdentifier();
    expectOp("(");
    while (!atOp(")")) {
      if (atOp("*") || atOp("**")) fail("star-args are not supported");
      if (atOp("/")) fail("positional-only parameters are not supported");
      Param p;
      p.loc = cur().loc;
      p.name = expectIdentifier();
      for (const Param& q : fn->params)
        if (q.name == p.name)
          fail("duplicate argument '" + p.name + "' in function definition", p.loc);
      if (acceptOp(":")) p.annotation = parseTest();
      if (acceptOp("="))
        p.defaultValue = parseTest();
      else if (!fn->params.empty() && fn->params.back().defaultValue)
        fail("non-default argument follows default argument", p.loc);
      fn->params.push_back(std::move(p));
      if (!acceptOp(",")) break;
    }
    expectOp(")");
    if (acceptOp("->")) fn->returns = parseTest();
    expectOp(":");
    fn->body = parseSuite();
    for (const Param& p : fn->params) {
      checkExpressionDepth(p.annotation);
      checkExpressionDepth(p.defaultValue);
    }
    checkExpressionDepth(fn->returns);
    checkExpressionDepth(fn->body);
    return fn;
  }

  // Left-associative chains (`a + b + ...`, `x[0][0]...`, calls on calls)
  // are built by loops, not recursion, yet each link is a level of the
  // tree: measured here, without recursing per level.
  void checkExpressionDepth(const StmtList& body) {
    for (const StmtPtr& s : body) {
      for (const ExprPtr& e : {s->value, s->test, s->annotation}) checkExpressionDepth(e);
      for (const ExprPtr& e : s->targets) checkExpressionDepth(e);
      checkExpressionDepth(s->body);
      checkExpressionDepth(s->orelse);
    }
  }

  void checkExpressionDepth(const ExprPtr& root) {
    std::vector<std::pair<const Expr*, int>> stack;
    if (root) stack.emplace_back(root.get(), 1);
    while (!stack.empty()) {
      auto [e, depth] = stack.back();
      stack.pop_back();
      if (depth > kMaxExprNesting)
        fail(errorMessage("expression nested too deeply (more than ", kMaxExprNesting, " levels)"), e->loc);
      for (const ExprPtr& o : e->operands)
        if (o) stack.emplace_back(o.get(), depth + 1);
      for (const Keyword& k : e->keywords)
        if (k.value) stack.emplace_back(k.value.get(), depth + 1);
    }
  }

  // ---- statements ----

  StmtList parseSuite() {
    if (!accept(TokenKind::Newline)) return parseSimpleStatements();
    Nesting level(blockNesting_, kMaxBlockNesting, cur().loc, "too many levels of indentation");
    if (!accept(TokenKind::Indent)) fail("expected an indented block");
    StmtList body;
    while (!accept(TokenKind::Dedent)) {
      if (at(TokenKind::End)) break;
      StmtList more = parseStatement();
      body.insert(body.end(), more.begin(), more.end());
    }
    return body;
  }

  StmtList parseStatement() {
    if (at(TokenKind::Indent)) fail("unexpected indent");
    const Token& t = cur();
    if (t.kind == TokenKind::Name) {
      const std::string& w = t.text;
      if (w == "if") return {parseIf()};
      if (w == "for") return {parseFor()};
      if (w == "while") return {parseWhile()};
      if (w == "def") fail("nested function definitions are not supported");
      if (w == "class") fail("class definitions are not supported");
      if (w == "with") fail("with statements are not supported");
      if (w == "try") fail("try statements are not supported");
      if (w == "async") fail("async is not supported");
      if (w == "else" || w == "elif") fail("invalid syntax");
    }
    if (t.isOp("@")) fail("decorators are not supported");
    return parseSimpleStatements();
  }

  StmtList parseSimpleStatements() {
    StmtList out;
    out.push_back(parseSmallStatement());
    while (acceptOp(";")) {
      if (at(TokenKind::Newline) || at(TokenKind::End)) break;
      out.push_back(parseSmallStatement());
    }
    expectNewline();
    return out;
  }

  StmtPtr parseSmallStatement() {
    const Token& t = cur();
    SourceLoc loc = t.loc;
    if (t.kind == TokenKind::Name) {
      const std::string& w = t.text;
      if (w == "pass") {
        advance();
        return newStmt(StmtKind::Pass, loc);
      }
      if (w == "break") {
        advance();
        return newStmt(StmtKind::Break, loc);
      }
      if (w == "continue") {
        advance();
        return newStmt(StmtKind::Continue, loc);
      }
      if (w == "return") {
        advance();
        auto s = newStmt(StmtKind::Return, loc);
        if (!at(TokenKind::Newline) && !at(TokenKind::End) && !atOp(";"))
          s->value = parseTestList();
        return s;
      }
      if (w == "assert") {
        advance();
        auto s = newStmt(StmtKind::Assert, loc);
        s->test = parseTest();
        if (acceptOp(",")) s->value = parseTest();
        return s;
      }
      if (w == "import" || w == "from") fail("imports inside a function are not supported");
      if (w == "global") fail("global is not supported");
      if (w == "nonlocal") fail("nonlocal is not supported");
      if (w == "del") fail("del is not supported");
      if (w == "raise") {
        advance();
        auto s = newStmt(StmtKind::Raise, loc);
        if (!at(TokenKind::Newline) && !at(TokenKind::End) && !atOp(";")) s->value = parseTest();
        if (atName("from")) fail("raise ... from is not supported");
        return s;
      }
      if (w == "yield") fail("yield is not supported");
    }
    return parseExpressionStatement();
  }

  StmtPtr parseExpressionStatement() {
    SourceLoc loc = cur().loc;
    ExprPtr first = parseTestList();
    if (atOp("=")) {
      advance();
      checkAssignable(first);
      auto s = newStmt(StmtKind::Assign, loc);
      s->targets.push_back(first);
      if (atName("yield")) fail("yield is not supported");
      s->value = parseTestList();
      if (atOp("=")) fail("chained assignment is not supported");
      return s;
    }
    if (at(TokenKind::Op) && isAugOp(cur().text)) {
      std::string op = cur().text;
      SourceLoc opLoc = cur().loc;
      advance();
      if (first->kind != ExprKind::Name && first->kind != ExprKind::Subscript &&
          first->kind != ExprKind::Attribute)
        fail("illegal expression for augmented assignment", first->loc);
      auto s = newStmt(StmtKind::AugAssign, opLoc);
      s->targets.push_back(first);
      s->op = op.substr(0, op.size() - 1);
      s->value = parseTestList();
      return s;
    }
    if (atOp(":")) {
      advance();
      if (first->kind != ExprKind::Name)
        fail("annotated assignment is only supported for plain names", first->loc);
      auto s = newStmt(StmtKind::AnnAssign, loc);
      s->targets.push_back(first);
      s->annotation = parseTest();
      if (acceptOp("=")) s->value = parseTestList();
      return s;
    }
    if (atOp(":=")) fail("assignment expressions are not supported");
    auto s = newStmt(StmtKind::Expr, loc);
    s->value = first;
    return s;
  }

  void checkAssignable(const ExprPtr& e) const {
    switch (e->kind) {
      case ExprKind::Name:
      case ExprKind::Subscript:
      case ExprKind::Attribute:
        return;
      case ExprKind::Tuple:
      case ExprKind::List:
        for (const ExprPtr& x : e->operands) checkAssignable(x);
        return;
      default:
        fail("cannot assign to this expression", e->loc);
    }
  }

  StmtPtr parseIf() {
    auto s = newStmt(StmtKind::If, cur().loc);
    advance();  // if / elif
    s->test = parseTest();
    expectOp(":");
    s->body = parseSuite();
    if (atName("elif")) {
      s->orelse.push_back(parseIf());
    } else if (acceptName("else")) {
      expectOp(":");
      s->orelse = parseSuite();
    }
    return s;
  }

  StmtPtr parseFor() {
    auto s = newStmt(StmtKind::For, cur().loc);
    advance();
    s->targets.push_back(parseTargetList());
    if (!acceptName("in")) fail("expected 'in'");
    s->value = parseTestList();
    expectOp(":");
    s->body = parseSuite();
    if (atName("else")) fail("else on loops is not supported");
    return s;
  }

  ExprPtr parseTargetList() {
    SourceLoc loc = cur().loc;
    std::vector<ExprPtr> elts;
    bool trailingComma = false;
    do {
      if (atName("in")) {
        trailingComma = true;
        break;
      }
      elts.push_back(parseBitOr());
      checkAssignable(elts.back());
    } while (acceptOp(","));
    if (elts.size() == 1 && !trailingComma) return elts[0];
    auto t = newExpr(ExprKind::Tuple, loc);
    t->operands = std::move(elts);
    return t;
  }

  StmtPtr parseWhile() {
    auto s = newStmt(StmtKind::While, cur().loc);
    advance();
    s->test = parseTest();
    expectOp(":");
    s->body = parseSuite();
    if (atName("else")) fail("else on loops is not supported");
    return s;
  }
};

}  // namespace

Module parseModule(const std::string& source, const std::string& filename) {
  return Parser(tokenize(source, filename), filename).parseFile();
}

}  // namespace stitch
