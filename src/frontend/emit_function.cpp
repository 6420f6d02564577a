// Functions: the entry function becomes the graph; calls to the file's other
// functions are inlined with their own variables.
#include <algorithm>

#include "frontend/annotation.h"
#include "frontend/emitter.h"
#include "frontend/exit_normalization.h"

namespace stitch {

namespace {

bool containsValueReturn(const StmtList& body) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::Return && s->value) return true;
    if (containsValueReturn(s->body) || containsValueReturn(s->orelse)) return true;
  }
  return false;
}

// Tuples built only to be unpacked again (returns, inlined results) are
// left without uses; they are the emitter's own scaffolding.
void removeUnusedTuples(Block* block) {
  std::vector<Node*> nodes = block->nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node* n = *it;
    for (Block* sub : n->blocks()) removeUnusedTuples(sub);
    if (n->is("prim.tuple_construct") && !n->output()->hasUses()) n->destroy();
  }
}

}  // namespace

Emitter::Emitter(const Module& module) : module_(module) {}

const FunctionDef* Emitter::findFunction(const std::string& name) const {
  for (const auto& f : module_.functions)
    if (f->name == name) return f.get();
  return nullptr;
}

void Emitter::emitFunctionBody(const FunctionDef& fn) {
  // A return annotation other than None promises a value on every path.
  bool annotatedValue = fn.returns && fn.returns->kind != ExprKind::None;
  fn_->returnsValue = annotatedValue || containsValueReturn(fn.body);
  emitBody(normalizeExits(fn.body));
}

std::optional<Constant> Emitter::constantValue(const Expr& e) {
  Graph scratch;
  graph_ = &scratch;
  FunctionState state;
  fn_ = &state;
  frame_ = pushFrame(FrameKind::Function, scratch.top(), nullptr);
  state.root = frame_;
  Value* v = emitExpr(e);
  if (const Constant* c = constantOf(v)) return *c;
  return std::nullopt;
}

std::unique_ptr<Graph> Emitter::emitEntry(const FunctionDef& fn) {
  auto graph = std::make_unique<Graph>();
  graph_ = graph.get();
  graph->setName(fn.name);
  FunctionState state;
  state.def = &fn;
  fn_ = &state;
  Frame* root = pushFrame(FrameKind::Function, graph->top(), nullptr);
  state.root = root;
  frame_ = root;
  for (const Param& p : fn.params) {
    bool optional = false;
    TypePtr t = p.annotation ? annotationType(*p.annotation, &optional) : Type::tensor();
    if (optional)
      throw UserError("Optional parameters are not supported in the entry function", p.loc);
    setVarInFrame(root, p.name, graph->addInput(t, p.name));
  }
  callStack_.push_back(fn.name);
  emitFunctionBody(fn);
  callStack_.pop_back();
  frame_ = root;
  if (state.returnsValue) {
    auto it = root->vars.find("$return");
    if (it == root->vars.end())
      throw UserError("function '" + fn.name + "' does not return a value on every path", fn.loc);
    Value* result = it->second;
    if (result->type()->kind() == TypeKind::Tuple) {
      for (Value* v : unpackTuple(result, fn.loc)) graph->addOutput(v);
    } else {
      graph->addOutput(result);
    }
  }
  removeUnusedTuples(graph->top());
  fn_ = nullptr;
  frame_ = nullptr;
  graph_ = nullptr;
  return graph;
}

Value* Emitter::inlineCall(const FunctionDef& fn, const Expr& call) {
  const SourceLoc& loc = call.loc;
  if (std::find(callStack_.begin(), callStack_.end(), fn.name) != callStack_.end())
    throw UserError("recursive call of '" + fn.name + "' is not supported", loc);
  size_t nPositional = call.operands.size() - 1;
  if (nPositional > fn.params.size())
    throw UserError(errorMessage(fn.name, "() takes ", fn.params.size(),
                                 " positional arguments but ", nPositional, " were given"),
                    loc);
  std::vector<Value*> bound(fn.params.size(), nullptr);
  std::vector<std::string> callerNames(fn.params.size());
  auto bindArg = [&](size_t i, const Expr& e) {
    bound[i] = emitExpr(e);
    if (e.kind == ExprKind::Name) callerNames[i] = e.name;
  };
  for (size_t i = 0; i < nPositional; ++i) bindArg(i, *call.operand(i + 1));
  for (const Keyword& k : call.keywords) {
    size_t i = 0;
    while (i < fn.params.size() && fn.params[i].name != k.name) ++i;
    if (i == fn.params.size())
      throw UserError(fn.name + "() got an unexpected keyword argument '" + k.name + "'", k.loc);
    if (bound[i])
      throw UserError(fn.name + "() got multiple values for argument '" + k.name + "'", k.loc);
    bindArg(i, *k.value);
  }
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Param& p = fn.params[i];
    if (!bound[i] && !p.defaultValue)
      throw UserError(fn.name + "() missing required argument '" + p.name + "'", loc);
    if (!bound[i]) bound[i] = emitExpr(*p.defaultValue);
    if (!p.annotation) continue;
    bool optional = false;
    TypePtr t = annotationType(*p.annotation, &optional);
    if (optional && bound[i]->type()->kind() == TypeKind::None) continue;
    if (!joinTypes(t, bound[i]->type()))
      throw UserError(errorMessage("argument '", p.name, "' of ", fn.name, "() must be ",
                                   typeName(t), ", not ", typeName(bound[i]->type())),
                      loc);
  }

  FunctionState* callerState = fn_;
  Frame* callerFrame = frame_;
  FunctionState state;
  state.def = &fn;
  fn_ = &state;
  Frame* root = pushFrame(FrameKind::Function, callerFrame->block, nullptr);
  state.root = root;
  frame_ = root;
  for (size_t i = 0; i < fn.params.size(); ++i) setVarInFrame(root, fn.params[i].name, bound[i]);
  callStack_.push_back(fn.name);
  emitFunctionBody(fn);
  callStack_.pop_back();
  frame_ = root;
  Value* result = nullptr;
  if (state.returnsValue) {
    auto it = root->vars.find("$return");
    if (it == root->vars.end())
      throw UserError("function '" + fn.name + "' does not return a value on every path", fn.loc);
    result = it->second;
  }
  // Lists the callee mutated (append, item assignment) are the caller's too.
  std::vector<std::pair<std::string, Value*>> mutatedLists;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const std::string& pname = fn.params[i].name;
    if (callerNames[i].empty() || bound[i]->type()->kind() != TypeKind::List) continue;
    if (state.reassignedParams.count(pname)) continue;
    Value* final = root->vars.at(pname);
    if (final != bound[i]) mutatedLists.emplace_back(callerNames[i], final);
  }
  fn_ = callerState;
  frame_ = callerFrame;
  for (const auto& [name, list] : mutatedLists) rebindMutatedList(name, list, loc);
  return result ? result : constant(Constant(), loc);
}

}  // namespace stitch
