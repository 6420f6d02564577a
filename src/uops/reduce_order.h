// Loop order of a reduction: whether a kernel's reduce loops should run
// outside its innermost output loop (the analysis lives with the grid
// schedule, ugraph/block_graph_builder.h, since the grid's block extent
// depends on it). Each element still accumulates in the same order, so
// results are unchanged bit for bit.
#pragma once
#include <cstdint>
#include <vector>

#include "ugraph/block_graph_builder.h"
#include "ugraph/kernel_graph.h"

namespace stitch {

// The Reduce nodes (in program order) whose loops should go outside the
// innermost output loop (order.back()), or none to keep the plain order
// (reduce loops innermost): columnReduceNodes, when the block's
// accumulators fit kMaxLocalAccumulators. The grid splits loop `splitLoop`
// in chunks of `chunk` iterations.
std::vector<int> outerReduceNodes(const BlockGraph& block, const std::vector<int>& order, int splitLoop,
                                  int64_t chunk);

}  // namespace stitch
