#include "driver/graph_stats.h"

#include "ir/op_registry.h"

namespace stitch {

namespace {

void countBlock(const Block& block, OpCounts& counts) {
  for (Node* node : block) {
    if (node->is("prim.constant")) continue;
    ++counts.ops;
    if (node->schema().isInPlace() || node->schema().isView()) ++counts.mutatingOps;
    for (Block* sub : node->blocks()) countBlock(*sub, counts);
  }
}

}  // namespace

OpCounts countOps(const Graph& graph) {
  OpCounts counts;
  countBlock(*graph.top(), counts);
  return counts;
}

}  // namespace stitch
