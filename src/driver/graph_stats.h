// Op counts of a graph, reported per stage by `stitch run --json`.
#pragma once
#include <cstdint>

#include "ir/graph.h"

namespace stitch {

struct OpCounts {
  int64_t ops = 0;          // every node in every block, constants excluded
  // In-place ops (copy_, add_, ...: they write a tensor) and view ops
  // (select, slice, view, ...: their result aliases their input). Zero once
  // the graph is functional: immut.* ops make new values.
  int64_t mutatingOps = 0;
};

OpCounts countOps(const Graph& graph);

}  // namespace stitch
