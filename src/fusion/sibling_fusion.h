// Sibling fusion (FusionStitching's elementwise fusion, XLA's multi-output
// and horizontal fusion): groups with no producer-consumer link merge into
// one kernel when they read the same tensor (which the kernel then reads
// once) or when their kernels run one right after the other (one parallel
// loop instead of two). The merge must keep the group invariants
// (fusion_groups.h): all roots of one shape, and the earlier group's values
// not used before the later group's last node.
//
//   %a = exp(%x)     group {%a}, returned      one group {%a, %b}, roots %a, %b
//   %b = neg(%x)     group {%b}, returned  ->  (one pass over %x)
#pragma once
#include "fusion/fusion_groups.h"

namespace stitch {

// Returns whether any groups merged.
bool fuseSiblings(BlockGroups& groups);

}  // namespace stitch
