// Optimizer passes over a tensor operation's loops (see stitch::tensorop::
// optimize for the driver). Each pass rewrites the Dimension list in place.
//
// Example: a 1024^3 GEMM (m, n, k; column-major) with the default options
// becomes  m:seq:16  n:prim:1024  k:prim:1024  m:prim:64, i.e. one GEMM call
// over the whole reduction per 64-row block of C (A packed to a 256 KiB panel).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "stitch/tensorop.h"

namespace stitch::tensorop::passes {

// Drops loops of size 1; they only cost iterations.
void removeUnitDimensions(std::vector<Dimension>& dims);

// Merges a dim smaller than min_size with a dim of the same type that sits
// directly outside it in every tensor (stride = inner size * inner stride).
void fuseDimensions(std::vector<Dimension>& dims, int64_t min_size);
// Contractions: also merges m, n and k dims of any size while the merged
// extent stays within the kernel cap of that type (fewer, larger calls).
void fuseContractionDimensions(std::vector<Dimension>& dims,
                               const OptimizerOptions& options);
void fuseDimensionsIf(std::vector<Dimension>& dims,
                      const std::function<bool(const Dimension&, const Dimension&)>& allow);

// Splits dims larger than max_size into an outer loop and an inner part
// <= max_size, preferring inner sizes that suit the kernel (multiples of
// the vector width for m) and keeping both parts >= min_size where possible.
void splitDimensions(std::vector<Dimension>& dims, int64_t min_size,
                     int64_t max_size);
// Contractions: split m, k and n dims to the kernel's caps and batch (c)
// dims to max_kernel_size; splitDimensions is for the other primitives.
void splitContractionDimensions(std::vector<Dimension>& dims,
                                const OptimizerOptions& options);

// Marks the kernel's dims as prim (m, n, k and a batch-reduce k for
// contractions; one or two dims for unary/binary) and everything else seq.
// Returns the main primitive (gemm or brgemm for contractions).
// The batch-reduce dim is cut so that the A panel M*K*BR fits
// max_a_panel_bytes (16x that when the kernel packs a far-strided A); the
// rest of that reduction becomes a seq loop.
ptype_t identifyPrimitives(std::vector<Dimension>& dims, ptype_t main,
                           int64_t max_a_panel_bytes = INT64_MAX);

// Orders the non-prim loops: reduction loops innermost (the output block
// stays in cache across them), the rest by decreasing output stride.
void reorderLoops(std::vector<Dimension>& dims);

// Turns outer non-k loops into shared loops until their combined trip count
// reaches thread_target, then moves them to the front.
void parallelizeLoops(std::vector<Dimension>& dims, int64_t thread_target);

}  // namespace stitch::tensorop::passes
