// The reference interpreter: runs any Graph IR (imperative or pure) directly
// on strided, aliasing tensors. It is the correctness oracle at every stage.
#pragma once
#include <functional>

#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch {

struct InterpOptions {
  int threads = 0;  // 0: leave OpenMP's default
};

// TorchScript's loop protocol, shared by every walker of the IR: runs
// `body` (params: iteration, carried...; returns: cond, carried...) while
// iter < maxTrip and cond holds, and returns the final carried values.
IValueList runLoopIterations(int64_t maxTrip, bool cond, IValueList carried,
                             const std::function<IValueList(IValueList params)>& body);

// Runs graph on inputs (one per graph input). Returns one value per graph
// output. Inputs that the program writes in place are written in place (the
// caller's tensors see the writes, as under PyTorch). Throws UserError /
// RuntimeFailure with the failing node's location.
IValueList interpret(const Graph& graph, const IValueList& inputs, const InterpOptions& options = {});

}  // namespace stitch
