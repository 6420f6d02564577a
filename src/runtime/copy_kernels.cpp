#include "runtime/copy_kernels.h"

#include <cstring>

#include "ir/shape_util.h"

namespace stitch {

namespace {

void copyInto(const Tensor& to, const Tensor& from) {
  if (from.dtype() == to.dtype() && from.isContiguous() && to.isContiguous() &&
      from.sizes() == to.sizes()) {
    std::memcpy(to.rawData(), from.rawData(), (size_t)to.numel() * dtypeSize(to.dtype()));
    return;
  }
  to.copyFrom(from);
}

// Slice [start, start + length) of a dense tensor along dim, as a view.
Tensor sliceAlong(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  Shape sizes = t.sizes();
  sizes[dim] = length;
  return t.asStrided(sizes, t.strides(), t.offset() + start * t.stride(dim));
}

// Index i of a dense tensor along dim, the dim dropped.
Tensor selectAlong(const Tensor& t, int64_t dim, int64_t i) {
  Shape sizes = t.sizes(), strides = t.strides();
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return t.asStrided(sizes, strides, t.offset() + i * t.stride(dim));
}

bool runCat(const std::vector<Tensor>& pieces, int64_t dim, const Tensor& out) {
  if (out.dim() == 0) return false;
  dim = normalizeDim(dim, out.dim());
  int64_t at = 0;
  std::vector<std::pair<Tensor, int64_t>> plan;
  for (const Tensor& p : pieces) {
    // PyTorch skips 1-d empty pieces of any other rank.
    if (p.numel() == 0 && p.dim() == 1 && out.dim() != 1) continue;
    if (p.dim() != out.dim()) return false;
    for (int64_t d = 0; d < out.dim(); ++d)
      if (d != dim && p.size(d) != out.size(d)) return false;
    plan.emplace_back(p, at);
    at += p.size(dim);
  }
  if (at != out.size(dim)) return false;
  for (const auto& [p, start] : plan)
    if (p.numel() > 0) copyInto(sliceAlong(out, dim, start, p.size(dim)), p);
  return true;
}

bool runStack(const std::vector<Tensor>& pieces, int64_t dim, const Tensor& out) {
  if (out.dim() == 0) return false;
  dim = normalizeDim(dim, out.dim());
  if ((int64_t)pieces.size() != out.size(dim)) return false;
  for (size_t i = 0; i < pieces.size(); ++i) {
    Tensor slot = selectAlong(out, dim, (int64_t)i);
    if (pieces[i].sizes() != slot.sizes()) return false;
  }
  for (size_t i = 0; i < pieces.size(); ++i)
    if (pieces[i].numel() > 0) copyInto(selectAlong(out, dim, (int64_t)i), pieces[i]);
  return true;
}

}  // namespace

bool isCopyKernelOp(const std::string& op) {
  return op == "clone" || op == "contiguous" || op == "cat" || op == "stack";
}

bool runCopyKernel(const Node& node, const IValueList& args, const Tensor& out) {
  const std::string& op = node.kind();
  if (op == "clone" || op == "contiguous") {
    const Tensor& src = args.at(0).toTensor();
    if (src.sizes() != out.sizes()) return false;
    if (out.numel() > 0) copyInto(out, src);
    return true;
  }
  if (op == "cat") return runCat(args.at(0).toTensorList(), args.at(1).toInt(), out);
  if (op == "stack") return runStack(args.at(0).toTensorList(), args.at(1).toInt(), out);
  return false;
}

}  // namespace stitch
