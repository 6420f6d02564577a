// Graph-defined kernels written by hand, for the tests of the linearizer and
// of the renderer on its output.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"
#include "random.h"
#include "ugraph/kernel_graph.h"

namespace stitch::testing {

// A kernel over `iterShape`; its outputs, inputs and params are fresh graph
// inputs of the given types (the linearizer reads only their types).
struct KernelSpec {
  Graph graph;
  Kernel kernel;
  explicit KernelSpec(std::vector<int64_t> iterShape, std::string name = "k0") {
    kernel.name = std::move(name);
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
  // Loop nest: consecutive groups of iteration dims; the grid splits loops[0]
  // into blocks of blockExtent.
  void loops(const std::vector<std::vector<int>>& groups, int64_t blockExtent) {
    for (const auto& dims : groups) {
      LoopDim l;
      l.iterDims = dims;
      for (int d : dims) l.extent *= tg().iterShape()[d];
      kernel.block.loops.push_back(l);
    }
    kernel.block.blockExtent = blockExtent;
    int64_t first = kernel.block.loops[0].extent;
    kernel.block.grid = {(first + blockExtent - 1) / blockExtent};
  }
  // The loop nest `groups` with a random block extent (1 to all of loops[0]).
  void randomBlockLoops(const std::vector<std::vector<int>>& groups) {
    int64_t first = 1;
    for (int d : groups[0]) first *= tg().iterShape()[d];
    loops(groups, randInt(1, first));
  }
  std::vector<int> iterVars() {
    std::vector<int> v;
    for (size_t d = 0; d < tg().iterShape().size(); ++d) v.push_back(tg().iterVar((int)d));
    return v;
  }
};

// Random consecutive groups of dims 0..rank-1 (at least one group).
inline std::vector<std::vector<int>> randomGroups(int rank) {
  std::vector<std::vector<int>> groups(1);
  for (int d = 0; d < rank; ++d) {
    if (d > 0 && randInt(0, 1)) groups.emplace_back();
    groups.back().push_back(d);
  }
  return groups;
}

inline int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

inline std::string shapeStr(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ",";
    r += std::to_string(s[i]);
  }
  return r + "]";
}

}  // namespace stitch::testing
