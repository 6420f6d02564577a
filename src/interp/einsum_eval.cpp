#include "interp/einsum_eval.h"

#include <algorithm>

#include "interp/matmul_ops.h"
#include "interp/reduce_ops.h"
#include "ir/einsum_spec.h"

namespace stitch {

namespace {

// A tensor whose dims carry einsum labels, one distinct label per dim.
struct Labeled {
  Tensor t;
  std::vector<int> labels;
  bool has(int l) const { return std::find(labels.begin(), labels.end(), l) != labels.end(); }
  int64_t dimOf(int l) const { return std::find(labels.begin(), labels.end(), l) - labels.begin(); }
};

// Merges repeated labels into one diagonal dim (strides add up) and
// broadcasts size-1 dims to the label's size (stride 0).
Labeled diagonalAndBroadcast(const Tensor& t, const std::vector<int>& labels,
                             const std::vector<int64_t>& labelSizes) {
  Labeled out;
  Shape sizes, strides;
  for (size_t d = 0; d < labels.size(); ++d) {
    int64_t at = out.dimOf(labels[d]);
    if (at < (int64_t)out.labels.size()) {
      strides[at] += t.stride((int64_t)d);
      continue;
    }
    out.labels.push_back(labels[d]);
    sizes.push_back(t.size((int64_t)d));
    strides.push_back(t.stride((int64_t)d));
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t full = labelSizes[out.labels[d]];
    if (sizes[d] == 1 && full != 1) {
      sizes[d] = full;
      strides[d] = 0;
    }
  }
  out.t = t.asStrided(sizes, strides, t.offset());
  return out;
}

// Sums away every label of x not in `keep`.
Labeled sumAway(const Labeled& x, const std::vector<bool>& keep) {
  std::vector<int64_t> dims;
  Labeled out;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (keep[x.labels[d]]) {
      out.labels.push_back(x.labels[d]);
      continue;
    }
    dims.push_back((int64_t)d);
  }
  if (dims.empty()) return x;
  out.t = reduceSum(x.t, dims, false, x.t.dtype());
  return out;
}

Tensor permuted(const Tensor& t, const std::vector<int64_t>& order) {
  Shape sizes, strides;
  for (int64_t d : order) {
    sizes.push_back(t.size(d));
    strides.push_back(t.stride(d));
  }
  return t.asStrided(sizes, strides, t.offset());
}

// The labels' dims of x, in the given label order.
std::vector<int64_t> dimsOf(const Labeled& x, const std::vector<int>& labels) {
  std::vector<int64_t> dims;
  for (int l : labels) dims.push_back(x.dimOf(l));
  return dims;
}

int64_t productOfSizes(const Labeled& x, const std::vector<int>& labels) {
  int64_t n = 1;
  for (int l : labels) n *= x.t.size(x.dimOf(l));
  return n;
}

// x's dims permuted to the concatenation of the label groups, made
// contiguous and viewed as [group0 size, group1 size, group2 size].
Tensor asBatchedMatrix(const Labeled& x, const std::vector<int>& g0, const std::vector<int>& g1,
                       const std::vector<int>& g2) {
  std::vector<int64_t> order = dimsOf(x, g0);
  for (const auto* g : {&g1, &g2}) {
    std::vector<int64_t> more = dimsOf(x, *g);
    order.insert(order.end(), more.begin(), more.end());
  }
  Tensor c = permuted(x.t, order).contiguous();
  Shape shape = {productOfSizes(x, g0), productOfSizes(x, g1), productOfSizes(x, g2)};
  return c.asStrided(shape, contiguousStrides(shape), c.offset());
}

// Contracts a and b over their shared labels not in `keep`; shared labels in
// `keep` become batch dims. Result labels: batch, a's own, b's own.
Labeled contractPair(const Labeled& a, const Labeled& b, const std::vector<bool>& keep) {
  std::vector<int> batch, summed, aOwn, bOwn;
  for (int l : a.labels) {
    if (!b.has(l))
      aOwn.push_back(l);
    else if (keep[l])
      batch.push_back(l);
    else
      summed.push_back(l);
  }
  for (int l : b.labels)
    if (!a.has(l)) bOwn.push_back(l);
  Tensor am = asBatchedMatrix(a, batch, aOwn, summed);
  Tensor bm = asBatchedMatrix(b, batch, summed, bOwn);
  Tensor product = Tensor::empty({am.size(0), am.size(1), bm.size(2)}, a.t.dtype());
  batchedGemm(am, bm, product);
  Labeled out;
  Shape sizes;
  for (const auto* group : {&batch, &aOwn}) {
    for (int l : *group) {
      out.labels.push_back(l);
      sizes.push_back(a.t.size(a.dimOf(l)));
    }
  }
  for (int l : bOwn) {
    out.labels.push_back(l);
    sizes.push_back(b.t.size(b.dimOf(l)));
  }
  out.t = product.asStrided(sizes, contiguousStrides(sizes), 0);
  return out;
}

}  // namespace

Tensor einsumTensors(const std::string& equation, const std::vector<Tensor>& operands) {
  EinsumEquation eq = parseEinsumEquation(equation, operands.size());
  std::vector<int64_t> ranks;
  std::vector<Dims> shapes;
  for (const Tensor& x : operands) {
    ranks.push_back(x.dim());
    shapes.push_back(x.sizes());
  }
  EinsumLabels labels = resolveEinsumLabels(eq, ranks);
  std::vector<int64_t> sizes = einsumLabelSizes(labels, shapes);
  std::vector<DType> dtypes;
  for (const Tensor& x : operands) dtypes.push_back(x.dtype());
  DType resultType = *einsumResultDType(labels, shapes, dtypes);
  // PyTorch's evaluation order changes dtypes along the way (sums of
  // integers widen, products promote); computing everything in the result
  // dtype gives the same values. Bool results come from products only.
  DType computeType = resultType == DType::b8 ? DType::i64 : resultType;

  std::vector<bool> inOutput(labels.numLabels, false);
  for (int l : labels.output) inOutput[l] = true;
  std::vector<Labeled> ops;
  for (size_t i = 0; i < operands.size(); ++i)
    ops.push_back(diagonalAndBroadcast(asDType(operands[i], computeType), labels.inputs[i], sizes));

  // Labels needed after operand i: the output's and those of later operands.
  auto keepAfter = [&](size_t i) {
    std::vector<bool> keep = inOutput;
    for (size_t j = i + 1; j < ops.size(); ++j)
      for (int l : ops[j].labels) keep[l] = true;
    return keep;
  };
  Labeled acc = sumAway(ops[0], keepAfter(0));
  for (size_t i = 1; i < ops.size(); ++i) {
    std::vector<bool> keep = keepAfter(i);
    std::vector<bool> keepForOperand = keep;
    for (int l : acc.labels) keepForOperand[l] = true;
    Labeled b = sumAway(ops[i], keepForOperand);
    acc = contractPair(acc, b, keep);
  }
  Tensor result = permuted(acc.t, dimsOf(acc, labels.output));
  return result.to(resultType);
}

}  // namespace stitch
