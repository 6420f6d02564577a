// Loop order of a reduction: whether a kernel's reduce loops should run
// outside its innermost output loop. A column reduction (out[j] = sum_i
// x[i, j]) walks memory with stride along its reduce variable but
// contiguously along the output dim; with the reduce loops outermost and
// one accumulator per inner output element (a block-local array), the
// innermost loop reads contiguously and the C compiler can vectorize it.
// Each element still accumulates in the same order, so results are
// unchanged bit for bit.
#pragma once
#include <cstdint>
#include <vector>

#include "ugraph/kernel_graph.h"

namespace stitch {

// Accumulators per block-local array at most (the array lives on the stack).
constexpr int64_t kMaxLocalAccumulators = 4096;
// Reduce iterations per element from which a reduction's result is worth
// keeping across an inner loop (see outputLoopOrder).
constexpr int64_t kMinReuseWork = 16;

// The order in which to nest the output loops (indices into block.loops,
// outer to inner). Every order computes the same elements; by default the
// loops' own. When a reduction does not depend on some output loop (softmax
// over dim 0: the sums depend on the column only), that loop goes inside
// the ones it depends on, so the reduction runs once per value of the
// loops it depends on instead of once per element.
std::vector<int> outputLoopOrder(const BlockGraph& block);

// The Reduce nodes (in program order) whose loops should go outside the
// innermost output loop (order.back()), or none to keep the plain order
// (reduce loops innermost). The grid splits loop `splitLoop` in chunks of
// `chunk` iterations.
std::vector<int> outerReduceNodes(const BlockGraph& block, const std::vector<int>& order, int splitLoop,
                                  int64_t chunk);

}  // namespace stitch
