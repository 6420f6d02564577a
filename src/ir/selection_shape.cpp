#include "ir/selection_shape.h"

#include <algorithm>

#include "common/error.h"

namespace stitch {

void checkTopk(int64_t k, int64_t dimSize) {
  if (k < 0 || (dimSize >= 0 && k > dimSize)) throw UserError("selected index k out of range");
}

void checkMaskedSelectMask(DType mask) {
  if (mask != DType::b8)
    throw UserError(errorMessage("masked_select: expected BoolTensor for mask, got ", dtypeName(mask)));
}

void checkAdvancedIndex(DType index, int64_t indexRank, int64_t selfRank, int64_t dim) {
  if (index == DType::b8) {
    if (dim + indexRank > selfRank) {
      throw UserError(errorMessage("too many indices for tensor of dimension ", selfRank,
                                   " (got ", dim + indexRank, ")"));
    }
    return;
  }
  if (index != DType::i64) throw UserError("tensors used as indices must be long, byte or bool tensors");
  if (dim >= selfRank) {
    throw UserError(selfRank == 0 ? std::string("invalid index of a 0-dim tensor")
                                  : errorMessage("too many indices for tensor of dimension ", selfRank));
  }
}

Dims advancedIndexShape(const Dims& self, int64_t dim, DType index, const Dims& indexShape) {
  checkAdvancedIndex(index, (int64_t)indexShape.size(), (int64_t)self.size(), dim);
  bool mask = index == DType::b8;
  int64_t span = mask ? (int64_t)indexShape.size() : 1;
  if (mask) {
    for (int64_t d = 0; d < span; ++d) {
      int64_t want = self[dim + d], got = indexShape[d];
      if (want >= 0 && got >= 0 && want != got) {
        throw UserError(errorMessage("The shape of the mask ", dimsToString(indexShape), " at index ", d,
                                     " does not match the shape of the indexed tensor ",
                                     dimsToString(self), " at index ", dim + d));
      }
    }
  }
  Dims out(self.begin(), self.begin() + dim);
  if (mask) out.push_back(-1);  // its true count, known when it runs
  else out.insert(out.end(), indexShape.begin(), indexShape.end());
  out.insert(out.end(), self.begin() + dim + span, self.end());
  return out;
}

void checkIndexPutDTypes(DType self, DType values) {
  if (self != values) {
    throw UserError(errorMessage("Index put requires the source and destination dtypes match, got ",
                                 dtypeName(self), " for the destination and ", dtypeName(values),
                                 " for the source."));
  }
}

Dims checkIndexPutValues(const Dims& values, const Dims& slots) {
  bool fits = values.size() <= slots.size();
  for (size_t i = 0; fits && i < values.size(); ++i) {
    int64_t v = values[values.size() - 1 - i], s = slots[slots.size() - 1 - i];
    fits = v == 1 || v < 0 || s < 0 || v == s;
  }
  if (!fits) {
    throw UserError(errorMessage("shape mismatch: value tensor of shape ", dimsToString(values),
                                 " cannot be broadcast to indexing result of shape ",
                                 dimsToString(slots)));
  }
  return slots;
}

Dims scatterShape(const Dims& d) { return d.empty() ? Dims{1} : d; }

void checkScatterShapes(const Dims& self, int64_t dim, const Dims& index,
                        const std::optional<Dims>& src) {
  const Dims s = scatterShape(self), i = scatterShape(index);
  const std::optional<Dims> from = src ? std::optional<Dims>(scatterShape(*src)) : std::nullopt;
  if (i.size() != s.size() || (from && from->size() != s.size())) {
    throw UserError("Index tensor must have the same number of dimensions as self tensor");
  }
  for (size_t d = 0; d < i.size(); ++d) {
    if (i[d] < 0) continue;
    if (((int64_t)d != dim && s[d] >= 0 && i[d] > s[d]) || (from && (*from)[d] >= 0 && i[d] > (*from)[d])) {
      throw UserError(errorMessage("Expected index ", dimsToString(index),
                                   " to be smaller than self ", dimsToString(self),
                                   " apart from dimension ", dim,
                                   src ? " and to be smaller size than src " + dimsToString(*src) : std::string()));
    }
  }
}

}  // namespace stitch
