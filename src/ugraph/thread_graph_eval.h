// A slow reference evaluator of a graph-defined kernel's ThreadGraph on host
// buffers: every output element is computed by walking the graph, with the
// element semantics of alu_op.h (float ops in the node's own precision,
// integer ops wrapping, Python floor division, NaN-propagating max / min).
// Used by the unit tests to check each lowering against the interpreter
// without a C compiler, and handy for debugging generated kernels.
#pragma once
#include <cstdint>
#include <vector>

#include "ugraph/kernel_graph.h"

namespace stitch {

// A dense row-major buffer of `numel` elements of `dtype` (bool: one byte).
struct HostBuffer {
  void* data = nullptr;
  DType dtype = DType::f32;
  int64_t numel = 0;
};

// One kernel parameter: ints and bools in i, floats in f.
struct HostScalar {
  int64_t i = 0;
  double f = 0;
};

// Computes every element of kernel's outputs (buffers sized to the kernel's
// output shapes) from its inputs and params, slot by slot.
void evaluateThreadGraph(const Kernel& kernel, const std::vector<HostBuffer>& outputs,
                         const std::vector<HostBuffer>& inputs, const std::vector<HostScalar>& params);

}  // namespace stitch
