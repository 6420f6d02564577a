#include "ir/shape_util.h"

#include <algorithm>
#include <cctype>

#include "common/error.h"

namespace stitch {

std::string dimsToString(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += ", ";
    s += d[i] < 0 ? std::string("?") : std::to_string(d[i]);
  }
  return s + "]";
}

int64_t normalizeDim(int64_t dim, int64_t rank, const char* what) {
  // PyTorch treats a 0-dim tensor as having one wrappable dim.
  int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    std::string w = what ? what : "dimension";
    if (!w.empty()) w[0] = (char)std::toupper((unsigned char)w[0]);
    throw UserError(errorMessage(w, " out of range (expected to be in range of [", -r, ", ", r - 1,
                                 "], but got ", dim, ")"));
  }
  return dim < 0 ? dim + r : dim;
}

// One dim of a broadcast; -1 is unknown.
static int64_t broadcastDim(int64_t a, int64_t b, size_t outDim) {
  if (a == b) return a;
  if (a == 1) return b;
  if (b == 1) return a;
  if (a < 0) return b;  // unknown against a known dim != 1: must be that dim (or 1)
  if (b < 0) return a;
  throw UserError(errorMessage("The size of tensor a (", a, ") must match the size of tensor b (",
                               b, ") at non-singleton dimension ", outDim));
}

Dims broadcastShapes(const Dims& a, const Dims& b) {
  size_t n = std::max(a.size(), b.size());
  Dims out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right.
    int64_t da = i + a.size() >= n ? a[i + a.size() - n] : 1;
    int64_t db = i + b.size() >= n ? b[i + b.size() - n] : 1;
    out[i] = broadcastDim(da, db, i);
  }
  return out;
}

Dims broadcastShapes(const std::vector<Dims>& shapes) {
  Dims out;
  for (const Dims& s : shapes) out = broadcastShapes(out, s);
  return out;
}

PromoteArg tensorArg(DType dtype, int64_t rank) {
  return PromoteArg{rank == 0 ? PromoteArg::ZeroDimTensor : PromoteArg::DimTensor, dtype};
}
PromoteArg intScalarArg() { return PromoteArg{PromoteArg::Scalar, DType::i64}; }
PromoteArg floatScalarArg() { return PromoteArg{PromoteArg::Scalar, DType::f64}; }
PromoteArg boolScalarArg() { return PromoteArg{PromoteArg::Scalar, DType::b8}; }

namespace {

using MaybeDType = std::optional<DType>;

MaybeDType promoteSkipUndefined(MaybeDType a, DType b) {
  if (!a) return b;
  return promoteTypes(*a, b);
}

// torch's combine_categories: the higher-priority group wins unless the lower
// one is of a higher category.
MaybeDType combineCategories(MaybeDType higher, MaybeDType lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (isFloating(*higher)) return higher;
  if (*higher == DType::b8 || isFloating(*lower)) return promoteTypes(*higher, *lower);
  return higher;
}

}  // namespace

DType resultType(const std::vector<PromoteArg>& args) {
  MaybeDType dimResult, zeroResult, scalarResult;
  for (const PromoteArg& a : args) {
    switch (a.kind) {
      case PromoteArg::DimTensor: dimResult = promoteSkipUndefined(dimResult, a.dtype); break;
      case PromoteArg::ZeroDimTensor: zeroResult = promoteSkipUndefined(zeroResult, a.dtype); break;
      case PromoteArg::Scalar: {
        // A Python float takes part as the default float dtype.
        DType t = isFloating(a.dtype) ? DType::f32 : a.dtype;
        scalarResult = promoteSkipUndefined(scalarResult, t);
        break;
      }
    }
  }
  MaybeDType r = combineCategories(dimResult, combineCategories(zeroResult, scalarResult));
  STITCH_ASSERT(r.has_value(), "resultType of no arguments");
  return *r;
}

DType floatResultType(DType t) { return isFloating(t) ? t : DType::f32; }

static std::string intListStr(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

Dims inferViewShape(const Dims& requested, int64_t numel) {
  Dims out = requested;
  int64_t inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < requested.size(); ++i) {
    int64_t d = requested[i];
    if (d == -1) {
      if (inferred >= 0) throw UserError("only one dimension can be inferred");
      inferred = (int64_t)i;
      continue;
    }
    if (d < 0) throw UserError(errorMessage("invalid shape dimension ", d));
    known *= d;
  }
  if (numel < 0) return out;  // statically unknown: the inferred dim stays unknown
  if (inferred >= 0) {
    if (known == 0) {
      throw UserError(errorMessage("cannot reshape tensor of ", numel, " elements into shape ",
                                   intListStr(requested),
                                   " because the unspecified dimension size -1 can be any value "
                                   "and is ambiguous"));
    }
    if (numel % known != 0) {
      throw UserError(errorMessage("shape '", intListStr(requested), "' is invalid for input of size ", numel));
    }
    out[inferred] = numel / known;
    return out;
  }
  if (known != numel) {
    throw UserError(errorMessage("shape '", intListStr(requested), "' is invalid for input of size ", numel));
  }
  return out;
}

std::vector<int64_t> normalizeReduceDims(const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  std::vector<bool> seen(std::max<int64_t>(rank, 1), false);
  for (int64_t d : dims) {
    int64_t n = normalizeDim(d, rank);
    if (seen[n]) throw UserError(errorMessage("dim ", n, " appears multiple times in the list of dims"));
    seen[n] = true;
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  // A 0-dim tensor reduced over dim 0/-1 has nothing to drop.
  if (rank == 0) out.clear();
  return out;
}

Dims reduceShape(const Dims& in, const std::vector<int64_t>& dims, bool keepdim) {
  std::vector<int64_t> reduced = normalizeReduceDims(dims, (int64_t)in.size());
  Dims out;
  size_t r = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    bool isReduced = r < reduced.size() && reduced[r] == (int64_t)i;
    if (isReduced) ++r;
    if (!isReduced) out.push_back(in[i]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

static bool dimsDiffer(int64_t a, int64_t b) { return a >= 0 && b >= 0 && a != b; }
static std::string dimStr(int64_t d) { return d < 0 ? std::string("?") : std::to_string(d); }

Dims matmulShape(const Dims& a, const Dims& b) {
  if (a.empty() || b.empty()) {
    throw UserError(errorMessage("both arguments to matmul need to be at least 1D, but they are ",
                                 a.size(), "D and ", b.size(), "D"));
  }
  if (a.size() == 1 && b.size() == 1) {
    if (dimsDiffer(a[0], b[0])) {
      throw UserError(errorMessage("inconsistent tensor size, expected tensor [", a[0],
                                   "] and src [", b[0],
                                   "] to have the same number of elements, but got ", a[0],
                                   " and ", b[0], " elements respectively"));
    }
    return {};
  }
  if (a.size() == 2 && b.size() == 1) {
    if (dimsDiffer(a[1], b[0])) {
      throw UserError(errorMessage("size mismatch, got input (", dimStr(a[0]), "), mat (",
                                   dimStr(a[0]), "x", dimStr(a[1]), "), vec (", dimStr(b[0]), ")"));
    }
    return {a[0]};
  }
  // General case: a 1-d operand gains a unit dim that is dropped again.
  Dims am = a.size() == 1 ? Dims{1, a[0]} : a;
  Dims bm = b.size() == 1 ? Dims{b[0], 1} : b;
  int64_t n = am[am.size() - 2], k1 = am.back();
  int64_t k2 = bm[bm.size() - 2], m = bm.back();
  if (dimsDiffer(k1, k2)) {
    if (a.size() <= 2 && b.size() <= 2) {
      throw UserError(errorMessage("mat1 and mat2 shapes cannot be multiplied (", dimStr(n), "x",
                                   dimStr(k1), " and ", dimStr(k2), "x", dimStr(m), ")"));
    }
    throw UserError(errorMessage("Expected size for first two dimensions of batch2 tensor to be: [",
                                 "?, ", dimStr(k1), "] but got: [?, ", dimStr(k2), "]."));
  }
  Dims batchA(am.begin(), am.end() - 2), batchB(bm.begin(), bm.end() - 2);
  Dims out = broadcastShapes(batchA, batchB);
  if (a.size() > 1) out.push_back(n);
  if (b.size() > 1) out.push_back(m);
  return out;
}

SliceRange sliceRange(std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                      int64_t size) {
  if (step <= 0) throw UserError("slice step must be positive");
  if (size < 0) return SliceRange{start.value_or(0), -1};
  int64_t s = start.value_or(0);
  int64_t e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, 0, size);
  int64_t len = e > s ? (e - s + step - 1) / step : 0;
  return SliceRange{s, len};
}

}  // namespace stitch
