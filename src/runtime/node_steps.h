// What a run does at each node of a compiled program, decided once per
// program (runtime/executable.h): a loop of small kernels runs the same
// nodes every iteration, and deciding again was string compares, map
// lookups and a search of the op registry by name. Also decided here:
// which assigns may write into their dying base (runtime/in_place_assign.h),
// which loop-carried values move into their loop, and which list appends
// may append in place.
#pragma once
#include <unordered_map>
#include <vector>

#include "interp/ivalue.h"
#include "ir/graph.h"
#include "runtime/host_ops.h"
#include "runtime/in_place_assign.h"
#include "runtime/value_liveness.h"
#include "ugraph/kernel_graph.h"

namespace stitch {

// What a run does at a node.
struct NodeStep {
  enum class Action : uint8_t { Constant, Kernel, InKernel, Loop, If, Nothing, Host };
  Action action = Action::Host;
  int kernel = -1;                       // Kernel: its index in the kernel graph
  bool mayAssignInPlace = false;         // an assign that may write into its dead base first
  const ViewKernel* view = nullptr;      // then: inPlaceView (null for immut.assign)
  IValue constant;                       // Constant (never a tensor: a run may hand it out)
  HostOp host;                           // Host
  // list.append whose list is read by nothing after it: the run may append
  // in place when no other value holds the list (a loop appending one
  // element per step would otherwise copy the whole list every step).
  bool appendsInPlace = false;
};

class ProgramSteps {
 public:
  ProgramSteps(const Graph& graph, const KernelGraph& kernels, const ValueLiveness& liveness);

  // One per node of `block`, in order.
  const std::vector<NodeStep>& of(const Block* block) const { return steps_.at(block); }
  // Per input of a prim.loop: whether the initial carried value moves into
  // the loop (the first iteration then holds the only reference).
  const std::vector<bool>& movedCarries(const Node* loop) const { return movedCarries_.at(loop); }

 private:
  void findInPlaceAssigns(const Block* block);
  void findMovedCarries(const Node* loop, const std::vector<const Value*>& dying);
  void planSteps(const Block* block);
  bool lastReadAt(const Value* v, const Node* node) const;
  static bool isInside(const Node* node, const Node* outer);

  const KernelGraph& kernels_;
  const ValueLiveness& liveness_;
  std::unordered_map<const Node*, const ViewKernel*> inPlaceAssigns_;  // -> inPlaceView
  std::unordered_map<const Node*, std::vector<bool>> movedCarries_;
  std::unordered_map<const Block*, std::vector<NodeStep>> steps_;  // per block, one per node
};

}  // namespace stitch
