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

using Pieces = std::optional<std::vector<CopyPiece>>;

Pieces catPieces(const std::vector<Tensor>& pieces, int64_t dim, const Tensor& out) {
  if (out.dim() == 0) return std::nullopt;
  dim = normalizeDim(dim, out.dim());
  int64_t at = 0;
  std::vector<CopyPiece> plan;
  for (const Tensor& p : pieces) {
    // PyTorch skips 1-d empty pieces of any other rank.
    if (p.numel() == 0 && p.dim() == 1 && out.dim() != 1) continue;
    if (p.dim() != out.dim()) return std::nullopt;
    for (int64_t d = 0; d < out.dim(); ++d)
      if (d != dim && p.size(d) != out.size(d)) return std::nullopt;
    if (p.numel() > 0) plan.push_back({sliceAlong(out, dim, at, p.size(dim)), p});
    at += p.size(dim);
  }
  if (at != out.size(dim)) return std::nullopt;
  return plan;
}

Pieces stackPieces(const std::vector<Tensor>& pieces, int64_t dim, const Tensor& out) {
  if (out.dim() == 0) return std::nullopt;
  dim = normalizeDim(dim, out.dim());
  if ((int64_t)pieces.size() != out.size(dim)) return std::nullopt;
  std::vector<CopyPiece> plan;
  for (size_t i = 0; i < pieces.size(); ++i) {
    Tensor slot = selectAlong(out, dim, (int64_t)i);
    if (pieces[i].sizes() != slot.sizes()) return std::nullopt;
    if (pieces[i].numel() > 0) plan.push_back({std::move(slot), pieces[i]});
  }
  return plan;
}

}  // namespace

bool isCopyKernelOp(const std::string& op) {
  return op == "clone" || op == "contiguous" || op == "cat" || op == "stack";
}

std::optional<std::vector<CopyPiece>> copyKernelPieces(const Node& node, const IValueList& args, const Tensor& out) {
  const std::string& op = node.kind();
  if (op == "clone" || op == "contiguous") {
    const Tensor& src = args.at(0).toTensor();
    if (src.sizes() != out.sizes()) return std::nullopt;
    std::vector<CopyPiece> plan;
    if (out.numel() > 0) plan.push_back({out, src});
    return plan;
  }
  if (op == "cat") return catPieces(args.at(0).toTensorList(), args.at(1).toInt(), out);
  if (op == "stack") return stackPieces(args.at(0).toTensorList(), args.at(1).toInt(), out);
  return std::nullopt;
}

std::optional<std::pair<Shape, DType>> copyKernelResult(const Node& node, const IValueList& args) {
  const std::string& op = node.kind();
  if (op == "clone" || op == "contiguous") {
    if (!args.at(0).isTensor()) return std::nullopt;
    return std::make_pair(args[0].toTensor().sizes(), args[0].toTensor().dtype());
  }
  if ((op != "cat" && op != "stack") || args.size() < 2 || !args[0].isList() || !args[1].isInt()) return std::nullopt;
  const IValueList& list = args[0].toList();
  if (list.empty()) return std::nullopt;
  for (const IValue& e : list)
    if (!e.isTensor() || e.toTensor().dtype() != list[0].toTensor().dtype()) return std::nullopt;
  const Tensor& first = list[0].toTensor();
  Shape sizes = first.sizes();
  if (op == "stack") {
    const int64_t rank = first.dim() + 1, dim = args[1].toInt();
    if (dim < -rank || dim >= rank) return std::nullopt;
    sizes.insert(sizes.begin() + (dim < 0 ? dim + rank : dim), (int64_t)list.size());
    return std::make_pair(sizes, first.dtype());
  }
  // cat: the pieces' sizes along dim added; the pieces checked by catPieces.
  const int64_t rank = first.dim(), dim = args[1].toInt();
  if (rank == 0 || dim < -rank || dim >= rank) return std::nullopt;
  const int64_t d = dim < 0 ? dim + rank : dim;
  sizes[(size_t)d] = 0;
  for (const IValue& e : list) {
    const Tensor& t = e.toTensor();
    if (t.numel() == 0 && t.dim() == 1 && rank != 1) continue;
    if (t.dim() != rank) return std::nullopt;
    sizes[(size_t)d] += t.size(d);
  }
  return std::make_pair(sizes, first.dtype());
}

bool runCopyKernel(const Node& node, const IValueList& args, const Tensor& out) {
  const std::optional<std::vector<CopyPiece>> pieces = copyKernelPieces(node, args, out);
  if (!pieces) return false;
  for (const CopyPiece& p : *pieces) copyInto(p.to, p.from);
  return true;
}

}  // namespace stitch
