// Writes PyTorch refuses at run time because of memory layout. The
// imperative program raises there ("more than one element of the
// written-to tensor refers to a single memory location", "some elements of
// the input tensor and the written-to tensor refer to a single memory
// location"), so functionalization must not turn them into a pure program
// that runs. For one write (copy_, fill_, zero_ after remove-inplace), throws
// UserError at the write when
//
//   - a copy_ (any in-place op but fill_ / zero_) writes an expanded tensor
//     with several elements on one memory location:
//         x.expand(3, 4).add_(1.0)                  (x : f32[1, 4])
//   - a tensor the write reads (copy_'s source; for the copy_ remove-inplace
//     made of an in-place op, that op's other operands) views the written
//     tensor's buffer, is not the same view, and overlaps it:
//         y.copy_(y.t())        y[1:] = y[:-1]       y[1:].add_(y[:-1])
//     as PyTorch decides: dense layouts whose memory ranges meet; same-view
//     reads (x.mul_(x), x[0].add_(x[0])), disjoint ones and non-dense ones
//     pass. With run-time indices, a read overlaps when some index values
//     make it overlap (alias_analysis.h); without static layouts, always.
#pragma once
#include "ir/graph.h"
#include "passes/alias_analysis.h"

namespace stitch {

void checkWriteOverlap(const AliasTree& tree, Node* write);

}  // namespace stitch
