// canonicalize: removes Access/Assign pairs and conversions that give back a
// value already at hand (the functional graph has many after rewrite-mutation):
//
//   immut.select(immut.select_rev(%x, %v, d, i), d, i)   -> %v
//   immut.slice(immut.slice_rev(%x, %v, d, s, e, k), d, s, e, k) -> %v
//   immut.assign(%x, %v)   (v has x's static type)        -> %v
//   immut.view(%x, size)   (result has x's static type)   -> %x
//   to(%x, dtype)          (x already has that dtype)     -> %x
//
// Each rewrite above needs fully known static types on both sides (an
// unknown dim could differ at run time). Lists built in the graph fold
// whatever their types (a list is a value: append makes a new one):
//
//   list.get(prim.list_construct(%a, %b), 1)              -> %b
//   list.append(prim.list_construct(%a), %v)  (the list used only here,
//                                       or empty)
//                                       -> prim.list_construct(%a, %v)
//
// (`len` of a constructed list is constant folding's.) The replaced node is
// then dead (dce). Where the value may be a graph input (itself, or one a
// loop or branch passes on unchanged) and the replaced one leaves a block (graph output, loop-carried or branch result), that use
// reads clone(input) instead: after a run the driver writes an input's new
// value into its buffer, which a copy made before the write must not show.
// Returns whether anything was rewritten.
#pragma once
#include "ir/graph.h"

namespace stitch {

bool canonicalize(Graph& graph);

}  // namespace stitch
