// rewrite-mutation (FuncTs): views become immut.* Access ops (see
// view_to_access.h) and every copy_ becomes Assign ops plus version markers.
// For copy_(%v, %src) where %v = immut.select(%x, 0, %i):
//
//   pass up:   %a  = immut.assign(%v, %src)          // src broadcast, cast
//              %x1 = immut.select_rev(%x, %a, 0, %i) // the new root
//              tssa.update(%x1, %x)
//   pass down: %v1 = immut.select(%x1, 0, %i)        // every other live alias
//              tssa.update(%v1, %v)                   // of %x, re-derived
//
// A tssa.update(new, old) says: from here on, `old` reads as `new`. Markers
// inside loop/if bodies are made loop-carried / branch outputs by
// block-propagation, then resolved by rename. Expects remove-inplace to have
// run (copy_, fill_ and zero_ are the only writes left, results unused).
// A write into a whole expanded view folds back onto its base (PyTorch only
// allows fill-like writes there). Aliasing the alias tree cannot follow is
// refused with a UserError at the node: a view or outer tensor flowing through
// a loop/branch when either name is written, a loop input written through the
// block parameter while still visible elsewhere, a loop input written under
// another name inside the loop (or after it, when the loop's output may
// still be the input: no iteration, a break), a loop output that may still
// be its input written while the input is visible elsewhere, two loop slots
// the body gives one buffer when either is written, a tensor both in a list and
// used directly (or a view in a list) when written, a write into part of an
// expanded view; and writes PyTorch itself refuses for their memory layout
// (write_overlap.h). Not refused, because rename gives them the versions
// current where they are made: a branch output that shares a tensor, and a
// list of tensors that are also used directly, when nothing writes that
// tensor (or the list's) after the branch or the list and neither the
// output, the list nor a view of them goes into a loop, a list, a tuple or
// a block's returns (functionalize.h runs the passes that turn the other
// common cases into these).
#pragma once
#include "ir/graph.h"

namespace stitch {

void rewriteMutation(Graph& graph);

}  // namespace stitch
