// PyTorch's memory-overlap checks for ops that write: a written tensor must
// not have several elements on one memory location (an expanded view), and
// must not share memory with an input unless it is the very same view.
// Layouts the check cannot decide (non-dense views) pass, as in PyTorch.
#pragma once
#include "interp/tensor.h"

namespace stitch {

enum class MemOverlap { No, Full, Partial, TooHard };

// Dims ordered by stride form a contiguous block (a permuted contiguous tensor).
bool isNonOverlappingAndDense(const Tensor& t);
// Yes only for a dim of size > 1 with stride 0.
bool hasInternalOverlap(const Tensor& t);
// How the memory of a and b overlaps.
MemOverlap memOverlap(const Tensor& a, const Tensor& b);
// Same memory addressed the same way (strides of size-1 dims aside).
bool sameView(const Tensor& a, const Tensor& b);

// UserErrors with PyTorch's messages.
void checkNoInternalOverlap(const Tensor& written);
void checkNoOverlap(const Tensor& written, const Tensor& input);

}  // namespace stitch
