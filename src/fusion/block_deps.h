// Dependences between the nodes of one Block, as fusion sees them: which
// nodes of the block use each node's outputs (a use inside a prim.loop /
// prim.if body counts as a use by that loop / if node) and which outputs
// the block returns.
//
//   %a = mul(%x, %y)
//   %l = prim.list_construct(%a, %b)   a list built only for one kernel op
//   %s = stack(%l, 0)                  is absorbed into that op's kernel, so
//                                      the user of %a is %s, not %l
//
// The list rule mirrors the kernel planner, which folds such a list into the
// kernel of its one user and reads its tensors at the kernel's position.
#pragma once
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"

namespace stitch {

struct BlockDeps {
  const Block* block = nullptr;
  std::vector<const Node*> nodes;                   // program order
  std::unordered_map<const Node*, int> position;    // index into nodes
  // Nodes of the block using a node's outputs (absorbed lists replaced by
  // their user), without duplicates, in program order.
  std::unordered_map<const Node*, std::vector<const Node*>> users;
  // Where those uses stand: (user, position of the node of the block holding
  // the use): an absorbed list's position rather than its user's, since the
  // list is where the value is read in program order.
  std::unordered_map<const Node*, std::vector<std::pair<const Node*, int>>> useSites;
  // The nodes of the block whose outputs a node reads (the inverse of users).
  std::unordered_map<const Node*, std::vector<const Node*>> producers;
  // Nodes with an output among the block's returns.
  std::unordered_set<const Node*> returned;
  // prim.list_construct nodes folded into the kernel op using them.
  std::unordered_set<const Node*> absorbedLists;

  int pos(const Node* n) const { return position.at(n); }
  const std::vector<const Node*>& usersOf(const Node* n) const;
  const std::vector<const Node*>& producersOf(const Node* n) const;
  const std::vector<std::pair<const Node*, int>>& useSitesOf(const Node* n) const;
  bool isReturned(const Node* n) const { return returned.count(n) != 0; }
};

// `kernelOp` says which nodes may run in a kernel (a list is absorbed only
// into such a node).
BlockDeps analyzeBlockDeps(const Block* block, const std::function<bool(const Node*)>& kernelOp);

}  // namespace stitch
