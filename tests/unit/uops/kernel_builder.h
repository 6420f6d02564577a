// Hand-built graph-defined kernels for linearizer tests.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ugraph/kernel_graph.h"

namespace stitch::testing {

// A kernel over values of `graph`: outputs and inputs are fresh graph inputs
// of the given shapes (the linearizer only reads their types).
struct KernelBuilder {
  Graph graph;
  Kernel kernel;
  explicit KernelBuilder(std::vector<int64_t> iterShape) {
    kernel.name = "k0";
    kernel.block.thread = ThreadGraph(std::move(iterShape));
  }
  ThreadGraph& tg() { return kernel.block.thread; }
  void output(DType dt, std::vector<int64_t> shape) {
    kernel.outputs.push_back(graph.addInput(Type::tensor(dt, std::move(shape))));
  }
  void input(DType dt, std::vector<int64_t> shape) {
    kernel.inputs.push_back(graph.addInput(Type::tensor(dt, std::move(shape))));
  }
  void param(TypePtr t) { kernel.params.push_back(graph.addInput(std::move(t))); }
  // Loop nest: groups of iteration dims; grid over loops[0] in blocks of blockExtent.
  void loops(const std::vector<std::vector<int>>& groups, int64_t blockExtent) {
    const auto& shape = tg().iterShape();
    for (const auto& gdims : groups) {
      LoopDim l;
      l.iterDims = gdims;
      for (int d : gdims) l.extent *= shape[d];
      kernel.block.loops.push_back(l);
    }
    kernel.block.blockExtent = blockExtent;
    int64_t e0 = kernel.block.loops[0].extent;
    kernel.block.grid = {(e0 + blockExtent - 1) / blockExtent};
  }
  std::vector<int> iterVars() {
    std::vector<int> v;
    for (size_t d = 0; d < tg().iterShape().size(); ++d) v.push_back(tg().iterVar((int)d));
    return v;
  }
};

inline std::string shapeStr(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ",";
    r += std::to_string(s[i]);
  }
  return r + "]";
}

}  // namespace stitch::testing
