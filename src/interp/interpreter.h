// The reference interpreter: runs any Graph IR (imperative or pure) directly
// on strided, aliasing tensors. It is the correctness oracle at every stage.
#pragma once
#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch {

struct InterpOptions {
  int threads = 0;  // 0: leave OpenMP's default
};

// Runs graph on inputs (one per graph input). Returns one value per graph
// output. Inputs that the program writes in place are written in place (the
// caller's tensors see the writes, as under PyTorch). Throws UserError /
// RuntimeFailure with the failing node's location.
IValueList interpret(const Graph& graph, const IValueList& inputs, const InterpOptions& options = {});

}  // namespace stitch
