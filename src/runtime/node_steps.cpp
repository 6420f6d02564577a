#include "runtime/node_steps.h"

#include <algorithm>

namespace stitch {

ProgramSteps::ProgramSteps(const Graph& graph, const KernelGraph& kernels, const ValueLiveness& liveness)
    : kernels_(kernels), liveness_(liveness) {
  findInPlaceAssigns(graph.top());
  planSteps(graph.top());
}

// Assign ops whose base value dies at them (and that are not part of a
// larger kernel): candidates for writing into the base (in_place_assign.h).
void ProgramSteps::findInPlaceAssigns(const Block* block) {
  const BlockLiveness& live = liveness_.of(block);
  size_t index = 0;
  for (const Node* node : *block) {
    for (const Block* sub : node->blocks()) findInPlaceAssigns(sub);
    const std::vector<const Value*>& dying = live.dropAfter.at(index++);
    if (node->is("prim.loop")) findMovedCarries(node, dying);
    if (!isInPlaceAssignOp(*node)) continue;
    if (std::find(dying.begin(), dying.end(), node->input(0)) == dying.end()) continue;
    auto at = kernels_.kernelAt.find(node);
    bool alone = at != kernels_.kernelAt.end()
                     ? kernels_.kernels[at->second].nodes.size() == 1
                     : !kernels_.inKernel.count(node);
    if (alone) inPlaceAssigns_.emplace(node, inPlaceView(*node));
  }
}

// Initial loop-carried values that die at their loop are moved into it,
// so the first iteration holds the only reference too. A value passed
// twice, or also read directly inside the loop, is copied.
void ProgramSteps::findMovedCarries(const Node* loop, const std::vector<const Value*>& dying) {
  const std::vector<Value*>& ins = loop->inputs();
  std::vector<bool> move(ins.size(), false);
  for (size_t i = 2; i < ins.size(); ++i) {
    const Value* v = ins[i];
    move[i] = std::count(ins.begin(), ins.end(), v) == 1 &&
              std::find(dying.begin(), dying.end(), v) != dying.end() &&
              std::none_of(v->uses().begin(), v->uses().end(),
                           [&](const Use& u) { return isInside(u.user, loop); });
  }
  movedCarries_[loop] = std::move(move);
}

void ProgramSteps::planSteps(const Block* block) {
  std::vector<NodeStep>& steps = steps_[block];
  for (const Node* node : *block) {
    for (const Block* sub : node->blocks()) planSteps(sub);
    NodeStep& step = steps.emplace_back();
    using A = NodeStep::Action;
    auto inPlace = inPlaceAssigns_.find(node);
    if (inPlace != inPlaceAssigns_.end()) {
      step.mayAssignInPlace = true;
      step.view = inPlace->second;
    }
    auto at = kernels_.kernelAt.find(node);
    if (at != kernels_.kernelAt.end()) step.kernel = at->second;
    if (node->is("prim.constant")) {
      step.action = A::Constant;
      step.constant = IValue::fromConstant(node->attr("value"));
      STITCH_ASSERT(!step.constant.isTensor(), "a constant tensor would be shared by every run");
    } else if (step.kernel >= 0) {
      step.action = A::Kernel;
    } else if (kernels_.inKernel.count(node)) {
      step.action = A::InKernel;
    } else if (node->is("prim.loop")) {
      step.action = A::Loop;
    } else if (node->is("prim.if")) {
      step.action = A::If;
    } else if (node->is("tssa.update")) {
      step.action = A::Nothing;
    } else {
      step.host = findHostOp(*node);
      step.appendsInPlace = node->is("list.append") && lastReadAt(node->input(0), node);
    }
  }
}

// Whether `node` is the last reader of `v` in any run: no loop around
// `node` repeats it without also defining `v` anew, no node after it
// reads `v`, and no kernel does (a kernel reads its inputs at its last
// node, wherever its other nodes sit).
bool ProgramSteps::lastReadAt(const Value* v, const Node* node) const {
  const Block* home = v->node()->owningBlock();
  for (const Node* n = node; n && n->owningBlock() != home; n = n->owningNode())
    if (n->owningNode() && n->owningNode()->is("prim.loop")) return false;
  int readers = 0;
  for (const Use& u : v->uses()) {
    if (u.user == node) {
      ++readers;
      continue;
    }
    if (kernels_.kernelAt.count(u.user) || kernels_.inKernel.count(u.user)) return false;
    if (node->isBefore(u.user)) return false;
  }
  return readers == 1;
}

bool ProgramSteps::isInside(const Node* node, const Node* outer) {
  for (const Node* n = node->owningNode(); n; n = n->owningNode())
    if (n == outer) return true;
  return false;
}

}  // namespace stitch
