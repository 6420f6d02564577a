#include "uops/reduce_order.h"

#include <algorithm>

namespace stitch {

std::vector<int> outerReduceNodes(const BlockGraph& block, const std::vector<int>& order, int splitLoop,
                                  int64_t chunk) {
  std::vector<int> chosen = columnReduceNodes(block, order);
  if (chosen.empty()) return {};
  const LoopDim& inner = block.loops.at(order.back());
  int64_t locals = order.back() == splitLoop ? std::min(chunk, inner.extent) : inner.extent;
  if (locals < 2 || locals * (int64_t)chosen.size() > kMaxLocalAccumulators) return {};
  return chosen;
}

}  // namespace stitch
