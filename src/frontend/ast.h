// Abstract syntax tree of the Python subset. Nodes are immutable once parsed
// and shared by pointer (the control-flow normalization reuses subtrees).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"

namespace stitch {

struct Expr;
struct Stmt;
using ExprPtr = std::shared_ptr<const Expr>;
using StmtPtr = std::shared_ptr<const Stmt>;
using StmtList = std::vector<StmtPtr>;

enum class ExprKind : uint8_t {
  Name,   // name
  Int,    // intValue
  Float,  // floatValue
  Bool,   // intValue 0/1
  None,
  Str,  // name holds the text
  Ellipsis,
  Attribute,  // operands[0].name
  Subscript,  // operands[0][operands[1]]
  Slice,      // operands: lower, upper, step (null when omitted)
  Tuple,      // operands
  List,       // operands
  Call,       // operands[0](operands[1..]), keywords
  BinOp,      // operands[0] op operands[1]
  UnaryOp,    // op operands[0]  ("-", "+", "~", "not")
  BoolOp,     // operands[0] op operands[1]  ("and", "or")
  Compare,    // operands[0] ops[0] operands[1] ops[1] operands[2] ...
  IfExp,      // operands[1] if operands[0] else operands[2]
};

struct Keyword {
  std::string name;
  ExprPtr value;
  SourceLoc loc;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  std::string name;              // Name id, Attribute attr, Str text
  std::string op;                // BinOp / UnaryOp / BoolOp operator
  std::vector<std::string> ops;  // Compare operators ("<", "==", "is", "is not")
  int64_t intValue = 0;
  double floatValue = 0.0;
  std::vector<ExprPtr> operands;
  std::vector<Keyword> keywords;  // Call only

  const ExprPtr& operand(size_t i) const { return operands.at(i); }
};

enum class StmtKind : uint8_t {
  Assign,     // targets[0] = value
  AugAssign,  // targets[0] op= value
  AnnAssign,  // targets[0]: annotation = value (value may be null)
  Expr,       // value
  Return,     // value (may be null)
  If,         // if test: body else: orelse
  For,        // for targets[0] in value: body
  While,      // while test: body
  Break,
  Continue,
  Pass,
  Assert,  // assert test, value (message, may be null)
  Raise,   // raise value (may be null)
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr test;
  ExprPtr annotation;
  std::string op;  // AugAssign: "+", "-", ...
  StmtList body;
  StmtList orelse;
};

struct Param {
  std::string name;
  ExprPtr annotation;  // null when absent (means Tensor, as in TorchScript)
  ExprPtr defaultValue;
  SourceLoc loc;
};

struct FunctionDef {
  std::string name;
  std::vector<Param> params;
  ExprPtr returns;  // null when absent
  StmtList body;
  SourceLoc loc;
};

struct Module {
  std::string filename;
  std::vector<std::shared_ptr<const FunctionDef>> functions;
  // `import torch.nn.functional as F`: "F" -> "torch.nn.functional".
  std::map<std::string, std::string> moduleAliases;
};

}  // namespace stitch
