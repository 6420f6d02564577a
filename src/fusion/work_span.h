// Work/span analysis of one Block (FusionStitching): the span of a node is
// its depth from the block's roots, the longest chain of uses from it to a
// node whose value no node of the block uses (it is returned, or used by
// nothing). Nodes of equal span form a layer; a layer holds no two
// nodes where one uses the other, so walking layers from span 0 upwards
// visits every consumer before its producers.
//
//   %e = exp(%x)          span 2   (%e -> %s -> %o)
//   %s = sum(%e, [1])     span 1
//   %o = div(%e, %s)      span 0   (returned)
//
// Spans count every node of the block on the chain (a host op between two
// kernel ops still orders them); the layers list the selected nodes only.
#pragma once
#include <functional>
#include <unordered_map>
#include <vector>

#include "fusion/block_deps.h"

namespace stitch {

struct WorkSpan {
  std::unordered_map<const Node*, int> span;     // every node of the block
  std::vector<std::vector<const Node*>> layers;  // layers[s]: selected nodes of span s, program order
  int work = 0;                                  // selected nodes
};

WorkSpan analyzeWorkSpan(const BlockDeps& deps, const std::function<bool(const Node*)>& selected);

}  // namespace stitch
