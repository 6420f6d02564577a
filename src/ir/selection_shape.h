// Argument checks and result shapes of the selection ops (sort, topk,
// masked_select, advanced indexing, scatter), shared by their type rules
// and the interpreter's kernels so both refuse the same programs with the
// same messages. Dims may be -1 (unknown) where a rule calls them; such a
// dim is never the cause of an error.
#pragma once
#include <optional>

#include "ir/dtype.h"
#include "ir/shape_util.h"

namespace stitch {

void checkTopk(int64_t k, int64_t dimSize);
void checkMaskedSelectMask(DType mask);
// Integer index of any shape or bool mask; the mask must fit self's dims
// from `dim` on.
void checkAdvancedIndex(DType index, int64_t indexRank, int64_t selfRank, int64_t dim);
// self[index] at `dim`: the indexed dim replaced by an integer index's
// shape, or the dims a mask covers by one dim of unknown length.
Dims advancedIndexShape(const Dims& self, int64_t dim, DType index, const Dims& indexShape);
void checkIndexPutDTypes(DType self, DType values);
// The shape values are broadcast to (the slots' shape), after checking they can be.
Dims checkIndexPutValues(const Dims& values, const Dims& slots);
// scatter's view of a shape: a 0-dim tensor counts as one of shape [1]
// (PyTorch's rule for self, index and src alike).
Dims scatterShape(const Dims& d);
void checkScatterShapes(const Dims& self, int64_t dim, const Dims& index,
                        const std::optional<Dims>& src);

}  // namespace stitch
