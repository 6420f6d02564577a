// Loops: `for` over range / lists / zip / enumerate / tensors (prim.loop with
// a trip count), `for` over tuples (unrolled), and `while`.
#include <cstdint>

#include "frontend/emitter.h"
#include "frontend/exit_normalization.h"

namespace stitch {

struct Emitter::IterSource {
  enum class Kind { Range, List, Zip, Enumerate } kind;
  Value* start = nullptr;  // Range; Enumerate's first index
  Value* end = nullptr;
  Value* step = nullptr;
  Value* list = nullptr;
  std::vector<std::shared_ptr<IterSource>> children;
};

struct Emitter::LoopItem {
  Value* value = nullptr;
  std::vector<LoopItem> parts;  // zip / enumerate: one per component
};

namespace {

// A `return` inside the body leaves the loop like a break does.
bool containsBreak(const StmtList& body) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::Break || s->kind == StmtKind::Return) return true;
    if (s->kind == StmtKind::If && (containsBreak(s->body) || containsBreak(s->orelse)))
      return true;
  }
  return false;
}

std::optional<int64_t> constInt(const Value* v) {
  const Constant* c = constantOf(v);
  if (c && c->isInt()) return c->toInt();
  return std::nullopt;
}

bool isCallTo(const Expr& e, const char* name) {
  return e.kind == ExprKind::Call && e.operand(0)->kind == ExprKind::Name &&
         e.operand(0)->name == name;
}

}  // namespace

std::string Emitter::newBreakFlag() { return "$break" + std::to_string(breakFlagCounter_++); }

std::shared_ptr<Emitter::IterSource> Emitter::iterSource(const Expr& e) {
  auto src = std::make_shared<IterSource>();
  bool builtin = e.kind == ExprKind::Call && e.operand(0)->kind == ExprKind::Name &&
                 !lookupVar(e.operand(0)->name) && !findFunction(e.operand(0)->name);
  if (builtin && isCallTo(e, "range")) {
    if (!e.keywords.empty()) throw UserError("range() takes no keyword arguments", e.loc);
    size_t n = e.operands.size() - 1;
    if (n < 1 || n > 3)
      throw UserError(errorMessage("range expected 1 to 3 arguments, got ", n), e.loc);
    std::vector<Value*> args;
    for (size_t i = 1; i <= n; ++i) {
      Value* v = emitExpr(*e.operand(i));
      if (v->type()->kind() != TypeKind::Int)
        throw UserError("range() arguments must be int, not " + typeName(v->type()),
                        e.operand(i)->loc);
      args.push_back(v);
    }
    src->kind = IterSource::Kind::Range;
    src->start = n == 1 ? constant(Constant(int64_t(0)), e.loc) : args[0];
    src->end = n == 1 ? args[0] : args[1];
    src->step = n == 3 ? args[2] : constant(Constant(int64_t(1)), e.loc);
    std::optional<int64_t> step = constInt(src->step);
    if (!step)
      throw UserError("range() with a step that is not a constant is not supported", e.loc);
    if (*step == 0) throw UserError("range() arg 3 must not be zero", e.loc);
    return src;
  }
  if (builtin && isCallTo(e, "zip")) {
    if (e.operands.size() < 2) throw UserError("zip() needs at least one argument", e.loc);
    src->kind = IterSource::Kind::Zip;
    for (size_t i = 1; i < e.operands.size(); ++i)
      src->children.push_back(iterSource(*e.operand(i)));
    return src;
  }
  if (builtin && isCallTo(e, "enumerate")) {
    if (e.operands.size() < 2 || e.operands.size() > 3)
      throw UserError("enumerate() takes 1 or 2 arguments", e.loc);
    src->kind = IterSource::Kind::Enumerate;
    src->children.push_back(iterSource(*e.operand(1)));
    const Expr* startExpr = e.operands.size() == 3 ? e.operand(2).get() : nullptr;
    for (const Keyword& k : e.keywords) {
      if (k.name != "start")
        throw UserError("enumerate() got an unexpected keyword argument '" + k.name + "'", k.loc);
      startExpr = k.value.get();
    }
    src->start = startExpr ? emitExpr(*startExpr) : constant(Constant(int64_t(0)), e.loc);
    return src;
  }
  Value* v = emitExpr(e);
  src->kind = IterSource::Kind::List;
  switch (v->type()->kind()) {
    case TypeKind::List:
      src->list = v;
      return src;
    case TypeKind::Tensor:
      src->list = op("unbind", {v}, e.loc);
      return src;
    case TypeKind::Tuple:
      throw UserError("iterating over a tuple inside zip/enumerate is not supported", e.loc);
    default:
      throw UserError("'" + typeName(v->type()) + "' object is not iterable", e.loc);
  }
}

Value* Emitter::tripCount(const IterSource& src, const SourceLoc& loc) {
  switch (src.kind) {
    case IterSource::Kind::List:
      return emitPrim("list.len", {src.list}, {Type::intT()}, loc)->output();
    case IterSource::Kind::Enumerate:
      return tripCount(*src.children[0], loc);
    case IterSource::Kind::Zip: {
      Value* n = tripCount(*src.children[0], loc);
      for (size_t i = 1; i < src.children.size(); ++i)
        n = op("scalar.min", {n, tripCount(*src.children[i], loc)}, loc);
      return n;
    }
    case IterSource::Kind::Range:
      break;
  }
  int64_t step = *constInt(src.step);
  std::optional<int64_t> a = constInt(src.start), b = constInt(src.end);
  if (a && b) {
    int64_t span = *b - *a;
    int64_t q = step > 0 ? (span + step - 1) / step : (span + step + 1) / step;
    if (span != 0 && ((span > 0) != (step > 0))) q = 0;
    return constant(Constant(std::max<int64_t>(q, 0)), loc);
  }
  Value* span = a && *a == 0 ? src.end : op("scalar.sub", {src.end, src.start}, loc);
  if (step == 1) return span;
  // ceil(span / step) with floor division: (span + step - sign(step)) // step.
  Value* adjusted =
      op("scalar.add", {span, constant(Constant(step - (step > 0 ? 1 : -1)), loc)}, loc);
  Value* q = op("scalar.floordiv", {adjusted, src.step}, loc);
  return op("scalar.max", {q, constant(Constant(int64_t(0)), loc)}, loc);
}

Emitter::LoopItem Emitter::itemAt(const IterSource& src, Value* iter, const SourceLoc& loc) {
  LoopItem item;
  switch (src.kind) {
    case IterSource::Kind::Range: {
      Value* v = iter;
      if (constInt(src.step) != int64_t(1)) v = op("scalar.mul", {v, src.step}, loc);
      if (constInt(src.start) != int64_t(0)) v = op("scalar.add", {src.start, v}, loc);
      item.value = v;
      return item;
    }
    case IterSource::Kind::List:
      item.value = listGet(src.list, iter, loc);
      return item;
    case IterSource::Kind::Zip:
      for (const auto& child : src.children) item.parts.push_back(itemAt(*child, iter, loc));
      return item;
    case IterSource::Kind::Enumerate: {
      LoopItem index;
      index.value =
          constInt(src.start) == int64_t(0) ? iter : op("scalar.add", {iter, src.start}, loc);
      item.parts.push_back(index);
      item.parts.push_back(itemAt(*src.children[0], iter, loc));
      return item;
    }
  }
  return item;
}

void Emitter::bindItem(const Expr& target, const LoopItem& item, const SourceLoc& loc) {
  if (item.parts.empty()) return bindTarget(target, item.value, loc);
  if (target.kind != ExprKind::Tuple && target.kind != ExprKind::List) {
    std::vector<Value*> values;
    for (const LoopItem& p : item.parts) {
      if (!p.parts.empty())
        throw UserError("binding a nested zip/enumerate item to one name is not supported", loc);
      values.push_back(p.value);
    }
    return bindTarget(target, makeTuple(values, loc), loc);
  }
  if (target.operands.size() != item.parts.size())
    throw UserError(errorMessage("cannot unpack ", item.parts.size(), " values into ",
                                 target.operands.size(), " targets"),
                    loc);
  for (size_t i = 0; i < item.parts.size(); ++i) bindItem(*target.operands[i], item.parts[i], loc);
}

void Emitter::prepareLoopReturn(const Stmt& ret) {
  if (lookupVar(kLoopReturnFlag)) return;  // an enclosing loop set them up
  setVarInFrame(frame_, kLoopReturnFlag, constant(Constant(false), ret.loc));
  if (!ret.value) return;
  if (!fn_->def->returns)
    throw UserError("a return inside a loop needs the function's return type annotation",
                    ret.loc);
  // Carried through the loop before any return has run: typed by the annotation.
  Node* placeholder = emitPrim("prim.uninitialized", {}, {annotationType(*fn_->def->returns)},
                               ret.loc);
  setVarInFrame(frame_, kLoopReturnValue, placeholder->output());
}

void Emitter::emitUnrolledTupleLoop(const Stmt& s, Value* tuple) {
  std::vector<Value*> elems = unpackTuple(tuple, s.loc);
  fn_->loopDepth++;
  breakFlags_.push_back("");
  for (Value* e : elems) {
    bindTarget(*s.targets[0], e, s.loc);
    emitBody(s.body);
  }
  breakFlags_.pop_back();
  fn_->loopDepth--;
}

void Emitter::emitFor(const Stmt& s) {
  const Expr& iterable = *s.value;
  bool builtinIter =
      isCallTo(iterable, "range") || isCallTo(iterable, "zip") || isCallTo(iterable, "enumerate");
  std::shared_ptr<IterSource> src;
  if (!builtinIter) {
    Value* v = emitExpr(iterable);
    if (v->type()->kind() == TypeKind::Tuple) return emitUnrolledTupleLoop(s, v);
    src = std::make_shared<IterSource>();
    src->kind = IterSource::Kind::List;
    if (v->type()->kind() == TypeKind::Tensor)
      v = op("unbind", {v}, iterable.loc);
    else if (v->type()->kind() != TypeKind::List)
      throw UserError("'" + typeName(v->type()) + "' object is not iterable", iterable.loc);
    src->list = v;
  } else {
    src = iterSource(iterable);
  }
  Value* trip = tripCount(*src, s.loc);
  std::string flag = containsBreak(s.body) ? newBreakFlag() : "";
  if (const Stmt* ret = findReturn(s.body)) prepareLoopReturn(*ret);

  Node* loop = emitPrim("prim.loop", {}, {}, s.loc);
  Block* block = loop->addBlock();
  Value* iter = block->addParam(Type::intT());
  Frame* parent = frame_;
  Frame* body = pushFrame(FrameKind::Loop, block, parent);
  body->loop = loop;
  frame_ = body;
  // Reset every iteration: a set flag ends the loop, so it need not be carried.
  if (!flag.empty()) setVarInFrame(body, flag, constant(Constant(false), s.loc));
  fn_->loopDepth++;
  breakFlags_.push_back(flag);
  bindItem(*s.targets[0], itemAt(*src, iter, s.loc), s.loc);
  emitBody(s.body);
  Value* condOut =
      flag.empty() ? constant(Constant(true), s.loc) : op("scalar.not", {lookupVar(flag)}, s.loc);
  breakFlags_.pop_back();
  fn_->loopDepth--;
  frame_ = parent;
  closeLoop(body, trip, constant(Constant(true), s.loc), condOut, s.loc);
}

void Emitter::emitWhile(const Stmt& s) {
  Value* cond0 = toBool(emitExpr(*s.test), s.test->loc);
  if (const Constant* c = constantOf(cond0); c && !c->toBool()) return;
  std::string flag = containsBreak(s.body) ? newBreakFlag() : "";
  if (const Stmt* ret = findReturn(s.body)) prepareLoopReturn(*ret);

  Node* loop = emitPrim("prim.loop", {}, {}, s.loc);
  Block* block = loop->addBlock();
  block->addParam(Type::intT());
  Frame* parent = frame_;
  Frame* body = pushFrame(FrameKind::Loop, block, parent);
  body->loop = loop;
  frame_ = body;
  // Reset every iteration: a set flag ends the loop, so it need not be carried.
  if (!flag.empty()) setVarInFrame(body, flag, constant(Constant(false), s.loc));
  fn_->loopDepth++;
  breakFlags_.push_back(flag);
  emitBody(s.body);
  Value* condOut = nullptr;
  if (flag.empty()) {
    condOut = toBool(emitExpr(*s.test), s.test->loc);
  } else {
    // After a break the condition must not be evaluated again.
    Node* check = emitPrim("prim.if", {lookupVar(flag)}, {Type::boolT()}, s.loc);
    check->addBlock()->addReturn(constant(Constant(false), s.loc));
    emitInBranch(check, *s.test);
    condOut = check->output();
  }
  breakFlags_.pop_back();
  fn_->loopDepth--;
  frame_ = parent;
  closeLoop(body, constant(Constant(INT64_MAX), s.loc), cond0, condOut, s.loc);
}

}  // namespace stitch
