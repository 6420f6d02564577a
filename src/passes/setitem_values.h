// setitem-values: the value of a subscript assignment, `x[i] = v`, is
// copied as PyTorch eager's setitem does (copy_to): v itself when it has the
// destination's shape; else v without its leading size-1 dims (so a [1, 4]
// row fits x[0] of shape [4]), expanded to the destination's shape. The
// frontend marks the value with prim.setitem_value; with static shapes the
// marker becomes the plain views it stands for, which the rest of
// functionalization knows (and whose layout the write's overlap check sees,
// as PyTorch's does):
//
//   %r = prim.setitem_value(%v)    (v: f32[1,1,4])     %a = squeeze(%v, 0)
//   copy_(%row, %r)   (row: f32[2,4])      ->          %b = squeeze(%a, 0)
//                                                      %r = expand(%b, [2, 4])
//                                                      copy_(%row, %r)
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
