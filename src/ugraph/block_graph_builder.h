// Builds a graph-defined kernel from a group of nodes: the ThreadGraph over
// the outputs' shape (each output stored converted to its dtype), the loop
// nest (loop_merging.h), the grid split of the outermost loop and the
// imap / omap of every input and output.
#pragma once
#include <unordered_set>
#include <vector>

#include "ugraph/kernel_graph.h"

namespace stitch {

// Fills kernel.inputs, kernel.params and kernel.block; kernel.nodes and
// kernel.outputs (all of one shape) must be set.
void buildBlockGraph(Kernel& kernel);

// A block should do at least this many element iterations (inner loop
// extents times reduce extents), so that scheduling one block costs little
// against its work.
constexpr int64_t kMinBlockIterations = 16384;

// Grid and block extent for the outermost loop: blocks of `blockExtent`
// iterations of loops[0], independent of the thread count.
void scheduleGrid(BlockGraph& block);

}  // namespace stitch
