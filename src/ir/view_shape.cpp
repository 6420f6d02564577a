#include "ir/view_shape.h"

#include <algorithm>
#include <string>

#include "common/error.h"

namespace stitch {

namespace {

std::string intsToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string requestedToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    s += i ? ", " : "";
    s += v[i] == kUnknownSize ? std::string("?") : std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace

void throwViewIncompatible() {
  throw UserError(
      "view size is not compatible with input tensor's size and stride (at least one dimension "
      "spans across two contiguous subspaces). Use .reshape(...) instead.");
}

std::optional<Dims> computeViewStrides(const Dims& oldSizes, const Dims& oldStrides,
                                       const Dims& newSizes) {
  if (oldSizes.empty()) return Dims(newSizes.size(), 1);
  int64_t numel = 1;
  for (int64_t s : oldSizes) numel *= s;
  if (numel == 0 && oldSizes == newSizes) return oldStrides;
  Dims newStrides(newSizes.size());
  int64_t viewD = (int64_t)newSizes.size() - 1;
  if (numel == 0) {
    // Any strides work for an empty tensor; use row-major ones.
    for (int64_t d = viewD; d >= 0; --d)
      newStrides[d] = d == viewD ? 1 : std::max<int64_t>(newSizes[d + 1], 1) * newStrides[d + 1];
    return newStrides;
  }
  // Walk the old dims from the innermost, grouping them into chunks that are
  // contiguous among themselves; each chunk must be covered exactly by a run
  // of new dims.
  int64_t chunkBaseStride = oldStrides.back();
  int64_t tensorNumel = 1;
  int64_t viewNumel = 1;
  for (int64_t tensorD = (int64_t)oldSizes.size() - 1; tensorD >= 0; --tensorD) {
    tensorNumel *= oldSizes[tensorD];
    bool chunkEnds = tensorD == 0 || (oldSizes[tensorD - 1] != 1 &&
                                      oldStrides[tensorD - 1] != tensorNumel * chunkBaseStride);
    if (!chunkEnds) continue;
    while (viewD >= 0 && (viewNumel < tensorNumel || newSizes[viewD] == 1)) {
      newStrides[viewD] = viewNumel * chunkBaseStride;
      viewNumel *= newSizes[viewD];
      --viewD;
    }
    if (viewNumel != tensorNumel) return std::nullopt;
    if (tensorD > 0) {
      chunkBaseStride = oldStrides[tensorD - 1];
      tensorNumel = 1;
      viewNumel = 1;
    }
  }
  if (viewD != -1) return std::nullopt;
  return newStrides;
}

std::vector<int64_t> checkPermutation(const std::vector<int64_t>& dims, int64_t rank) {
  if ((int64_t)dims.size() != rank) {
    throw UserError(errorMessage(
        "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
        "of the desired ordering of dimensions i.e. input.dim() = ",
        rank, " is not equal to len(dims) = ", dims.size()));
  }
  std::vector<int64_t> out;
  std::vector<bool> seen(std::max<int64_t>(rank, 1), false);
  for (int64_t d : dims) {
    int64_t n = normalizeDim(d, rank);
    if (seen[n]) throw UserError("permute(): duplicate dims are not allowed.");
    seen[n] = true;
    out.push_back(n);
  }
  return out;
}

// PyTorch's legacy tensor type name ("torch.FloatTensor") for messages.
static const char* legacyTypeName(DType t) {
  switch (t) {
    case DType::b8: return "torch.BoolTensor";
    case DType::i32: return "torch.IntTensor";
    case DType::i64: return "torch.LongTensor";
    case DType::f32: return "torch.FloatTensor";
    case DType::f64: return "torch.DoubleTensor";
  }
  return "torch.Tensor";
}

Dims expandShape(const Dims& self, const std::vector<int64_t>& requested,
                 std::optional<DType> dtype) {
  int64_t rank = (int64_t)self.size();
  int64_t n = (int64_t)requested.size();
  if (n < rank) {
    std::string selfStr = dtype ? errorMessage(legacyTypeName(*dtype), "{", dimsToString(self), "}")
                                : dimsToString(self);
    throw UserError(errorMessage("expand(", selfStr, ", size=", requestedToString(requested),
                                 "): the number of sizes provided (", n,
                                 ") must be greater or equal to the number of dimensions in the "
                                 "tensor (",
                                 rank, ")"));
  }
  Dims out(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t offset = n - 1 - i;
    int64_t selfDim = rank - 1 - offset;
    int64_t want = requested[i];
    if (selfDim < 0) {
      if (want == -1) {
        throw UserError(errorMessage("The expanded size of the tensor (-1) isn't allowed in a "
                                     "leading, non-existing dimension ",
                                     i));
      }
      if (want != kUnknownSize && want < 0) {
        throw UserError(errorMessage("Trying to create tensor with negative dimension ", want, ": ",
                                     requestedToString(requested)));
      }
      out[i] = want == kUnknownSize ? -1 : want;
      continue;
    }
    int64_t have = self[selfDim];
    if (want == -1) {
      out[i] = have;
      continue;
    }
    if (want == kUnknownSize) {
      out[i] = have >= 0 && have != 1 ? have : -1;
      continue;
    }
    if (want < 0) {
      throw UserError(errorMessage("Trying to create tensor with negative dimension ", want, ": ",
                                   requestedToString(requested)));
    }
    if (have >= 0 && have != 1 && have != want) {
      throw UserError(errorMessage("The expanded size of the tensor (", want,
                                   ") must match the existing size (", have,
                                   ") at non-singleton dimension ", i, ".  Target sizes: ",
                                   requestedToString(requested), ".  Tensor sizes: ",
                                   dimsToString(self)));
    }
    out[i] = want;
  }
  return out;
}

void checkTransposeRank(int64_t rank) {
  if (rank > 2) {
    throw UserError(errorMessage("t() expects a tensor with <= 2 dimensions, but self is ", rank, "D"));
  }
}

void checkNotZeroDim(int64_t rank, const char* op) {
  if (rank == 0) throw UserError(errorMessage(op, "() cannot be applied to a 0-dim tensor."));
}

void checkAtLeastOneDim(int64_t rank, const char* op) {
  if (rank == 0) throw UserError(errorMessage(op, " expects at least a 1-dimensional tensor"));
}

int64_t checkSelectIndex(int64_t index, int64_t dim, int64_t size) {
  if (index < -size || index >= size) {
    throw UserError(errorMessage("index ", index, " is out of bounds for dimension ", dim,
                                 " with size ", size));
  }
  return index < 0 ? index + size : index;
}

int64_t checkNarrow(int64_t start, int64_t length, int64_t size) {
  // start == size is a valid (empty) start, though not a valid dim index.
  if (start != size) start = normalizeDim(start, size);
  if (length < 0 || start > size - length) {
    throw UserError(errorMessage("start (", start, ") + length (", length,
                                 ") exceeds dimension size (", size, ")."));
  }
  return start;
}

void checkSplitSize(int64_t splitSize) {
  if (splitSize < 0) {
    throw UserError(errorMessage("split expects split_size be non-negative, but got split_size=",
                                 splitSize));
  }
}

std::vector<int64_t> splitLengths(int64_t dimSize, int64_t splitSize) {
  checkSplitSize(splitSize);
  if (splitSize == 0 && dimSize != 0) {
    throw UserError(errorMessage(
        "split_size can only be 0 if dimension size is 0, but got dimension size of ", dimSize));
  }
  int64_t numSplits = 1;
  if (splitSize != 0) numSplits = std::max<int64_t>((dimSize + splitSize - 1) / splitSize, 1);
  std::vector<int64_t> out(numSplits, splitSize);
  out.back() = splitSize - (splitSize * numSplits - dimSize);
  return out;
}

std::optional<size_t> setitemDroppedDims(const std::vector<int64_t>& shape) {
  size_t dropped = 0;
  while (dropped < shape.size() && shape[dropped] == 1) ++dropped;
  if (dropped < shape.size() && shape[dropped] < 0) return std::nullopt;
  return dropped;
}

void checkChunks(int64_t chunks) {
  if (chunks <= 0) {
    throw UserError(errorMessage("chunk expects `chunks` to be greater than 0, got: ", chunks));
  }
}

std::vector<int64_t> chunkLengths(int64_t dimSize, int64_t chunks) {
  checkChunks(chunks);
  int64_t splitSize = (dimSize + chunks - 1) / chunks;
  // An empty dim still gives `chunks` (empty) pieces.
  if (splitSize == 0 && dimSize == 0) return std::vector<int64_t>(chunks, 0);
  return splitLengths(dimSize, splitSize);
}

void checkSplitWithSizes(const std::vector<int64_t>& sizes, int64_t dimSize, int64_t dim) {
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) {
      throw UserError(errorMessage(
          "split_with_sizes expects split_sizes have only non-negative entries, but got "
          "split_sizes=",
          intsToString(sizes)));
    }
    sum += s;
  }
  if (dimSize >= 0 && sum != dimSize) {
    throw UserError(errorMessage("split_with_sizes expects split_sizes to sum exactly to ", dimSize,
                                 " (input tensor's size at dimension ", dim,
                                 "), but got split_sizes=", intsToString(sizes)));
  }
}

std::vector<int64_t> movedimPermutation(int64_t source, int64_t destination, int64_t rank) {
  int64_t src = normalizeDim(source, rank);
  int64_t dst = normalizeDim(destination, rank);
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < rank; ++d)
    if (d != src) rest.push_back(d);
  if (rank == 0) return {};
  rest.insert(rest.begin() + dst, src);
  return rest;
}

FlattenDims checkFlatten(int64_t start, int64_t end, int64_t rank) {
  FlattenDims r{normalizeDim(start, rank), normalizeDim(end, rank)};
  if (r.start > r.end) {
    throw UserError("flatten() has invalid args: start_dim cannot come after end_dim");
  }
  return r;
}

Dims flattenShape(const Dims& in, FlattenDims range) {
  if (in.empty()) return {1};
  Dims out(in.begin(), in.begin() + range.start);
  int64_t merged = 1;
  for (int64_t d = range.start; d <= range.end; ++d) {
    if (in[d] < 0) {
      merged = -1;
      break;
    }
    merged *= in[d];
  }
  out.push_back(merged);
  out.insert(out.end(), in.begin() + range.end + 1, in.end());
  return out;
}

CatPlan planCat(const std::vector<Dims>& shapes, int64_t dim) {
  if (shapes.empty()) throw UserError("torch.cat(): expected a non-empty list of Tensors");
  CatPlan plan;
  plan.participates.resize(shapes.size());
  int64_t first = -1;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Dims& s = shapes[i];
    // Legacy behaviour: 1-d empty tensors are skipped whatever their rank.
    bool skipped = s.size() == 1 && s[0] == 0;
    plan.participates[i] = !skipped;
    if (!skipped && s.empty()) {
      throw UserError(errorMessage("zero-dimensional tensor (at position ", i,
                                   ") cannot be concatenated"));
    }
    if (!skipped && first < 0) first = (int64_t)i;
  }
  if (first < 0) {
    plan.shape = {0};
    return plan;
  }
  const Dims& ref = shapes[first];
  int64_t rank = (int64_t)ref.size();
  plan.dim = normalizeDim(dim, rank);
  plan.shape = ref;
  plan.shape[plan.dim] = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!plan.participates[i]) continue;
    const Dims& s = shapes[i];
    if ((int64_t)s.size() != rank) {
      throw UserError(errorMessage("Tensors must have same number of dimensions: got ", rank,
                                   " and ", s.size()));
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d == plan.dim) continue;
      if (plan.shape[d] < 0) plan.shape[d] = s[d];
      if (s[d] >= 0 && plan.shape[d] >= 0 && s[d] != plan.shape[d]) {
        throw UserError(errorMessage("Sizes of tensors must match except in dimension ", plan.dim,
                                     ". Expected size ", plan.shape[d], " but got size ", s[d],
                                     " for tensor number ", i, " in the list."));
      }
    }
    int64_t& total = plan.shape[plan.dim];
    total = total < 0 || s[plan.dim] < 0 ? -1 : total + s[plan.dim];
  }
  return plan;
}

Dims stackShape(const std::vector<Dims>& shapes, int64_t dim) {
  if (shapes.empty()) throw UserError("stack expects a non-empty TensorList");
  Dims common = shapes[0];
  for (size_t i = 1; i < shapes.size(); ++i) {
    const Dims& s = shapes[i];
    bool same = s.size() == common.size();
    for (size_t d = 0; same && d < s.size(); ++d)
      same = s[d] < 0 || common[d] < 0 || s[d] == common[d];
    if (!same) {
      throw UserError(errorMessage("stack expects each tensor to be equal size, but got ",
                                   dimsToString(shapes[0]), " at entry 0 and ", dimsToString(s),
                                   " at entry ", i));
    }
    for (size_t d = 0; d < s.size(); ++d)
      if (common[d] < 0) common[d] = s[d];
  }
  int64_t d = normalizeDim(dim, (int64_t)common.size() + 1);
  common.insert(common.begin() + d, (int64_t)shapes.size());
  return common;
}

Dims repeatShape(const Dims& self, const std::vector<int64_t>& repeats) {
  if (repeats.size() < self.size()) {
    throw UserError(
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
        "tensor");
  }
  size_t lead = repeats.size() - self.size();
  Dims out(repeats.size());
  for (size_t i = 0; i < repeats.size(); ++i) {
    int64_t have = i < lead ? 1 : self[i - lead];
    out[i] = have < 0 ? -1 : have * repeats[i];
  }
  for (int64_t r : repeats) {
    if (r < 0) {
      // PyTorch reports the whole would-be shape.
      std::vector<int64_t> shown(repeats.size());
      for (size_t i = 0; i < repeats.size(); ++i)
        shown[i] = (i < lead ? 1 : self[i - lead]) * repeats[i];
      throw UserError(errorMessage("Trying to create tensor with negative dimension ",
                                   *std::find_if(shown.begin(), shown.end(),
                                                 [](int64_t v) { return v < 0; }),
                                   ": ", intsToString(shown)));
    }
  }
  return out;
}

std::vector<int64_t> checkFlipDims(const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<bool> seen(std::max<int64_t>(rank, 1), false);
  for (int64_t d : dims) {
    int64_t n = normalizeDim(d, rank);
    if (seen[n]) throw UserError(errorMessage("dim ", n, " appears multiple times in the list of dims"));
    seen[n] = true;
    out.push_back(n);
  }
  return out;
}

void checkTriangularRank(int64_t rank) {
  // PyTorch words it as a failed wrap of dim -2.
  if (rank < 2) normalizeDim(-2, rank);
}

void checkIndexSelectIndex(DType indexDType, int64_t indexRank) {
  if (indexRank > 1) throw UserError("index_select(): Index is supposed to be a vector");
  if (indexDType != DType::i64 && indexDType != DType::i32) {
    throw UserError("index_select(): Expected dtype int32 or int64 for index");
  }
}

void checkGatherIndex(DType indexDType, const Dims& self, const Dims& index, int64_t dim) {
  if (indexDType != DType::i64) throw UserError("gather(): Expected dtype int64 for index");
  if (std::max<size_t>(self.size(), 1) != std::max<size_t>(index.size(), 1)) {
    throw UserError("Index tensor must have the same number of dimensions as input tensor");
  }
  for (size_t d = 0; d < index.size() && d < self.size(); ++d) {
    if ((int64_t)d == dim || index[d] < 0 || self[d] < 0) continue;
    if (index[d] > self[d]) {
      throw UserError(errorMessage("Size does not match at dimension ", d, " expected index ",
                                   dimsToString(index), " to be smaller than self ",
                                   dimsToString(self), " apart from dimension ", dim));
    }
  }
}

Dims rowMajorStrides(const Dims& sizes) {
  Dims s(sizes.size());
  int64_t acc = 1;
  for (int64_t i = (int64_t)sizes.size() - 1; i >= 0; --i) {
    s[i] = acc;
    acc *= std::max<int64_t>(sizes[i], 1);
  }
  return s;
}

}  // namespace stitch
