#include "frontend/exit_normalization.h"

namespace stitch {

namespace {

bool isExit(const Stmt& s) {
  return s.kind == StmtKind::Break || s.kind == StmtKind::Continue || s.kind == StmtKind::Return;
}

// Exits that leave the current statement list (loops keep their own break
// and continue; a return inside a loop is followed by a guard, see below).
bool mayExit(const StmtList& body) {
  for (const StmtPtr& s : body) {
    if (isExit(*s)) return true;
    if (s->kind == StmtKind::If && (mayExit(s->body) || mayExit(s->orelse))) return true;
  }
  return false;
}

ExprPtr flagName(const char* name, const SourceLoc& loc) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Name;
  e->name = name;
  e->loc = loc;
  return e;
}

// `if $returned: return $retval` after a loop whose body returns: the
// emitter turns a return inside a loop into setting these and breaking out.
StmtPtr returnAfterLoop(const Stmt& ret) {
  auto back = std::make_shared<Stmt>();
  back->kind = StmtKind::Return;
  back->loc = ret.loc;
  if (ret.value) back->value = flagName(kLoopReturnValue, ret.loc);
  auto guard = std::make_shared<Stmt>();
  guard->kind = StmtKind::If;
  guard->loc = ret.loc;
  guard->test = flagName(kLoopReturnFlag, ret.loc);
  guard->body.push_back(back);
  return guard;
}

StmtList withRest(const StmtList& head, const StmtList& rest) {
  StmtList out = head;
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace

const Stmt* findReturn(const StmtList& body) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::Return) return s.get();
    if (const Stmt* r = findReturn(s->body)) return r;
    if (const Stmt* r = findReturn(s->orelse)) return r;
  }
  return nullptr;
}

bool alwaysExits(const StmtList& body) {
  for (const StmtPtr& s : body) {
    if (isExit(*s)) return true;
    if (s->kind == StmtKind::If && alwaysExits(s->body) && alwaysExits(s->orelse)) return true;
  }
  return false;
}

StmtList normalizeExits(const StmtList& body) {
  StmtList out;
  for (size_t i = 0; i < body.size(); ++i) {
    const StmtPtr& s = body[i];
    if (isExit(*s)) {
      out.push_back(s);
      return out;  // what follows is unreachable
    }
    if (s->kind == StmtKind::For || s->kind == StmtKind::While) {
      auto loop = std::make_shared<Stmt>(*s);
      loop->body = normalizeExits(s->body);
      const Stmt* ret = findReturn(s->body);
      if (!ret) {
        out.push_back(loop);
        continue;
      }
      // Continue as if the source had the guard after the loop.
      StmtList rest{loop, returnAfterLoop(*ret)};
      rest.insert(rest.end(), body.begin() + (long)i + 1, body.end());
      StmtList tail = normalizeExits(StmtList(rest.begin() + 1, rest.end()));
      out.push_back(loop);
      out.insert(out.end(), tail.begin(), tail.end());
      return out;
    }
    if (s->kind != StmtKind::If || !(mayExit(s->body) || mayExit(s->orelse))) {
      if (s->kind == StmtKind::If) {
        auto branch = std::make_shared<Stmt>(*s);
        branch->body = normalizeExits(s->body);
        branch->orelse = normalizeExits(s->orelse);
        out.push_back(branch);
      } else {
        out.push_back(s);
      }
      continue;
    }
    StmtList rest(body.begin() + (long)i + 1, body.end());
    auto branch = std::make_shared<Stmt>(*s);
    branch->body = normalizeExits(withRest(s->body, rest));
    branch->orelse = normalizeExits(withRest(s->orelse, rest));
    out.push_back(branch);
    return out;
  }
  return out;
}

}  // namespace stitch
