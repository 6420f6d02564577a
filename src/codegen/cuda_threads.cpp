#include "codegen/cuda_threads.h"

#include <vector>

namespace stitch {

namespace {

class LoopAnalysis {
 public:
  LoopAnalysis(const KernelUOps& kernel, int64_t maxLocalBytes)
      : uops_(kernel.uops.uops()), maxLocalBytes_(maxLocalBytes), end_(uops_.size(), -1) {
    std::vector<int> open;
    for (int id = 0; id < (int)uops_.size(); ++id) {
      const UOp& u = uops_[id];
      if (u.kind == UOpKind::Loop || u.kind == UOpKind::If || u.kind == UOpKind::Special) open.push_back(id);
      if (u.kind == UOpKind::EndLoop || u.kind == UOpKind::EndIf) {
        end_[u.src.at(0)] = id;
        if (!open.empty()) open.pop_back();
      }
    }
    for (int id : open) end_[id] = (int)uops_.size();  // a grid left open spans the rest
  }

  int choose() const {
    int grid = -1;
    for (int id = 0; id < (int)uops_.size(); ++id) {
      const UOp& u = uops_[id];
      if (u.kind == UOpKind::Special) {
        if (grid >= 0) return -1;  // a second grid dimension: not handled
        grid = id;
      }
      // Scratch shared by the blocks: a buffer before the grid.
      if (u.kind == UOpKind::DefineLocal && grid < 0) return -1;
    }
    if (grid < 0 || end_[grid] != (int)uops_.size()) return -1;  // no grid, or code after it
    int chosen = -1;
    for (int scope = grid;;) {
      const int child = onlyLoopIn(scope);
      if (child < 0) break;
      if (independent(child) && (chosen < 0 || !shortLoop(child))) chosen = child;
      scope = child;
    }
    return chosen;
  }

 private:
  // The one loop directly inside `scope` when everything else directly
  // inside it only computes values; -1 otherwise.
  int onlyLoopIn(int scope) const {
    int loop = -1;
    for (int id = scope + 1; id < end_[scope]; ++id) {
      const UOp& u = uops_[id];
      if (u.kind == UOpKind::Loop) {
        if (loop >= 0) return -1;
        loop = id;
        id = end_[id];  // skip its body
        continue;
      }
      if (!computesOnly(u)) return -1;
    }
    return loop;
  }

  bool computesOnly(const UOp& u) const {
    switch (u.kind) {
      case UOpKind::Const: case UOpKind::Alu: case UOpKind::Cast: return true;
      case UOpKind::Load: return isGlobal(u.src.at(0)) && !uops_[u.src.at(0)].ival;
      default: return false;
    }
  }

  bool isGlobal(int id) const { return uops_[id].kind == UOpKind::DefineGlobal; }

  bool shortLoop(int loop) const {
    const UOp &lo = uops_[uops_[loop].src.at(0)], &hi = uops_[uops_[loop].src.at(1)];
    return lo.kind == UOpKind::Const && hi.kind == UOpKind::Const && hi.ival - lo.ival <= 32;
  }

  bool independent(int loop) const {
    for (int id = loop + 1; id < end_[loop]; ++id) {
      const UOp& u = uops_[id];
      switch (u.kind) {
        case UOpKind::Phi:
          if (u.src.at(0) < loop) return false;
          break;
        case UOpKind::DefineLocal:
          if (u.ival * (int64_t)dtypeSize(u.dtype) > maxLocalBytes_) return false;
          break;
        case UOpKind::Load:
        case UOpKind::FoldLanes: {
          const int buffer = u.src.at(0);
          if (buffer < loop && !isGlobal(buffer)) return false;
          if (isGlobal(buffer) && uops_[buffer].ival) return false;
          break;
        }
        case UOpKind::Store: {
          const int buffer = u.src.at(0);
          if (buffer < loop && !isGlobal(buffer)) return false;
          if (isGlobal(buffer) && !dependsOn(u.src.at(1), loop)) return false;
          break;
        }
        default: break;
      }
    }
    return true;
  }

  bool dependsOn(int id, int loop) const {
    std::vector<int> stack = {id};
    std::vector<char> seen(uops_.size(), 0);
    while (!stack.empty()) {
      const int at = stack.back();
      stack.pop_back();
      if (at == loop) return true;
      if (at < loop || seen[at]) continue;  // defined before the loop opens, or seen
      seen[at] = 1;
      for (int s : uops_[at].src) stack.push_back(s);
    }
    return false;
  }

  const std::vector<UOp>& uops_;
  int64_t maxLocalBytes_;
  std::vector<int> end_;  // per LOOP / IF / SPECIAL: its closing uop
};

}  // namespace

int threadSharedLoop(const KernelUOps& kernel, int64_t maxLocalBytes) {
  return LoopAnalysis(kernel, maxLocalBytes).choose();
}

}  // namespace stitch
