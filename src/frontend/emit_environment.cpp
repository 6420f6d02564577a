// Variables, frames and SSA merging for the emitter.
#include <map>

#include "frontend/emitter.h"

namespace stitch {

Emitter::Frame* Emitter::pushFrame(FrameKind kind, Block* block, Frame* parent) {
  auto f = std::make_unique<Frame>();
  f->kind = kind;
  f->block = block;
  f->parent = parent;
  frames_.push_back(std::move(f));
  return frames_.back().get();
}

void Emitter::setVarInFrame(Frame* frame, const std::string& name, Value* v) {
  if (!frame->vars.count(name)) frame->order.push_back(name);
  frame->vars[name] = v;
}

Value* Emitter::lookupIn(Frame* frame, const std::string& name) {
  auto it = frame->vars.find(name);
  if (it != frame->vars.end()) return it->second;
  if (!frame->parent) return nullptr;
  Value* outer = lookupIn(frame->parent, name);
  if (!outer || frame->kind != FrameKind::Loop) return outer;
  // First read inside a loop body: the value becomes loop-carried.
  Value* param =
      frame->loop->block(0)->addParam(loopType(outer->type()), name[0] == '$' ? "" : name);
  frame->carried.push_back(Carried{name, param, outer});
  setVarInFrame(frame, name, param);
  return param;
}

Value* Emitter::readVar(const std::string& name, const SourceLoc& loc) {
  if (Value* v = lookupVar(name)) return v;
  auto hint = fn_->undefinedHints.find(name);
  if (hint != fn_->undefinedHints.end()) throw UserError(hint->second, loc);
  throw UserError("name '" + name + "' is not defined", loc);
}

void Emitter::assignVar(const std::string& name, Value* v, const SourceLoc& loc) {
  bool shared = v->node() && v->node()->is("prim.constant");  // constants are reused
  if (v->debugName().empty() && name[0] != '$' && !shared) v->setDebugName(name);
  if (frame_->kind == FrameKind::Loop && !frame_->vars.count(name)) lookupVar(name);
  if (frame_->kind == FrameKind::Loop) {
    for (const Carried& c : frame_->carried) {
      if (c.name != name || joinTypes(c.param->type(), v->type())) continue;
      throw UserError(errorMessage("variable '", name, "' has type ", typeName(c.param->type()),
                                   " before the loop but is assigned a value of type ",
                                   typeName(v->type()), " in the loop body"),
                      loc);
    }
  }
  setVarInFrame(frame_, name, v);
}

void Emitter::noteListAlias(const std::string& target, const std::string& source) {
  leaveAliasGroup(target);
  auto it = fn_->aliasGroup.find(source);
  int group = it != fn_->aliasGroup.end() ? it->second : fn_->nextAliasGroup++;
  fn_->aliasGroup[source] = group;
  fn_->aliasGroup[target] = group;
}

void Emitter::leaveAliasGroup(const std::string& name) { fn_->aliasGroup.erase(name); }

void Emitter::rebindMutatedList(const std::string& name, Value* newList, const SourceLoc& loc) {
  std::vector<std::string> names{name};
  auto it = fn_->aliasGroup.find(name);
  if (it != fn_->aliasGroup.end()) {
    for (const auto& [other, group] : fn_->aliasGroup)
      if (group == it->second && other != name) names.push_back(other);
  }
  for (const std::string& n : names) {
    if (n != name && !lookupVar(n)) continue;
    assignVar(n, newList, loc);
  }
}

void Emitter::mergeBranches(Node* ifNode, Frame* thenFrame, Frame* elseFrame,
                            const SourceLoc& loc) {
  std::vector<std::string> names = thenFrame->order;
  for (const std::string& n : elseFrame->order)
    if (!thenFrame->vars.count(n)) names.push_back(n);
  bool anyReturned = thenFrame->returned || elseFrame->returned;
  Block* thenBlock = ifNode->block(0);
  Block* elseBlock = ifNode->block(1);
  struct Output {
    std::string name;
    Value* thenValue;
    Value* elseValue;
    TypePtr type;
  };
  std::vector<Output> outputs;
  for (const std::string& name : names) {
    auto findIn = [&](Frame* f) -> Value* {
      auto it = f->vars.find(name);
      if (it != f->vars.end()) return it->second;
      return lookupIn(frame_, name);
    };
    bool inThen = thenFrame->vars.count(name), inElse = elseFrame->vars.count(name);
    if (!(inThen && inElse) && !lookupIn(frame_, name)) {
      if (name != "$return")
        fn_->undefinedHints[name] =
            "name '" + name + "' is assigned in only one branch of an if and not before it";
      continue;
    }
    Value* a = findIn(thenFrame);
    Value* b = findIn(elseFrame);
    if (a == b) {
      // Both arms bind the name to one existing value (`t = x` in each):
      // no branch output, but the name is bound after the if all the same.
      if (lookupIn(frame_, name) != a) bindAfterIf(name, a, loc);
      continue;
    }
    TypePtr joined = joinTypes(a->type(), b->type());
    if (!joined) {
      if (anyReturned && name != "$return") continue;  // dead after the if
      std::string what = name == "$return" ? "the return value" : "variable '" + name + "'";
      throw UserError(errorMessage(what, " has type ", typeName(a->type()), " in one branch and ",
                                   typeName(b->type()), " in the other"),
                      loc);
    }
    outputs.push_back(Output{name, a, b, joined});
  }
  for (const Output& o : outputs) {
    thenBlock->addReturn(o.thenValue);
    elseBlock->addReturn(o.elseValue);
    bindAfterIf(o.name, ifNode->addOutput(o.type, o.name[0] == '$' ? "" : o.name), loc);
  }
  if (thenFrame->returned && elseFrame->returned) frame_->returned = true;
}

void Emitter::bindAfterIf(const std::string& name, Value* v, const SourceLoc& loc) {
  if (name[0] == '$')
    setVarInFrame(frame_, name, v);
  else
    assignVar(name, v, loc);
}

void Emitter::closeLoop(Frame* body, Value* maxTrip, Value* initCond, Value* condOut,
                        const SourceLoc& loc) {
  Node* loop = body->loop;
  Block* block = loop->block(0);
  loop->addInput(maxTrip);
  loop->addInput(initCond);
  block->addReturn(condOut);
  // A name the body never rebinds is not carried: its parameter is the
  // value from before the loop. Another name's final value may be that
  // parameter (`t = x` in the body), so it reads the same value.
  std::vector<Carried> kept;
  std::map<const Value*, Value*> unchanged;
  for (const Carried& c : body->carried) {
    if (body->vars.at(c.name) != c.param) {
      kept.push_back(c);
      continue;
    }
    c.param->replaceAllUsesWith(c.init);
    block->eraseParam(c.param->offset());
    unchanged[c.param] = c.init;
  }
  for (const Carried& c : kept) {
    Value* final = body->vars.at(c.name);
    auto it = unchanged.find(final);
    loop->addInput(c.init);
    block->addReturn(it == unchanged.end() ? final : it->second);
  }
  // Names first defined in the body are not visible after it.
  for (const std::string& name : body->order) {
    bool isCarried = false;
    for (const Carried& c : body->carried) isCarried |= c.name == name;
    if (!isCarried && name[0] != '$')
      fn_->undefinedHints[name] =
          "name '" + name + "' is defined only inside a loop body and cannot be used after it";
  }
  for (const Carried& c : kept) {
    Value* out = loop->addOutput(c.param->type(), c.name[0] == '$' ? "" : c.name);
    if (c.name[0] == '$')
      setVarInFrame(frame_, c.name, out);
    else
      assignVar(c.name, out, loc);
  }
}

}  // namespace stitch
