// AST -> SSA Graph IR. One Emitter builds the graph of one entry function;
// calls to other functions of the file are inlined.
//
// Variables live in frames: a function frame, a loop frame per loop body and
// a branch frame per if branch. Reading a variable of an enclosing frame from
// a loop body makes it loop-carried (a block parameter), lazily, as
// TorchScript does; carried values the body never changes are removed when
// the loop is closed. Variables assigned in branches become prim.if outputs.
// break / continue / early return are first removed from the AST by moving
// the statements after them into the other branch (exit_normalization.h);
// a break then only sets a per-loop flag that the loop condition reads.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/annotation.h"
#include "frontend/ast.h"
#include "ir/graph.h"
#include "ir/op_registry.h"

namespace stitch {

// Augmented assignment on a tensor (`x += y`, `x[i] %= 3`) -> its in-place op.
const std::map<std::string, std::string>& inPlaceOps();

class Emitter {
 public:
  explicit Emitter(const Module& module);
  std::unique_ptr<Graph> emitEntry(const FunctionDef& fn);
  // The value of an expression that needs no variable (a parameter's
  // default: `1.0`, `-1`, `True`, `None`, `[0, 1]`, `1.0 / 8`), as the
  // emitter folds it; nullopt when it is not a constant. Throws UserError
  // for an expression that is wrong anywhere.
  std::optional<Constant> constantValue(const Expr& e);

 private:
  // ---- environment (emit_environment.cpp) ----
  enum class FrameKind { Function, Loop, Branch };
  struct Carried {
    std::string name;
    Value* param;
    Value* init;
  };
  struct Frame {
    FrameKind kind;
    Frame* parent = nullptr;  // null for a function frame
    Block* block = nullptr;   // where this frame's nodes go
    std::vector<std::string> order;
    std::map<std::string, Value*> vars;
    Node* loop = nullptr;  // loop frames
    std::vector<Carried> carried;
    bool returned = false;  // the path through this frame ended in a return
  };
  struct FunctionState {
    const FunctionDef* def = nullptr;
    Frame* root = nullptr;
    bool returnsValue = false;
    int loopDepth = 0;
    std::map<std::string, int> aliasGroup;  // list variables sharing one list
    int nextAliasGroup = 0;
    std::set<std::string> reassignedParams;
    std::map<std::string, std::string> undefinedHints;
  };

  Frame* pushFrame(FrameKind kind, Block* block, Frame* parent);
  Value* lookupIn(Frame* frame, const std::string& name);
  Value* lookupVar(const std::string& name) { return lookupIn(frame_, name); }
  Value* readVar(const std::string& name, const SourceLoc& loc);
  void assignVar(const std::string& name, Value* v, const SourceLoc& loc);
  void setVarInFrame(Frame* frame, const std::string& name, Value* v);
  // `b = a` for lists makes b share a's alias group; any other assignment
  // leaves the group.
  void noteListAlias(const std::string& target, const std::string& source);
  void leaveAliasGroup(const std::string& name);
  // A list variable got a new list value through a mutation (append, set,
  // +=): every variable sharing the list is rebound.
  void rebindMutatedList(const std::string& name, Value* newList, const SourceLoc& loc);
  // Closes two branch frames into the outputs of `ifNode`.
  void mergeBranches(Node* ifNode, Frame* thenFrame, Frame* elseFrame, const SourceLoc& loc);
  // Binds a name to its value after an if (a branch output or the value
  // both arms agree on).
  void bindAfterIf(const std::string& name, Value* v, const SourceLoc& loc);
  // Closes a loop frame: carried values, inputs, returns, outputs.
  void closeLoop(Frame* body, Value* maxTrip, Value* initCond, Value* condOut,
                 const SourceLoc& loc);

  // ---- nodes and types (emit_nodes.cpp) ----
  Value* constant(const Constant& c, const SourceLoc& loc);
  Node* append(Node* n, const SourceLoc& loc);
  // Resolves `name` against the registry and appends the node with every
  // schema input (defaults materialized). Throws UserError at loc.
  Node* emitOp(const std::string& name, const std::vector<Value*>& positional,
               const std::vector<std::pair<std::string, Value*>>& keywords, const SourceLoc& loc);
  Value* op(const std::string& name, const std::vector<Value*>& positional, const SourceLoc& loc,
            const std::vector<std::pair<std::string, Value*>>& keywords = {});
  // A prim./list. node whose output types the frontend knows.
  Node* emitPrim(const std::string& name, const std::vector<Value*>& inputs,
                 const std::vector<TypePtr>& outTypes, const SourceLoc& loc);
  Value* makeList(const std::vector<Value*>& elems, TypePtr elemType, const SourceLoc& loc);
  Value* makeIntList(const std::vector<Value*>& elems, const SourceLoc& loc);
  Value* makeTuple(const std::vector<Value*>& elems, const SourceLoc& loc);
  std::vector<Value*> unpackTuple(Value* tuple, const SourceLoc& loc);
  std::vector<Value*> unpackList(Value* list, size_t n, const SourceLoc& loc);
  Value* tupleToList(Value* tuple, const SourceLoc& loc);
  Value* toBool(Value* v, const SourceLoc& loc);
  Value* listGet(Value* list, Value* index, const SourceLoc& loc);
  static TypePtr loopType(const TypePtr& t);
  static std::string typeName(const TypePtr& t);

  // ---- statements (emit_stmt.cpp) ----
  void emitBody(const StmtList& body);
  void emitStmt(const Stmt& s);
  void emitAssign(const Stmt& s);
  void emitAnnAssign(const Stmt& s);
  void emitAugAssign(const Stmt& s);
  void emitIf(const Stmt& s);
  void emitReturn(const Stmt& s);
  void emitReturnInLoop(const Stmt& s);
  void prepareLoopReturn(const Stmt& ret);
  void emitAssert(const Stmt& s);
  void emitRaise(const Stmt& s);
  void emitExprStmt(const Stmt& s);
  void bindTarget(const Expr& target, Value* v, const SourceLoc& loc);
  void assignName(const std::string& name, Value* v, const Expr* source, const SourceLoc& loc);
  // Emits `then` and `else` as the blocks of a prim.if on cond, merging
  // variables. Constant conditions emit only the taken side.
  void emitBranches(Value* cond, const StmtList& thenBody, const StmtList& elseBody,
                    const SourceLoc& loc);

  // ---- loops (emit_loop.cpp) ----
  struct IterSource;
  struct LoopItem;
  void emitFor(const Stmt& s);
  void emitWhile(const Stmt& s);
  std::shared_ptr<IterSource> iterSource(const Expr& e);
  Value* tripCount(const IterSource& src, const SourceLoc& loc);
  LoopItem itemAt(const IterSource& src, Value* iter, const SourceLoc& loc);
  void bindItem(const Expr& target, const LoopItem& item, const SourceLoc& loc);
  void emitUnrolledTupleLoop(const Stmt& s, Value* tuple);
  std::string newBreakFlag();

  // ---- expressions (emit_expr.cpp) ----
  Value* emitExpr(const Expr& e);
  Value* emitName(const Expr& e);
  Value* emitAttribute(const Expr& e);
  Value* emitBinOp(const Expr& e);
  Value* binaryOp(const std::string& op, Value* a, Value* b, const SourceLoc& loc);
  Value* emitUnaryOp(const Expr& e);
  Value* emitBoolOp(const Expr& e);
  Value* emitCompare(const Expr& e);
  Value* compareOp(const std::string& op, Value* a, Value* b, const SourceLoc& loc);
  Value* emitIfExp(const Expr& e);
  Value* emitListLiteral(const Expr& e, TypePtr elemType = nullptr);
  // Emits a condition (converted to bool) as a fresh block of ifNode that
  // returns it.
  Value* emitInBranch(Node* ifNode, const Expr& e, bool asBool = true);

  // ---- calls (emit_call.cpp) ----
  struct CallArgs {
    std::vector<Value*> positional;
    std::vector<std::pair<std::string, Value*>> keywords;
  };
  Value* emitCall(const Expr& e);
  CallArgs emitArgs(const Expr& call, bool tuplesAsLists);
  Value* emitTorchCall(const std::string& fn, const Expr& call);
  Value* emitIndexPut(const std::string& fn, const CallArgs& args, const SourceLoc& loc);
  Value* emitMathCall(const std::string& fn, const Expr& call);
  Value* emitMethodCall(const Expr& call);
  Value* emitTensorMethod(Value* self, const std::string& method, const Expr& call);
  Value* emitListMethod(Value* self, const std::string& method, const Expr& call);
  Value* emitBuiltin(const std::string& fn, const Expr& call);
  Value* opResult(Node* n, const SourceLoc& loc);
  Value* packSizes(const std::vector<Value*>& args, size_t from, const SourceLoc& loc);
  std::string qualifiedModuleName(const Expr& e) const;

  // ---- subscripts (emit_subscript.cpp) ----
  Value* emitSubscript(const Expr& e);
  Value* indexTensor(Value* base, const Expr& index, const SourceLoc& loc);
  // A tensor subscript as the view its basic elements select and, when it
  // has one, the index tensor applied to that view at `dim`.
  struct TensorIndex {
    Value* view = nullptr;
    Value* tensor = nullptr;
    int64_t dim = 0;
  };
  TensorIndex indexTensorParts(Value* base, const Expr& index, const SourceLoc& loc);
  Value* indexGet(const TensorIndex& parts, const SourceLoc& loc);
  void indexPut(const TensorIndex& parts, Value* values, const SourceLoc& loc);
  Value* indexList(Value* list, const Expr& index, const SourceLoc& loc);
  Value* indexTuple(Value* tuple, const Expr& index, const SourceLoc& loc);
  void emitSubscriptAssign(const Expr& target, Value* v, const SourceLoc& loc);
  void emitSubscriptAugAssign(const Expr& target, const std::string& op, Value* v,
                              const SourceLoc& loc);

  // ---- functions (emit_function.cpp) ----
  const FunctionDef* findFunction(const std::string& name) const;
  Value* inlineCall(const FunctionDef& fn, const Expr& call);
  void emitFunctionBody(const FunctionDef& fn);

  const Module& module_;
  Graph* graph_ = nullptr;
  FunctionState* fn_ = nullptr;
  Frame* frame_ = nullptr;
  std::vector<std::unique_ptr<Frame>> frames_;
  std::map<std::string, Value*> constants_;
  std::vector<std::string> callStack_;
  int breakFlagCounter_ = 0;
  // Per open loop (innermost last): the flag a break sets, "" when the body
  // has no break.
  std::vector<std::string> breakFlags_;
};

}  // namespace stitch
