// Which iteration dims of a ThreadGraph may share one counted loop. Dims d
// and d+1 merge when every use of IterVar(d) and IterVar(d+1) is affine
// index arithmetic (Add / Sub, Mul by a Const) that reaches Load indices with
// coefficient(d) == coefficient(d+1) * size(d+1) in every such index: then
// the merged loop variable L = i_d * size(d+1) + i_{d+1} enters each index as
// coefficient(d+1) * L, with no division. Size-1 dims always merge.
//
//   x[800,1333,3] + 1 (contiguous)  ->  one loop of 3198600
//   x[64,1000] + m[64,1]            ->  loops [64] [1000] (m's index is i0 * 1)
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "ugraph/kernel_graph.h"

namespace stitch {

// The iteration-variable coefficients of an i64 node that is affine in the
// iteration variables (other terms that do not depend on them are allowed).
struct IterAffine {
  std::map<int, int64_t> coeff;  // iteration dim -> coefficient (absent: 0)
  int64_t coefficient(int dim) const {
    auto it = coeff.find(dim);
    return it == coeff.end() ? 0 : it->second;
  }
};

class IterAffineAnalysis {
 public:
  explicit IterAffineAnalysis(const ThreadGraph& tg);
  // nullopt when the node depends on an iteration variable non-affinely.
  const std::optional<IterAffine>& form(int node) const { return forms_.at(node); }
  // Whether the node depends on IterVar(dim) at all.
  bool dependsOn(int node, int dim) const;
  // Whether dims d and d + 1 may merge into one loop.
  bool canMerge(int d) const;
  // Whether dims p < q may share a loop when every dim between them has
  // size 1: coefficient(p) == coefficient(q) * size(q) in every index.
  bool canMergePair(int p, int q) const;

 private:
  const ThreadGraph& tg_;
  std::vector<std::optional<IterAffine>> forms_;
  std::vector<std::vector<bool>> deps_;  // node -> iteration dims it depends on
};

// The loop nest: runs of mergeable consecutive dims. A rank-0 iteration
// space gives one loop of extent 1 with no dims.
std::vector<LoopDim> mergeLoops(const ThreadGraph& tg);

}  // namespace stitch
