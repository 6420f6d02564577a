// Naive loop nests that define what a TensorOperation and an einsum compute;
// the tests compare the JIT path against them.
#pragma once
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "stitch/tensorop.h"
#include "tensorop/reference.h"

namespace stitch::tensorop::testing {

// Visits every multi-index of `sizes` (last index fastest).
template <class F>
void forEachIndex(const std::vector<int64_t>& sizes, F f) {
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t s : sizes)
    if (s == 0) return;
  while (true) {
    f(idx);
    size_t d = sizes.size();
    while (d > 0) {
      --d;
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (sizes.empty()) return;
  }
}

inline int64_t offset(const std::vector<int64_t>& idx, const std::vector<int64_t>& strides) {
  int64_t o = 0;
  for (size_t i = 0; i < idx.size(); ++i) o += idx[i] * strides[i];
  return o;
}

// out = last(first(out) + sum in0*in1) for contractions, out = op(in0[, in1])
// otherwise, over the whole iteration space.
inline void naiveTensorOperation(ptype_t first, ptype_t main, ptype_t last,
                                 const std::vector<int64_t>& sizes,
                                 const std::vector<int64_t>& s0,
                                 const std::vector<int64_t>& s1,
                                 const std::vector<int64_t>& so, const float* in0,
                                 const float* in1, float* out) {
  if (isContraction(main)) {
    std::map<int64_t, double> acc;
    forEachIndex(sizes, [&](const std::vector<int64_t>& idx) {
      const int64_t o = offset(idx, so);
      if (!acc.count(o))
        acc[o] = first == ptype_t::none ? out[o] : reference::unaryScalar(first, out[o]);
      acc[o] += double(in0[offset(idx, s0)]) * double(in1[offset(idx, s1)]);
    });
    for (auto& [o, v] : acc)
      out[o] = last == ptype_t::none ? float(v) : reference::unaryScalar(last, float(v));
    return;
  }
  forEachIndex(sizes, [&](const std::vector<int64_t>& idx) {
    const int64_t o = offset(idx, so);
    float v = isUnary(main)
                  ? reference::unaryScalar(main, in0[offset(idx, s0)])
                  : reference::binaryScalar(main, in0[offset(idx, s0)], in1[offset(idx, s1)]);
    if (first != ptype_t::none) v = reference::unaryScalar(first, v);
    if (last != ptype_t::none) v = reference::unaryScalar(last, v);
    out[o] = v;
  });
}

// out[outDims] = sum over the other dims of prod inputs[i][inputDims[i]];
// every tensor is dense row-major.
inline std::vector<float> naiveEinsum(const std::vector<std::vector<std::string>>& inputDims,
                                      const std::vector<std::string>& outDims,
                                      const std::map<std::string, int64_t>& sizes,
                                      const std::vector<std::vector<float>>& inputs) {
  // Only the dims the expression uses; `sizes` may name more.
  std::vector<std::string> all;
  for (const auto& dims : inputDims)
    for (const auto& d : dims)
      if (std::find(all.begin(), all.end(), d) == all.end()) all.push_back(d);
  std::vector<int64_t> extents;
  for (const auto& d : all) extents.push_back(sizes.at(d));
  auto stridesOf = [&](const std::vector<std::string>& dims) {
    std::vector<int64_t> s(all.size(), 0);
    int64_t stride = 1;
    for (size_t i = dims.size(); i-- > 0;) {
      const size_t pos = std::find(all.begin(), all.end(), dims[i]) - all.begin();
      s[pos] = stride;
      stride *= sizes.at(dims[i]);
    }
    return s;
  };
  std::vector<std::vector<int64_t>> inStrides;
  for (const auto& dims : inputDims) inStrides.push_back(stridesOf(dims));
  const auto outStrides = stridesOf(outDims);
  int64_t outN = 1;
  for (const auto& d : outDims) outN *= sizes.at(d);
  std::vector<double> acc(size_t(outN), 0.0);
  forEachIndex(extents, [&](const std::vector<int64_t>& idx) {
    double p = 1;
    for (size_t i = 0; i < inputs.size(); ++i) p *= inputs[i][offset(idx, inStrides[i])];
    acc[offset(idx, outStrides)] += p;
  });
  return std::vector<float>(acc.begin(), acc.end());
}

}  // namespace stitch::tensorop::testing
