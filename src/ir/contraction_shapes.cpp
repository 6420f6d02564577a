#include "ir/contraction_shapes.h"

#include "common/error.h"
#include "ir/reduction_dtypes.h"

namespace stitch {

namespace {

std::string dimText(int64_t d) { return d < 0 ? std::string("?") : std::to_string(d); }

bool differ(int64_t a, int64_t b) { return a >= 0 && b >= 0 && a != b; }

void checkRank(const Dims& d, size_t rank, const char* what) {
  if (d.size() == rank) return;
  if (rank == 2) throw UserError(errorMessage(what, " must be a matrix"));
  throw UserError(errorMessage(what, " must be a 3D tensor"));
}

}  // namespace

// The PyTorch kernel that a product of these ranks lands in (its name is in
// the message for bool operands).
static const char* productKernelName(int64_t rankA, int64_t rankB) {
  bool vecA = rankA == 1, vecB = rankB == 1;
  if (vecA && vecB) return "dot";
  if (vecB || (vecA && rankB >= 3)) return "addmv_impl_cpu";
  if (rankA >= 3 && rankB >= 3) return "bmm";
  return "addmm_impl_cpu_";
}

DType matmulDType(DType a, DType b, int64_t rankA, int64_t rankB) {
  bool dot = rankA == 1 && rankB == 1;
  if (dot && a != b) {
    throw UserError(errorMessage("dot : expected both vectors to have same dtype, but found ",
                                 torchScalarTypeName(a), " and ", torchScalarTypeName(b)));
  }
  if (a == DType::b8) {
    throw UserError(
        errorMessage("\"", productKernelName(rankA, rankB), "\" not implemented for 'Bool'"));
  }
  if (a != b) {
    throw UserError(errorMessage("expected scalar type ", torchScalarTypeName(a), " but found ",
                                 torchScalarTypeName(b)));
  }
  return a;
}

Dims mmShape(const Dims& a, const Dims& b) {
  checkRank(a, 2, "self");
  checkRank(b, 2, "mat2");
  if (differ(a[1], b[0])) {
    throw UserError(errorMessage("mat1 and mat2 shapes cannot be multiplied (", dimText(a[0]), "x",
                                 dimText(a[1]), " and ", dimText(b[0]), "x", dimText(b[1]), ")"));
  }
  return {a[0], b[1]};
}

Dims bmmShape(const Dims& a, const Dims& b) {
  checkRank(a, 3, "batch1");
  checkRank(b, 3, "batch2");
  if (differ(a[0], b[0]) || differ(a[2], b[1])) {
    throw UserError(errorMessage("Expected size for first two dimensions of batch2 tensor to be: [",
                                 dimText(a[0]), ", ", dimText(a[2]), "] but got: [", dimText(b[0]),
                                 ", ", dimText(b[1]), "]."));
  }
  int64_t batch = a[0] >= 0 ? a[0] : b[0];
  return {batch, a[1], b[2]};
}

Dims linearShape(const Dims& x, const Dims& w, const std::optional<Dims>& bias) {
  if (w.size() > 2) {
    throw UserError(
        errorMessage("t() expects a tensor with <= 2 dimensions, but self is ", w.size(), "D"));
  }
  Dims wt = w.size() == 2 ? Dims{w[1], w[0]} : w;
  Dims out = matmulShape(x, wt);
  if (!bias) return out;
  Dims grown = broadcastShapes(out, *bias);
  if (grown.size() != out.size()) {
    throw UserError(errorMessage("output with shape ", dimsToString(out),
                                 " doesn't match the broadcast shape ", dimsToString(grown)));
  }
  for (size_t d = 0; d < out.size(); ++d) {
    if (!differ(grown[d], out[d])) continue;
    throw UserError(errorMessage("output with shape ", dimsToString(out),
                                 " doesn't match the broadcast shape ", dimsToString(grown)));
  }
  return out;
}

Dims attentionShape(const Dims& q, const Dims& k, const Dims& v) {
  if (k.size() < 2) throw UserError(errorMessage("attention expects keys of rank >= 2, got ", k.size(), "D"));
  Dims kt = k;
  std::swap(kt[kt.size() - 1], kt[kt.size() - 2]);
  return matmulShape(matmulShape(q, kt), v);
}

void checkLinearBiasDType(DType product, DType bias) {
  if (product != bias) throw UserError("self and mat2 must have the same dtype");
}

}  // namespace stitch
