#include "frontend/parser.h"

#include <gtest/gtest.h>

#include "frontend_test_util.h"

namespace stitch {
namespace {

const FunctionDef& onlyFunction(const Module& m) {
  EXPECT_EQ(m.functions.size(), 1u);
  return *m.functions.at(0);
}

TEST(Parser, FunctionSignatureWithAnnotationsAndDefaults) {
  Module m = parseModule(
      "import torch\nfrom typing import List, Tuple, Optional\nimport math\n"
      "@torch.jit.script\n"
      "def f(x: torch.Tensor, l: List[int], n: int = 3, s: float = 1e-5) -> Tuple[torch.Tensor, "
      "int]:\n"
      "    return x, n\n",
      "t.py");
  const FunctionDef& fn = onlyFunction(m);
  EXPECT_EQ(fn.name, "f");
  ASSERT_EQ(fn.params.size(), 4u);
  EXPECT_EQ(fn.params[1].name, "l");
  EXPECT_EQ(fn.params[1].annotation->kind, ExprKind::Subscript);
  ASSERT_TRUE(fn.params[2].defaultValue);
  EXPECT_EQ(fn.params[2].defaultValue->intValue, 3);
  EXPECT_DOUBLE_EQ(fn.params[3].defaultValue->floatValue, 1e-5);
  ASSERT_TRUE(fn.returns);
  ASSERT_EQ(fn.body.size(), 1u);
  EXPECT_EQ(fn.body[0]->kind, StmtKind::Return);
  EXPECT_EQ(fn.body[0]->value->kind, ExprKind::Tuple);
}

// Renders an expression back with explicit parentheses to check precedence.
std::string render(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
      return e.name;
    case ExprKind::Int:
      return std::to_string(e.intValue);
    case ExprKind::BinOp:
    case ExprKind::BoolOp:
      return "(" + render(*e.operand(0)) + " " + e.op + " " + render(*e.operand(1)) + ")";
    case ExprKind::UnaryOp:
      return "(" + e.op + " " + render(*e.operand(0)) + ")";
    case ExprKind::Compare: {
      std::string s = "(" + render(*e.operand(0));
      for (size_t i = 0; i < e.ops.size(); ++i)
        s += " " + e.ops[i] + " " + render(*e.operand(i + 1));
      return s + ")";
    }
    case ExprKind::IfExp:
      return "(" + render(*e.operand(1)) + " if " + render(*e.operand(0)) + " else " +
             render(*e.operand(2)) + ")";
    case ExprKind::Attribute:
      return render(*e.operand(0)) + "." + e.name;
    case ExprKind::Call: {
      std::string s = render(*e.operand(0)) + "(";
      for (size_t i = 1; i < e.operands.size(); ++i)
        s += (i > 1 ? ", " : "") + render(*e.operand(i));
      for (const Keyword& k : e.keywords) s += ", " + k.name + "=" + render(*k.value);
      return s + ")";
    }
    case ExprKind::Subscript:
      return render(*e.operand(0)) + "[" + render(*e.operand(1)) + "]";
    case ExprKind::Slice: {
      auto part = [](const ExprPtr& p) { return p ? render(*p) : std::string(); };
      return part(e.operands[0]) + ":" + part(e.operands[1]) + ":" + part(e.operands[2]);
    }
    case ExprKind::Tuple: {
      std::string s = "(";
      for (const ExprPtr& x : e.operands) s += render(*x) + ",";
      return s + ")";
    }
    case ExprKind::Ellipsis:
      return "...";
    case ExprKind::None:
      return "None";
    default:
      return "?";
  }
}

std::string renderExpr(const std::string& expr) {
  Module m = parseModule("def f():\n    return " + expr + "\n", "t.py");
  return render(*onlyFunction(m).body.at(0)->value);
}

TEST(Parser, PythonPrecedence) {
  EXPECT_EQ(renderExpr("a + b * c ** -d ** e"), "(a + (b * (c ** (- (d ** e)))))");
  EXPECT_EQ(renderExpr("-a ** b"), "(- (a ** b))");
  EXPECT_EQ(renderExpr("a @ b + c // d % e"), "((a @ b) + ((c // d) % e))");
  EXPECT_EQ(renderExpr("not a and b or c"), "(((not a) and b) or c)");
  EXPECT_EQ(renderExpr("a | b ^ c & d"), "(a | (b ^ (c & d)))");
  EXPECT_EQ(renderExpr("0 <= i < n"), "(0 <= i < n)");
  EXPECT_EQ(renderExpr("a if c else b + 1"), "(a if c else (b + 1))");
  EXPECT_EQ(renderExpr("x is not None"), "(x is not None)");
  EXPECT_EQ(renderExpr("x.view(2, 3).sum(dim=1)"), "x.view(2, 3).sum(, dim=1)");
  EXPECT_EQ(renderExpr("x[..., 1:, ::2, None]"), "x[(...,1::,::2,None,)]");
  EXPECT_EQ(renderExpr("a - b - c"), "((a - b) - c)");
}

TEST(Parser, StatementsKinds) {
  Module m = parseModule(
      "def f(x, n: int):\n"
      "    a, b = x, x\n"
      "    a += 1\n"
      "    x[0] = a\n"
      "    l: List[int] = []\n"
      "    l.append(1); pass\n"
      "    for i, v in enumerate(l):\n"
      "        continue\n"
      "    while n > 0:\n"
      "        break\n"
      "    if n:\n"
      "        pass\n"
      "    elif n > 1:\n"
      "        pass\n"
      "    else:\n"
      "        pass\n"
      "    assert n > 0, 'positive'\n"
      "    return\n",
      "t.py");
  const FunctionDef& fn = onlyFunction(m);
  std::vector<StmtKind> expected = {StmtKind::Assign,    StmtKind::AugAssign, StmtKind::Assign,
                                    StmtKind::AnnAssign, StmtKind::Expr,      StmtKind::Pass,
                                    StmtKind::For,       StmtKind::While,     StmtKind::If,
                                    StmtKind::Assert,    StmtKind::Return};
  ASSERT_EQ(fn.body.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(fn.body[i]->kind, expected[i]) << i;
  EXPECT_EQ(fn.body[1]->op, "+");
  const Stmt& ifStmt = *fn.body[8];
  ASSERT_EQ(ifStmt.orelse.size(), 1u);
  EXPECT_EQ(ifStmt.orelse[0]->kind, StmtKind::If);  // elif
  EXPECT_EQ(ifStmt.orelse[0]->orelse.size(), 1u);
  EXPECT_FALSE(fn.body[10]->value);
}

void expectParseError(const std::string& src, int line, int col, const std::string& part) {
  try {
    parseModule(src, "t.py");
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, line) << e.formatted();
    EXPECT_EQ(e.loc().col, col) << e.formatted();
    EXPECT_NE(e.message().find(part), std::string::npos) << e.formatted();
    return;
  }
  ADD_FAILURE() << "no error for:\n" << src;
}

TEST(Parser, SyntaxErrorsHaveExactLocations) {
  expectParseError("def f(x)\n    return x\n", 1, 9, "expected ':'");
  expectParseError("def f(x):\n    y = x\n        z = y\n", 3, 9, "unexpected indent");
  expectParseError("def f(x):\nreturn x\n", 2, 1, "expected an indented block");
  expectParseError("def f(x):\n    if x:\n        y = 1\n      return y\n", 4, 7,
                   "unindent does not match any outer indentation level");
  expectParseError("def f(x):\n    y = x +\n", 2, 12, "invalid syntax");
  expectParseError("def f(x):\n    return (x\n", 2, 12, "'(' was never closed");
  expectParseError("def f(x):\n    a = b = x\n", 2, 11, "chained assignment");
  expectParseError("def f(x):\n    f(x) = 1\n", 2, 5, "cannot assign");
  expectParseError("def f(x, y=1, z):\n    pass\n", 1, 15, "non-default argument");
  expectParseError("def f(x):\n    for i range(3):\n        pass\n", 2, 11, "expected 'in'");
  expectParseError("def f(x):\n    return x[1:2:3:4]\n", 2, 19, "expected ']'");
  expectParseError("def f(x):\n    y = f(a=1, 2)\n", 2, 16, "positional argument follows keyword");
  expectParseError("x = 1\n", 1, 1, "global variables are not supported");
  expectParseError("def f(x):\n    else:\n        pass\n", 2, 5, "invalid syntax");
  expectParseError("def f(x):\n    y = (1 if x)\n", 2, 16, "expected 'else'");
}

TEST(Parser, UnsupportedConstructsAreNamed) {
  expectParseError("def f(x):\n    return lambda y: y\n", 2, 12, "lambda is not supported");
  expectParseError("class A:\n    pass\n", 1, 1, "class definitions are not supported");
  expectParseError("def f(x):\n    with x:\n        pass\n", 2, 5,
                   "with statements are not supported");
  expectParseError("def f(x):\n    return [a for a in x]\n", 2, 15,
                   "comprehensions are not supported");
  expectParseError("def f(x):\n    try:\n        pass\n", 2, 5, "try statements are not supported");
  expectParseError("def f(x):\n    global y\n", 2, 5, "global is not supported");
  expectParseError("def f(x):\n    nonlocal y\n", 2, 5, "nonlocal is not supported");
  expectParseError("def f(x):\n    yield x\n", 2, 5, "yield is not supported");
  expectParseError("async def f(x):\n    pass\n", 1, 1, "only imports and function definitions");
  expectParseError("@decorator\ndef f(x):\n    pass\n", 1, 1, "decorators are not supported");
  expectParseError("def f(*args):\n    pass\n", 1, 7, "star-args are not supported");
  expectParseError("def f(x):\n    return g(*x)\n", 2, 14, "star-args are not supported");
  expectParseError("import os\n", 1, 8, "import of module 'os' is not supported");
  expectParseError("def f(x):\n    return {1: x}\n", 2, 12,
                   "dict and set literals are not supported");
  expectParseError("def f(x):\n    return x in [1]\n", 2, 14, "'in' operator is not supported");
  expectParseError("def f(x):\n    def g(y):\n        pass\n", 2, 5, "nested function definitions");
  expectParseError("def f(x):\n    import torch\n", 2, 5, "imports inside a function");
}

}  // namespace
}  // namespace stitch
