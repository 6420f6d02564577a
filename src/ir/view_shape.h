// Shape arithmetic of the view, split and copy ops (view, expand, permute,
// select, narrow, split, cat, repeat, ...) with PyTorch's checks and
// messages. The static type rules and the interpreter's kernels both call
// these, so a program fails the same way before and while it runs.
// Dims may hold -1 (unknown) where a comment says so; everything else takes
// known values. Functions throw UserError without a location.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/shape_util.h"

namespace stitch {

// Marks a statically unknown entry of a requested size list (expand, view).
// Distinct from -1, which in those lists means "keep" / "infer".
constexpr int64_t kUnknownSize = INT64_MIN;

// Strides that let `newSizes` view memory laid out as (oldSizes, oldStrides)
// without a copy (PyTorch's computeStride); nullopt when a new dim would span
// two non-contiguous chunks. Sizes must have equal numel.
std::optional<Dims> computeViewStrides(const Dims& oldSizes, const Dims& oldStrides,
                                       const Dims& newSizes);
[[noreturn]] void throwViewIncompatible();

// permute: dims wrapped and checked to be a permutation of [0, rank).
std::vector<int64_t> checkPermutation(const std::vector<int64_t>& dims, int64_t rank);

// expand: `self` may hold -1 (unknown); `requested` may hold -1 (keep the
// dim) and kUnknownSize. Result dims unknown where not determined.
// `dtype` only names the tensor in messages, as PyTorch does.
Dims expandShape(const Dims& self, const std::vector<int64_t>& requested,
                 std::optional<DType> dtype = std::nullopt);

// t() takes tensors of rank <= 2.
void checkTransposeRank(int64_t rank);

// select: index wrapped into [0, size); size must be known.
int64_t checkSelectIndex(int64_t index, int64_t dim, int64_t size);
void checkNotZeroDim(int64_t rank, const char* op);  // "select() cannot be applied to a 0-dim tensor."
void checkAtLeastOneDim(int64_t rank, const char* op);  // "chunk expects at least a 1-dimensional tensor"

// narrow: start wrapped; checks start + length <= size (size known).
int64_t checkNarrow(int64_t start, int64_t length, int64_t size);

// Piece lengths along a dim of known size.
std::vector<int64_t> splitLengths(int64_t dimSize, int64_t splitSize);

// How many leading size-1 dims `x[i] = v` drops from v's shape (PyTorch
// eager's setitem); nullopt when an unknown dim comes before the first
// dim that is not 1.
std::optional<size_t> setitemDroppedDims(const std::vector<int64_t>& shape);

std::vector<int64_t> chunkLengths(int64_t dimSize, int64_t chunks);
void checkChunks(int64_t chunks);
void checkSplitSize(int64_t splitSize);
void checkSplitWithSizes(const std::vector<int64_t>& sizes, int64_t dimSize, int64_t dim);

// movedim(source, destination) as a permutation of [0, rank).
std::vector<int64_t> movedimPermutation(int64_t source, int64_t destination, int64_t rank);

// flatten: (start, end) wrapped, checked; result shape (dims may be -1).
struct FlattenDims {
  int64_t start;
  int64_t end;
};
FlattenDims checkFlatten(int64_t start, int64_t end, int64_t rank);
Dims flattenShape(const Dims& in, FlattenDims range);

// cat: which inputs take part (PyTorch skips 1-d empty tensors), the wrapped
// dim and the result shape. Shapes may hold -1. `dim` is only meaningful when
// some input takes part.
struct CatPlan {
  std::vector<bool> participates;
  int64_t dim = 0;
  Dims shape;
};
CatPlan planCat(const std::vector<Dims>& shapes, int64_t dim);

// stack: all shapes equal (-1 matches anything); returns the result shape.
Dims stackShape(const std::vector<Dims>& shapes, int64_t dim);

// repeat: result shape (self may hold -1).
Dims repeatShape(const Dims& self, const std::vector<int64_t>& repeats);

// flip: dims wrapped and checked for duplicates.
std::vector<int64_t> checkFlipDims(const std::vector<int64_t>& dims, int64_t rank);

// tril / triu need a matrix (or a batch of them).
void checkTriangularRank(int64_t rank);

// index_select / gather argument checks.
void checkIndexSelectIndex(DType indexDType, int64_t indexRank);
void checkGatherIndex(DType indexDType, const Dims& self, const Dims& index, int64_t dim);

// Row-major strides of a shape (all dims known).
Dims rowMajorStrides(const Dims& sizes);

}  // namespace stitch
