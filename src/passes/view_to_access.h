// The first half of rewrite-mutation: every view op becomes its immutable
// Access twin, and the aliases it created are recorded.
//
//   %v = select(%x, %0, %i)        ->  %v = immut.select(%x, %0, %i)
//   %l = chunk(%x, %2, %1)         ->  %a = immut.slice(%x, %1, %0, %3, %one)
//                                      %b = immut.slice(%x, %1, %3, %6, %one)
//                                      %l = prim.list_construct(%a, %b)
//   %e = list.get(%l, %k)          ->  %e = immut.slice(%x, %1, %k*3, %k*3+3, %one)
//
// narrow/t/transpose/movedim/flatten/reshape/view_as/expand_as map onto the
// Access ops the registry has (slice, transpose, permute, view, expand).
// reshape, flatten and contiguous alias their input only when PyTorch would
// view it (decided on static strides); otherwise they become copies (roots).
// Elements read from plain tensor lists (list.get, prim.list_unpack) are
// recorded as ListElement aliases of the list. Refused with a UserError
// where PyTorch raises at run time: view/view_as of strides that do not
// allow the view (x.t().view(6)), and unpacking chunk/split/unbind pieces
// into another number of names (a, b, c = x.unbind(0) with 2 rows).
#pragma once
#include "ir/graph.h"
#include "passes/alias_analysis.h"

namespace stitch {

AliasTree convertViewsToAccess(Graph& graph);

}  // namespace stitch
