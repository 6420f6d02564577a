#include "interp/mem_overlap.h"

#include <algorithm>

namespace stitch {

bool isNonOverlappingAndDense(const Tensor& t) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) != 1) dims.push_back(d);
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return t.stride(a) < t.stride(b); });
  int64_t expected = 1;
  for (int64_t d : dims) {
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

bool hasInternalOverlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1 && t.stride(d) == 0) return true;
  return false;
}

// The stride of a size-1 dim never moves to another element, so views that
// differ only there address the same memory the same way.
bool sameView(const Tensor& a, const Tensor& b) {
  if (!a.sameStorage(b) || a.offset() != b.offset() || a.sizes() != b.sizes() ||
      a.dtype() != b.dtype())
    return false;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (a.size(d) != 1 && a.stride(d) != b.stride(d)) return false;
  return true;
}

MemOverlap memOverlap(const Tensor& a, const Tensor& b) {
  if (!a.sameStorage(b) || a.numel() == 0 || b.numel() == 0) return MemOverlap::No;
  if (sameView(a, b)) return MemOverlap::Full;
  if (!isNonOverlappingAndDense(a) || !isNonOverlappingAndDense(b)) return MemOverlap::TooHard;
  int64_t sa = a.offset() * (int64_t)dtypeSize(a.dtype());
  int64_t ea = sa + a.numel() * (int64_t)dtypeSize(a.dtype());
  int64_t sb = b.offset() * (int64_t)dtypeSize(b.dtype());
  int64_t eb = sb + b.numel() * (int64_t)dtypeSize(b.dtype());
  if (sa < eb && sb < ea) return sa == sb && ea == eb ? MemOverlap::Full : MemOverlap::Partial;
  return MemOverlap::No;
}

void checkNoInternalOverlap(const Tensor& written) {
  if (!hasInternalOverlap(written)) return;
  throw UserError(
      "unsupported operation: more than one element of the written-to tensor refers to a single "
      "memory location. Please clone() the tensor before performing the operation.");
}

void checkNoOverlap(const Tensor& written, const Tensor& input) {
  if (sameView(written, input)) return;
  MemOverlap o = memOverlap(written, input);
  if (o != MemOverlap::Full && o != MemOverlap::Partial) return;
  throw UserError(
      "unsupported operation: some elements of the input tensor and the written-to tensor refer "
      "to a single memory location. Please clone() the tensor before performing the operation.");
}

}  // namespace stitch
