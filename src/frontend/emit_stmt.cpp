// Statements: assignments, if, return, assert, expression statements.
#include "frontend/emitter.h"
#include "frontend/exit_normalization.h"

namespace stitch {

const std::map<std::string, std::string>& inPlaceOps() {
  static const std::map<std::string, std::string> ops = {
      {"+", "add_"},           {"-", "sub_"},        {"*", "mul_"},
      {"/", "div_"},           {"**", "pow_"},       {"//", "floor_divide_"},
      {"%", "remainder_"},     {"&", "bitwise_and_"}, {"|", "bitwise_or_"},
      {"^", "bitwise_xor_"}};
  return ops;
}

void Emitter::emitBody(const StmtList& body) {
  for (const StmtPtr& s : body) {
    emitStmt(*s);
    if (frame_->returned) return;
  }
}

void Emitter::emitStmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Assign:
      return emitAssign(s);
    case StmtKind::AugAssign:
      return emitAugAssign(s);
    case StmtKind::AnnAssign:
      return emitAnnAssign(s);
    case StmtKind::Expr:
      return emitExprStmt(s);
    case StmtKind::Return:
      return emitReturn(s);
    case StmtKind::If:
      return emitIf(s);
    case StmtKind::For:
      return emitFor(s);
    case StmtKind::While:
      return emitWhile(s);
    case StmtKind::Break:
      if (fn_->loopDepth == 0) throw UserError("'break' outside loop", s.loc);
      if (breakFlags_.empty() || breakFlags_.back().empty())
        throw UserError("break is not supported in a loop over a tuple", s.loc);
      setVarInFrame(frame_, breakFlags_.back(), constant(Constant(true), s.loc));
      return;
    case StmtKind::Continue:
      // Normalization moved everything after it elsewhere: nothing to do.
      if (fn_->loopDepth == 0) throw UserError("'continue' not properly in loop", s.loc);
      return;
    case StmtKind::Pass:
      return;
    case StmtKind::Assert:
      return emitAssert(s);
    case StmtKind::Raise:
      return emitRaise(s);
  }
}

void Emitter::assignName(const std::string& name, Value* v, const Expr* source,
                         const SourceLoc& loc) {
  for (const Param& p : fn_->def->params)
    if (p.name == name) fn_->reassignedParams.insert(name);
  bool aliasOfList =
      source && source->kind == ExprKind::Name && v->type()->kind() == TypeKind::List;
  if (aliasOfList)
    noteListAlias(name, source->name);
  else
    leaveAliasGroup(name);
  assignVar(name, v, loc);
}

void Emitter::bindTarget(const Expr& target, Value* v, const SourceLoc& loc) {
  switch (target.kind) {
    case ExprKind::Name:
      return assignName(target.name, v, nullptr, loc);
    case ExprKind::Subscript:
      return emitSubscriptAssign(target, v, target.loc);
    case ExprKind::Tuple:
    case ExprKind::List: {
      size_t n = target.operands.size();
      std::vector<Value*> parts;
      switch (v->type()->kind()) {
        case TypeKind::Tuple:
          if (v->type()->elems().size() != n)
            throw UserError(errorMessage("cannot unpack a tuple of ", v->type()->elems().size(),
                                         " values into ", n, " targets"),
                            loc);
          parts = unpackTuple(v, loc);
          break;
        case TypeKind::List:
          parts = unpackList(v, n, loc);
          break;
        default:
          throw UserError("cannot unpack a value of type " + typeName(v->type()), loc);
      }
      for (size_t i = 0; i < n; ++i) bindTarget(*target.operands[i], parts[i], loc);
      return;
    }
    case ExprKind::Attribute:
      throw UserError("assignment to attributes is not supported", target.loc);
    default:
      throw UserError("cannot assign to this expression", target.loc);
  }
}

void Emitter::emitAssign(const Stmt& s) {
  const Expr& target = *s.targets[0];
  const Expr& value = *s.value;
  // `a, b = b, a`: evaluate every right-hand side first, then bind.
  bool literalUnpack = (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) &&
                       value.kind == ExprKind::Tuple &&
                       value.operands.size() == target.operands.size();
  if (literalUnpack) {
    std::vector<Value*> values;
    for (const ExprPtr& e : value.operands) values.push_back(emitExpr(*e));
    for (size_t i = 0; i < values.size(); ++i) {
      const Expr& t = *target.operands[i];
      if (t.kind == ExprKind::Name)
        assignName(t.name, values[i], value.operands[i].get(), s.loc);
      else
        bindTarget(t, values[i], s.loc);
    }
    return;
  }
  Value* v = emitExpr(value);
  if (target.kind == ExprKind::Name) return assignName(target.name, v, &value, s.loc);
  bindTarget(target, v, s.loc);
}

void Emitter::emitAnnAssign(const Stmt& s) {
  TypePtr declared = annotationType(*s.annotation);
  const std::string& name = s.targets[0]->name;
  if (!s.value) throw UserError("a declaration without a value is not supported", s.loc);
  Value* v = s.value->kind == ExprKind::List
                 ? emitListLiteral(*s.value,
                                   declared->kind() == TypeKind::List ? declared->elem() : nullptr)
                 : emitExpr(*s.value);
  if (!joinTypes(declared, v->type()))
    throw UserError(errorMessage("variable '", name, "' is annotated as ", typeName(declared),
                                 " but assigned a value of type ", typeName(v->type())),
                    s.loc);
  assignName(name, v, s.value.get(), s.loc);
}

void Emitter::emitAugAssign(const Stmt& s) {
  const Expr& target = *s.targets[0];
  if (target.kind == ExprKind::Attribute)
    throw UserError("assignment to attributes is not supported", target.loc);
  Value* rhs = emitExpr(*s.value);
  if (target.kind == ExprKind::Subscript) return emitSubscriptAugAssign(target, s.op, rhs, s.loc);
  Value* cur = readVar(target.name, target.loc);
  switch (cur->type()->kind()) {
    case TypeKind::Tensor: {
      auto it = inPlaceOps().find(s.op);
      if (it == inPlaceOps().end())
        throw UserError("in-place '" + s.op + "=' on a tensor is not supported", s.loc);
      Value* out = op(it->second, {cur, rhs}, s.loc);
      assignVar(target.name, out, s.loc);
      return;
    }
    case TypeKind::List: {
      if (s.op != "+" || rhs->type()->kind() != TypeKind::List)
        throw UserError("only '+=' with a list is supported on lists", s.loc);
      if (!joinTypes(cur->type(), rhs->type()))
        throw UserError(
            "cannot extend a " + typeName(cur->type()) + " with a " + typeName(rhs->type()), s.loc);
      Value* out = emitPrim("list.add", {cur, rhs}, {cur->type()}, s.loc)->output();
      rebindMutatedList(target.name, out, s.loc);
      return;
    }
    default: {
      Value* out = binaryOp(s.op, cur, rhs, s.loc);
      assignName(target.name, out, nullptr, s.loc);
      return;
    }
  }
}

void Emitter::emitBranches(Value* cond, const StmtList& thenBody, const StmtList& elseBody,
                           const SourceLoc& loc) {
  if (const Constant* c = constantOf(cond)) {
    if (c->isBool()) {
      emitBody(c->toBool() ? thenBody : elseBody);
      return;
    }
  }
  Node* ifNode = emitPrim("prim.if", {cond}, {}, loc);
  Frame* parent = frame_;
  Frame* thenFrame = pushFrame(FrameKind::Branch, ifNode->addBlock(), parent);
  Frame* elseFrame = pushFrame(FrameKind::Branch, ifNode->addBlock(), parent);
  frame_ = thenFrame;
  emitBody(thenBody);
  frame_ = elseFrame;
  emitBody(elseBody);
  frame_ = parent;
  mergeBranches(ifNode, thenFrame, elseFrame, loc);
}

void Emitter::emitIf(const Stmt& s) {
  Value* cond = toBool(emitExpr(*s.test), s.test->loc);
  emitBranches(cond, s.body, s.orelse, s.loc);
}

void Emitter::emitReturn(const Stmt& s) {
  if (fn_->loopDepth > 0) return emitReturnInLoop(s);
  if (!s.value) {
    if (fn_->returnsValue)
      throw UserError("a bare 'return' in a function that returns a value is not supported", s.loc);
    frame_->returned = true;
    return;
  }
  Value* v = emitExpr(*s.value);
  if (fn_->def->returns) {
    TypePtr declared = annotationType(*fn_->def->returns);
    if (!joinTypes(declared, v->type()))
      throw UserError(errorMessage("return value has type ", typeName(v->type()),
                                   " but the function is annotated to return ", typeName(declared)),
                      s.loc);
  }
  setVarInFrame(frame_, "$return", v);
  frame_->returned = true;
}

// Inside a loop a return records its value, sets the return flag and breaks;
// the guard that normalizeExits put after the loop returns for real.
void Emitter::emitReturnInLoop(const Stmt& s) {
  if (breakFlags_.empty() || breakFlags_.back().empty())
    throw UserError("return is not supported in a loop over a tuple", s.loc);
  if (s.value) {
    Value* v = emitExpr(*s.value);
    TypePtr declared = annotationType(*fn_->def->returns);
    if (!joinTypes(declared, v->type()))
      throw UserError(errorMessage("return value has type ", typeName(v->type()),
                                   " but the function is annotated to return ", typeName(declared)),
                      s.loc);
    assignVar(kLoopReturnValue, v, s.loc);
  } else if (fn_->returnsValue) {
    throw UserError("a bare 'return' in a function that returns a value is not supported", s.loc);
  }
  assignVar(kLoopReturnFlag, constant(Constant(true), s.loc), s.loc);
  setVarInFrame(frame_, breakFlags_.back(), constant(Constant(true), s.loc));
}

void Emitter::emitAssert(const Stmt& s) {
  Value* cond = toBool(emitExpr(*s.test), s.test->loc);
  if (const Constant* c = constantOf(cond)) {
    if (c->toBool()) return;
  }
  std::string message = "AssertionError";
  if (s.value && s.value->kind == ExprKind::Str) message += ": " + s.value->name;
  Node* ifNode = emitPrim("prim.if", {cond}, {}, s.loc);
  ifNode->addBlock();
  Block* failBlock = ifNode->addBlock();
  Node* raise = graph_->create("prim.raise", {constant(Constant(message), s.loc)});
  raise->setLoc(s.loc);
  failBlock->append(raise);
}

// `raise ValueError("msg")` aborts the run with "ValueError: msg". The path
// after it is still emitted: it never runs, and the branch merge stays simple.
void Emitter::emitRaise(const Stmt& s) {
  std::string message = "Exception";
  if (s.value) {
    const Expr& e = *s.value;
    const Expr* type = e.kind == ExprKind::Call ? e.operand(0).get() : &e;
    if (type->kind != ExprKind::Name)
      throw UserError("only `raise ExceptionType(\"message\")` is supported", e.loc);
    message = type->name;
    bool hasText =
        e.kind == ExprKind::Call && e.operands.size() == 2 && e.operand(1)->kind == ExprKind::Str;
    if (hasText) message += ": " + e.operand(1)->name;
  }
  Node* raise = graph_->create("prim.raise", {constant(Constant(message), s.loc)});
  append(raise, s.loc);
}

void Emitter::emitExprStmt(const Stmt& s) {
  if (s.value->kind == ExprKind::Str) return;  // docstring
  emitExpr(*s.value);
}

}  // namespace stitch
