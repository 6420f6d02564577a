#include "codegen/cuda_threads.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "uops/uop_affine.h"

namespace stitch {

bool CudaThreadPlan::shares(int loop) const {
  return std::find(sharedLoops.begin(), sharedLoops.end(), loop) != sharedLoops.end();
}

bool CudaThreadPlan::sharedLocal(int local) const {
  return std::find(sharedLocals.begin(), sharedLocals.end(), local) != sharedLocals.end();
}

namespace {

class ThreadPlanner {
 public:
  ThreadPlanner(const KernelUOps& kernel, int64_t maxLocalBytes, int maxThreads, int64_t sharedMemoryPerBlock)
      : uops_(kernel.uops.uops()),
        maxLocalBytes_(maxLocalBytes),
        maxThreads_(maxThreads),
        sharedMemoryPerBlock_(sharedMemoryPerBlock),
        end_(uops_.size(), -1) {
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

  CudaThreadPlan plan() {
    int grid = -1;
    for (int id = 0; id < (int)uops_.size(); ++id) {
      const UOp& u = uops_[id];
      if (u.kind == UOpKind::Special) {
        if (grid >= 0) return {};  // a second grid dimension: not handled
        grid = id;
      }
      // Scratch shared by the blocks: a buffer before the grid.
      if (u.kind == UOpKind::DefineLocal && grid < 0) return {};
    }
    if (grid < 0 || end_[grid] != (int)uops_.size()) return {};  // no grid, or code after it
    walk(grid);
    if (plan_.sharedLoops.empty()) return {};
    // Locals the shared loops write or read: the other threads' slots. An
    // arena buffer is one slice per block, in global memory: shared too.
    for (int local : locals_)
      if (touchedBySharedLoop(local) || arena(local)) plan_.sharedLocals.push_back(local);
    // Every thread would store into the one slot: outside the shared loops
    // only a thread's own buffer may be written, or (by thread 0) a global
    // one that nothing in the kernel reads back.
    for (int buffer : redundantStores_) {
      if (plan_.sharedLocal(buffer) || (isGlobal(buffer) && readsWrittenGlobal_)) return {};
      plan_.guardedStores |= isGlobal(buffer);
    }
    // Static shared memory is 48 KiB a block on every architecture. The
    // arena's buffers are all shared by the block's threads (a slice per
    // block): they move to dynamic shared memory, laid out as in the arena,
    // when the block's shared memory then stays within the device's limit.
    int64_t staticBytes = 0, arenaBytes = 0;
    for (int local : plan_.sharedLocals)
      if (!arena(local)) staticBytes += bytes(local);
    for (int id = grid + 1; id < (int)uops_.size(); ++id)
      if (uops_[id].kind == UOpKind::DefineLocal && arena(id))
        arenaBytes = std::max(arenaBytes, uops_[id].arg + bytes(id));
    if (staticBytes > kCudaStaticSharedBytes) return {};
    if (arenaBytes > 0 && staticBytes + arenaBytes <= sharedMemoryPerBlock_) plan_.dynamicSharedBytes = arenaBytes;
    // One shared loop and nothing that passes values between threads: no
    // thread reads what another wrote, so no barrier.
    plan_.barriers =
        plan_.sharedLoops.size() > 1 || !plan_.sharedLocals.empty() || readsWrittenGlobal_ || plan_.guardedStores;
    int64_t threads = 32;
    for (int loop : plan_.sharedLoops)
      threads = std::max<int64_t>(threads, trips(loop) >= maxThreads_ ? maxThreads_ : (trips(loop) + 31) / 32 * 32);
    plan_.threads = (int)std::min<int64_t>(threads, maxThreads_);
    return plan_;
  }

 private:
  // The code directly inside `scope`, run by every thread of the block:
  // its shared loops, its buffers, what it stores into and reads.
  void walk(int scope) {
    for (int id = scope + 1; id < end_[scope]; ++id) {
      const UOp& u = uops_[id];
      switch (u.kind) {
        case UOpKind::Loop:
          if (!independent(id)) {
            walk(id);
          } else if (!shortLoop(id) || !sharesWiderLoopsInside(id)) {
            plan_.sharedLoops.push_back(innermostWide(id));
          }
          id = end_[id];
          break;
        case UOpKind::If:
          walk(id);
          id = end_[id];
          break;
        case UOpKind::Store: redundantStores_.push_back(u.src.at(0)); break;
        case UOpKind::DefineLocal: locals_.push_back(id); break;
        case UOpKind::Load:
          if (isGlobal(u.src.at(0)) && uops_[u.src.at(0)].ival) readsWrittenGlobal_ = true;
          break;
        default: break;
      }
    }
  }

  // Whether the threads do better to run a short independent loop in
  // every thread and share wider loops inside it (a few rows a block,
  // each reduced over lanes: the lanes are the contiguous elements). When
  // not, the walk into it is undone.
  bool sharesWiderLoopsInside(int loop) {
    const size_t loops = plan_.sharedLoops.size(), locals = locals_.size(), stores = redundantStores_.size();
    const bool reads = readsWrittenGlobal_;
    walk(loop);
    if (plan_.sharedLoops.size() > loops) {
      bool wider = false, storesShared = false;
      for (size_t k = loops; k < plan_.sharedLoops.size(); ++k) wider |= trips(plan_.sharedLoops[k]) > trips(loop);
      // A store in every thread into memory they share undoes the plan.
      for (size_t k = stores; k < redundantStores_.size(); ++k) {
        const int buffer = redundantStores_[k];
        storesShared |= (isGlobal(buffer) && readsWrittenGlobal_) || arena(buffer) || touchedBySharedLoop(buffer);
      }
      if (wider && !storesShared) return true;
    }
    plan_.sharedLoops.resize(loops);
    locals_.resize(locals);
    redundantStores_.resize(stores);
    readsWrittenGlobal_ = reads;
    return false;
  }

  // A loop's constant trip count (constant bounds, or hi = lo + c);
  // INT64_MAX when it is not constant.
  int64_t trips(int loop) const {
    const int loId = uops_[loop].src.at(0);
    const UOp &lo = uops_[loId], &hi = uops_[uops_[loop].src.at(1)];
    if (lo.kind == UOpKind::Const && hi.kind == UOpKind::Const) return hi.ival - lo.ival;
    if (hi.kind == UOpKind::Alu && hi.alu == AluOp::Add && hi.src.size() == 2)
      for (int k = 0; k < 2; ++k)
        if (hi.src[k] == loId && uops_[hi.src[1 - k]].kind == UOpKind::Const) return uops_[hi.src[1 - k]].ival;
    return INT64_MAX;
  }

  // Of the nest of independent loops from `loop` down, each the only loop
  // of the one around it with nothing else there but values, the innermost
  // with more than a warp's worth of iterations (else `loop`).
  int innermostWide(int loop) const {
    int chosen = loop;
    for (int scope = loop;;) {
      const int child = onlyLoopIn(scope);
      if (child < 0) break;
      if (independent(child) && !shortLoop(child)) chosen = child;
      scope = child;
    }
    return chosen;
  }

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
  int64_t bytes(int local) const { return uops_[local].ival * (int64_t)dtypeSize(uops_[local].dtype); }
  bool arena(int local) const { return bytes(local) > maxLocalBytes_; }

  bool shortLoop(int loop) const { return trips(loop) <= 32; }

  bool independent(int loop) const {
    for (int id = loop + 1; id < end_[loop]; ++id) {
      const UOp& u = uops_[id];
      switch (u.kind) {
        case UOpKind::Phi:
          if (u.src.at(0) < loop) return false;
          break;
        case UOpKind::DefineLocal:  // the thread's own
          if (arena(id)) return false;
          break;
        case UOpKind::Load:
        case UOpKind::FoldLanes: {
          const int buffer = u.src.at(0);
          if (isGlobal(buffer) && uops_[buffer].ival) return false;
          if (!isGlobal(buffer) && buffer < loop && !readsOwnSlots(loop, buffer, u)) return false;
          break;
        }
        case UOpKind::Store: {
          const int buffer = u.src.at(0);
          if (isGlobal(buffer) && !dependsOn(u.src.at(1), loop)) return false;
          if (!isGlobal(buffer) && buffer < loop && !ownSlot(loop, buffer, u.src.at(1))) return false;
          break;
        }
        default: break;
      }
    }
    return true;
  }

  // The stores into `buffer` (defined outside the loop) inside `loop`.
  std::vector<int> storesInto(int loop, int buffer) const {
    std::vector<int> stores;
    for (int id = loop + 1; id < end_[loop]; ++id)
      if (uops_[id].kind == UOpKind::Store && uops_[id].src.at(0) == buffer) stores.push_back(id);
    return stores;
  }

  // A store at `index` writes a slot no other iteration writes: every store
  // into the buffer in the loop has this one index, c * loop + base.
  bool ownSlot(int loop, int buffer, int index) const {
    std::optional<Affine> a = affine(index, loop);
    if (!a || a->coef == 0) return false;
    for (int store : storesInto(loop, buffer))
      if (affine(uops_[store].src.at(1), loop) != a) return false;
    return true;
  }

  // A read inside the loop of a buffer from outside it sees no other
  // iteration's write: the loop does not write the buffer, or the read is
  // of this iteration's slot, or of slots the loop never writes.
  bool readsOwnSlots(int loop, int buffer, const UOp& read) const {
    const std::vector<int> stores = storesInto(loop, buffer);
    if (stores.empty()) return true;
    if (read.kind != UOpKind::Load) return false;  // a fold reads every lane
    std::optional<Affine> written = affine(uops_[stores.front()].src.at(1), loop);
    std::optional<Affine> slot = affine(read.src.at(1), loop);
    if (!written || !slot) return false;
    if (slot == written) return true;
    if (trips(loop) == INT64_MAX || slot->coef != written->coef || slot->base != written->base) return false;
    const int64_t span = std::abs(written->coef) * std::max<int64_t>(trips(loop), 0);
    return std::abs(slot->offset - written->offset) >= span;
  }

  std::optional<Affine> affine(int id, int loop) const { return affineIn(uops_, id, loop); }

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

  bool touchedBySharedLoop(int local) const {
    for (int loop : plan_.sharedLoops)
      for (int id = loop + 1; id < end_[loop]; ++id) {
        const UOp& u = uops_[id];
        if ((u.kind == UOpKind::Load || u.kind == UOpKind::Store || u.kind == UOpKind::FoldLanes) &&
            u.src.at(0) == local)
          return true;
      }
    return false;
  }

  const std::vector<UOp>& uops_;
  int64_t maxLocalBytes_;
  int maxThreads_;
  int64_t sharedMemoryPerBlock_;
  std::vector<int> end_;  // per LOOP / IF / SPECIAL: its closing uop
  std::vector<int> locals_;  // DEFINE_LOCALs outside the shared loops
  std::vector<int> redundantStores_;  // buffers stored into outside the shared loops
  bool readsWrittenGlobal_ = false;
  CudaThreadPlan plan_;
};

}  // namespace

CudaThreadPlan cudaThreadPlan(const KernelUOps& kernel, int64_t maxLocalBytes, int maxThreads,
                              int64_t sharedMemoryPerBlock) {
  return ThreadPlanner(kernel, maxLocalBytes, maxThreads, sharedMemoryPerBlock).plan();
}

}  // namespace stitch
