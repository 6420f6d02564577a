// When each value of a graph dies, so the runtime can drop its reference
// (and a kernel buffer nobody else holds goes back to the pool) as early as
// possible.
//
// Per block, a value defined there (a block param or a node output) dies
// after the last node of that block that uses it, directly or from inside
// the node's sub-blocks; a value the block returns dies after the returns are
// read. Nodes that belong to a kernel count at the kernel's position (its
// last node), since that is when the runtime reads their inputs and binds
// their outputs; so do the kernel's inputs and params themselves (a kernel
// reads the tensors of a list that a host op built, which none of its own
// nodes uses).
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "ugraph/kernel_graph.h"

namespace stitch {

struct BlockLiveness {
  std::vector<const Value*> unusedParams;              // dead on arrival
  std::vector<std::vector<const Value*>> dropAfter;    // per node index
  std::vector<const Value*> dropAtEnd;                 // after the returns are read
};

class ValueLiveness {
 public:
  ValueLiveness(const Graph& graph, const KernelGraph& kernels);
  const BlockLiveness& of(const Block* block) const;

 private:
  void analyze(const Block* block);
  std::unordered_map<const Block*, BlockLiveness> blocks_;
  std::unordered_map<const Node*, const Node*> kernelLast_;  // node -> its kernel's last node
  std::unordered_map<const Value*, std::vector<const Node*>> kernelReads_;  // value -> last nodes of kernels reading it
};

}  // namespace stitch
