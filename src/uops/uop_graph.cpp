#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "uops/uop.h"
#include "uops/uop_fold.h"
#include "uops/uop_range.h"
#include "uops/uop_simplify.h"

namespace stitch {

namespace {

// Uops with an identity of their own (definitions, control flow, effects)
// are never merged with an equal-looking earlier one.
bool mergeable(UOpKind kind) {
  switch (kind) {
    case UOpKind::Const:
    case UOpKind::Load:
    case UOpKind::Alu:
    case UOpKind::Cast: return true;
    case UOpKind::DefineGlobal:
    case UOpKind::DefineVar:
    case UOpKind::DefineLocal:
    case UOpKind::DefineAcc:
    case UOpKind::Special:
    case UOpKind::Loop:
    case UOpKind::EndLoop:
    case UOpKind::Store:
    case UOpKind::Phi:
    case UOpKind::If:
    case UOpKind::EndIf:
    case UOpKind::FoldLanes: return false;  // reads a local array the kernel writes
  }
  return false;
}

std::string keyOf(const UOp& u) {
  uint64_t bits;
  std::memcpy(&bits, &u.fval, sizeof bits);  // tells -0.0 from 0.0
  std::ostringstream k;
  k << int(u.kind) << ':' << int(u.dtype) << ':' << int(u.alu) << ':' << u.arg << ':' << u.ival << ':'
    << bits << ':' << u.name;
  for (int s : u.src) k << ',' << s;
  return k.str();
}

std::string formatFloat(double v, DType dtype) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  int maxDigits = dtype == DType::f32 ? 9 : 17;
  // The shortest spelling that reads back to the same value.
  for (int p = 1; p <= maxDigits; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    double back = std::strtod(buf, nullptr);
    if (dtype == DType::f32 ? (float)back == (float)v : back == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eninf") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

int UOpGraph::add(UOp u, bool cachable) {
  for (int s : u.src)
    STITCH_ASSERT(s >= 0 && s < (int)uops_.size(), uopKindName(u.kind), " operand ", s, " out of range");
  if (u.kind == UOpKind::Alu)
    STITCH_ASSERT((int)u.src.size() == aluOpArity(u.alu), aluOpName(u.alu), " takes ", aluOpArity(u.alu),
                  " operands, got ", u.src.size());
  if (u.kind == UOpKind::Alu || u.kind == UOpKind::Cast) {
    int r = simplifyUOp(*this, u);  // also puts commutative operands in canonical order
    if (r >= 0) return r;
    if (auto folded = foldConstant(u, uops_)) u = *folded;
  }
  // A local array is written by the kernel: a load from it is not an
  // expression of its operands.
  if (u.kind == UOpKind::Load && uops_[u.src.at(0)].kind == UOpKind::DefineLocal) cachable = false;
  return append(std::move(u), cachable && mergeable(u.kind));
}

void UOpGraph::setLoopBounds(int loop, int start, int end) {
  STITCH_ASSERT(uops_.at(loop).kind == UOpKind::Loop && start < loop && end < loop, "setLoopBounds: %", loop,
                " is not a LOOP with bounds defined before it");
  uops_[loop].src = {start, end};
  for (size_t i = loop; i < uops_.size(); ++i) computeRange(uops_[i], uops_);
}

int UOpGraph::append(UOp u, bool cachable) {
  if (u.kind == UOpKind::Const) {
    if (u.dtype == DType::b8) u.ival = u.ival != 0;
    if (u.dtype == DType::i32) u.ival = (int32_t)u.ival;
    if (u.dtype == DType::f32) u.fval = (double)(float)u.fval;
  }
  computeRange(u, uops_);
  std::string key;
  if (cachable) {
    key = keyOf(u);
    auto it = saved_.find(key);
    if (it != saved_.end()) {
      int scope = scopeOf_[it->second];
      if (scope < 0 || !closed_[scope]) return it->second;
    }
  }
  if (u.kind == UOpKind::EndLoop || u.kind == UOpKind::EndIf) {
    STITCH_ASSERT(u.src.size() == 1 && !openScopes_.empty() && openScopes_.back() == u.src[0],
                  uopKindName(u.kind), " does not close the innermost open scope");
  }
  UOpKind kind = u.kind;
  int opened = u.src.empty() ? -1 : u.src[0];
  uops_.push_back(std::move(u));
  int id = (int)uops_.size() - 1;
  scopeOf_.push_back(openScopes_.empty() ? -1 : openScopes_.back());
  closed_.push_back(0);
  if (cachable) saved_[key] = id;
  switch (kind) {
    case UOpKind::Loop:
    case UOpKind::If:
    case UOpKind::Special: openScopes_.push_back(id); break;
    case UOpKind::EndLoop:
    case UOpKind::EndIf:
      closed_[opened] = 1;
      openScopes_.pop_back();
      break;
    default: break;
  }
  return id;
}

int UOpGraph::constInt(int64_t v, DType dtype) {
  STITCH_ASSERT(!isFloating(dtype), "constInt with a floating dtype");
  return add(makeConstInt(v, dtype));
}

int UOpGraph::constFloat(double v, DType dtype) {
  STITCH_ASSERT(isFloating(dtype), "constFloat with a non-floating dtype");
  return add(makeConstFloat(v, dtype));
}

int UOpGraph::alu(AluOp op, DType dtype, std::vector<int> src) {
  UOp u;
  u.kind = UOpKind::Alu;
  u.alu = op;
  u.dtype = dtype;
  u.src = std::move(src);
  return add(std::move(u));
}

std::string UOpGraph::str() const {
  std::ostringstream o;
  for (size_t i = 0; i < uops_.size(); ++i) {
    const UOp& u = uops_[i];
    std::string dtype;
    switch (u.kind) {
      case UOpKind::DefineGlobal:
      case UOpKind::DefineLocal: dtype = std::string("ptr.") + dtypeName(u.dtype); break;
      case UOpKind::EndLoop:
      case UOpKind::EndIf:
      case UOpKind::Store: break;
      default: dtype = dtypeName(u.dtype); break;
    }
    std::string operands;
    if (!u.src.empty()) {
      operands = "[";
      for (size_t k = 0; k < u.src.size(); ++k) operands += (k ? ", " : "") + std::to_string(u.src[k]);
      operands += "]";
    }
    std::string arg;
    switch (u.kind) {
      case UOpKind::DefineGlobal: arg = u.name + (u.ival ? " (output)" : ""); break;
      case UOpKind::DefineVar: arg = u.name; break;
      case UOpKind::DefineLocal: arg = u.name + "[" + std::to_string(u.ival) + "]"; break;
      case UOpKind::Special: arg = u.name + " < " + std::to_string(u.ival); break;
      case UOpKind::Const:
        if (isFloating(u.dtype)) arg = formatFloat(u.fval, u.dtype);
        else if (u.dtype == DType::b8) arg = u.ival ? "true" : "false";
        else arg = std::to_string(u.ival);
        break;
      case UOpKind::Alu: arg = aluOpName(u.alu); break;
      case UOpKind::FoldLanes: arg = std::string(aluOpName(u.alu)) + " x" + std::to_string(u.ival); break;
      default: break;
    }
    char line[256];
    std::snprintf(line, sizeof line, "%4zu %-13s %-8s %-15s %s", i, uopKindName(u.kind), dtype.c_str(),
                  operands.c_str(), arg.c_str());
    std::string s = line;
    if (operands.size() > 15 || arg.size() > 100) {  // keep long operand lists whole
      s = std::to_string(i);
      s = std::string(4 - std::min<size_t>(4, s.size()), ' ') + s + " " + uopKindName(u.kind) + " " + dtype +
          " " + operands + " " + arg;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    o << s << "\n";
  }
  return o.str();
}

}  // namespace stitch
