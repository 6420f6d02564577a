// remove-inplace: every in-place op other than copy_, fill_ and zero_ becomes
// its out-of-place twin followed by copy_ into self, so that those three are
// the only writes left (fill_/zero_ may write through an expanded view, which
// copy_ may not):
//
//   %y = add_(%x, %z, %one)     ->   %t = add(%x, %z, %one)
//   ... uses of %y ...                copy_(%x, %t)
//                                     ... uses of %x ...
//
// An in-place op keeps self's dtype: when the out-of-place result promotes
// (f32 self, f64 other) a `to(%t, f32)` is inserted before the copy_. Every
// in-place op's result is self, so its uses are redirected to self (copy_'s
// result included). The out-of-place op (and its cast) sits right before the
// copy_, where write_overlap.h finds the operands the in-place op read.
#pragma once
#include "ir/graph.h"

namespace stitch {

void removeInplace(Graph& graph);

}  // namespace stitch
