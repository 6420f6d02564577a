#include "runtime/value_liveness.h"

#include <algorithm>

#include "common/error.h"

namespace stitch {

namespace {

// The node of `block` that contains `user` (itself, or the loop / if node
// whose sub-blocks hold it); null when `user` is not inside `block`.
const Node* ancestorIn(const Block* block, const Node* user) {
  while (user && user->owningBlock() != block) {
    const Block* owner = user->owningBlock();
    user = owner ? owner->owningNode() : nullptr;
  }
  return user;
}

}  // namespace

ValueLiveness::ValueLiveness(const Graph& graph, const KernelGraph& kernels) {
  for (const Kernel& k : kernels.kernels) {
    for (const Node* n : k.nodes) kernelLast_[n] = k.nodes.back();
    // A kernel may read values none of its nodes uses (the tensors of a
    // list built by a host op): they are read when the kernel runs.
    for (const Value* v : k.inputs) kernelReads_[v].push_back(k.nodes.back());
    for (const Value* v : k.params) kernelReads_[v].push_back(k.nodes.back());
  }
  analyze(graph.top());
}

const BlockLiveness& ValueLiveness::of(const Block* block) const {
  auto it = blocks_.find(block);
  STITCH_ASSERT(it != blocks_.end(), "no liveness for a block");
  return it->second;
}

void ValueLiveness::analyze(const Block* block) {
  std::unordered_map<const Node*, int> index;
  std::vector<const Node*> nodes;
  for (const Node* n : *block) {
    index[n] = (int)nodes.size();
    nodes.push_back(n);
  }
  const int end = (int)nodes.size();
  auto position = [&](const Node* n) {
    auto k = kernelLast_.find(n);
    return index.at(k == kernelLast_.end() ? n : k->second);
  };
  // -1: a param; end: used by the block's returns.
  auto lastUse = [&](const Value* v, int defined) {
    int last = defined;
    for (const Use& use : v->uses()) {
      if (use.user == block->returnNode()) return end;
      const Node* at = ancestorIn(block, use.user);
      STITCH_ASSERT(at, "value %", v->debugName(), " used outside the block that defines it");
      if (at == block->returnNode()) return end;
      last = std::max(last, position(at));
    }
    auto reads = kernelReads_.find(v);
    if (reads != kernelReads_.end())
      for (const Node* kernelEnd : reads->second) {
        const Node* at = ancestorIn(block, kernelEnd);
        STITCH_ASSERT(at, "value %", v->debugName(), " read by a kernel outside the block that defines it");
        last = std::max(last, position(at));
      }
    return last;
  };

  BlockLiveness& live = blocks_[block];
  live.dropAfter.resize(nodes.size());
  auto place = [&](const Value* v, int last) {
    if (last < 0)
      live.unusedParams.push_back(v);
    else if (last >= end)
      live.dropAtEnd.push_back(v);
    else
      live.dropAfter[last].push_back(v);
  };
  for (const Value* p : block->params()) place(p, lastUse(p, -1));
  for (const Node* n : nodes) {
    for (const Value* out : n->outputs()) place(out, lastUse(out, position(n)));
    for (const Block* sub : n->blocks()) analyze(sub);
  }
}

}  // namespace stitch
