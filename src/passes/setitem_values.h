// setitem-values: the value of a subscript assignment, `x[i] = v`, loses
// its leading size-1 dims in PyTorch eager (so a [1, 4] row fits x[0] of
// shape [4]); the frontend marks it with prim.setitem_value. With v's static
// shape the marker becomes the plain views it stands for, which the rest of
// functionalization knows:
//
//   %r = prim.setitem_value(%v)    (v: f32[1,1,4])     %a = squeeze(%v, 0)
//   copy_(%row, %r)                          ->         %r = squeeze(%a, 0)
//                                                       copy_(%row, %r)
//
// Where v's leading dims are not static the marker becomes its pure twin,
// immut.setitem_value, a copy with the dims dropped at run time (only read
// by the write, so no alias is lost). Returns whether anything was
// rewritten.
#pragma once
#include "ir/graph.h"

namespace stitch {

bool lowerSetitemValues(Graph& graph);

}  // namespace stitch
