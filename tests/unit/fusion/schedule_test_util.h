// Harness for schedule tests: a program is specialized, functionalized and
// simplified as the driver does; its tensor ops form one group (the last
// one is the root). checkBlocksIndependent verifies a propagated schedule
// on fresh random inputs: block b's part of the root must not change when
// every input element outside b's part of that input is replaced.
#pragma once
#include <gtest/gtest.h>

#include "../passes/functionalize_test_util.h"
#include "fusion/schedule_ops.h"
#include "fusion/schedule_propagation.h"
#include "fusion/schedule_tuning.h"
#include "passes/canonicalize.h"
#include "passes/constant_folding.h"
#include "passes/cse.h"
#include "passes/dce.h"

namespace stitch::schedule_test {

using functionalize_test::F;
using functionalize_test::I;
using functionalize_test::Program;
using functionalize_test::T;

using functionalize_test::simplifiedGraph;

// The top block's ops with one tensor output, in program order.
inline std::vector<const Node*> tensorOps(const Graph& g) {
  std::vector<const Node*> out;
  for (const Node* n : *g.top())
    if (n->outputs().size() == 1 && n->output()->type()->isTensor() && !n->is("prim.constant")) out.push_back(n);
  return out;
}

inline const Node* findOp(const Graph& g, const std::string& kind, int nth = 0) {
  for (const Node* n : *g.top())
    if (n->kind() == kind && nth-- == 0) return n;
  ADD_FAILURE() << "no " << kind << " in\n" << printGraph(g);
  return nullptr;
}

inline Partition P(int dim, int64_t sword) { return Partition{dim, sword, SchedType::Row}; }

// One row of the table: "illegal" or the inputs' partitions, comma separated.
inline std::string row(const Node* n, const Partition& out) {
  if (!n) return "no node";
  auto ins = propagateThrough(*n, out);
  if (!ins) return "illegal";
  std::string s;
  for (size_t i = 0; i < ins->size(); ++i) {
    if (i) s += ", ";
    s += partitionStr((*ins)[i]);
  }
  return s;
}

// Lines "%name: partition" for the map's values, in the graph's order.
inline std::string mapText(const Graph& g, const PartitionMap& map) {
  std::string s;
  auto line = [&](const Value* v) {
    auto it = map.find(v);
    if (it == map.end()) return;
    s += '%';
    s += printedName(*v);
    s += ": ";
    s += partitionStr(it->second);
    s += '\n';
  };
  for (const Value* v : g.inputs()) line(v);
  for (const Node* n : *g.top())
    for (const Value* v : n->outputs()) line(v);
  return s;
}

inline int64_t indexAlong(const Tensor& t, int64_t flat, int64_t dim) {
  int64_t inner = 1;
  for (size_t k = dim + 1; k < t.sizes().size(); ++k) inner *= t.sizes()[k];
  return flat / inner % t.sizes()[dim];
}

inline bool inBlock(const Tensor& t, int64_t flat, const Partition& p, int64_t block) {
  if (p.splitDim == kWhole || p.sword <= 1) return true;
  if (p.ranged()) {
    int64_t first = block * p.extent - p.offset, row = indexAlong(t, flat, p.splitDim);
    return row >= first && row < first + p.extent;
  }
  int64_t chunk = t.sizes()[p.splitDim] / p.sword;
  return indexAlong(t, flat, p.splitDim) / chunk == block;
}

// The graph's single output under a Row schedule: each block's part depends
// only on the inputs' parts the map names for that block.
inline void checkBlocksIndependent(const Program& p, const Graph& g, const Schedule& s, const PartitionMap& map) {
  SCOPED_TRACE(scheduleStr(s));
  IValueList inputs = functionalize_test::randomInputs(p);
  IValueList expected = interpret(g, inputs);
  ASSERT_EQ(expected.size(), 1u);
  Tensor want = expected[0].toTensor().contiguous();
  Partition rootPart{s.splitDim, s.sword, SchedType::Row};
  for (int64_t b = 0; b < s.sword; ++b) {
    IValueList changed;
    for (size_t i = 0; i < inputs.size(); ++i) {
      IValue v = functionalize_test::deepCopy(inputs[i]);
      auto it = map.find(g.inputs()[i]);
      if (v.isTensor() && it != map.end()) {
        Tensor t = v.toTensor();
        for (int64_t k = 0; k < t.numel(); ++k)
          if (!inBlock(t, k, it->second, b)) t.setDouble(k, 1000.0 + (double)(k % 7));
      }
      changed.push_back(v);
    }
    Tensor got = interpret(g, changed)[0].toTensor().contiguous();
    for (int64_t k = 0; k < want.numel(); ++k) {
      if (!inBlock(want, k, rootPart, b)) continue;
      ASSERT_EQ(want.getDouble(k), got.getDouble(k)) << "block " << b << " element " << k;
    }
  }
}

}  // namespace stitch::schedule_test
