// The readable dump of a KernelGraph (`stitch dump --stage ugraph`): per
// kernel its name and kind, the nodes of its group, its outputs / inputs /
// params with types and Mirage maps, the grid, loops and the thread graph.
//
//   kernel k1 block: %4=sub %e=exp
//     out0 %e : f32[64,1000] omap {x->0}
//     in0 %x : f32[64,1000] imap {x->0}
//     in1 %row_max : f32[64,1] imap {x->0}
//     grid (4) blockExtent 17 loops [0]<64> [1]<1000>
//     thread graph over [64,1000]:
//       %0 = IterVar 0 : i64
//       ...
//       store out0 <- %10
//
// Maps name the tensor dim a grid dim splits, or phi (replicated).
#pragma once
#include <string>

#include "ugraph/kernel_graph.h"

namespace stitch {

std::string printKernelGraph(const KernelGraph& graph);

}  // namespace stitch
