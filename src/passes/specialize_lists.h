// specialize-lists: a List graph input whose length and element types are
// known (the caller specializes on the actual inputs) is rebuilt at the top
// of the graph from its elements, each with its exact type, so that
// `len(xs)` becomes a constant and `xs[i]` with a constant i an exactly typed
// value (the list's own type joins the elements' shapes: List[f32[?,4]]).
// The graph input stays the list, so the calling convention is unchanged.
//
//   graph(%xs : List[f32[?,4]])   elements f32[8,4], f32[2,4]
//   ->
//   %n = list.len(%xs)                       run-time guard: the length,
//   prim.if(scalar.eq(%n, 2)) {} else { prim.raise(...) }
//   %a = list.get(%xs, 0)
//   %b = list.get(%xs, 1)                    then every dim the list's type
//   %ok = scalar.and(size(%a, 0) == 8, numel(%a) == 32, size(%b, 0) == 2, ...)
//   prim.if(%ok) {} else { prim.raise(...) }      leaves open
//   %xs.1 : f32[8,4] = immut.expand(%a, [8, 4])   (the exact type; the
//   %xs.2 : f32[2,4] = immut.expand(%b, [2, 4])    identity after the guard)
//   %xs.3 = prim.list_construct(%xs.1, %xs.2)     replaces every use of %xs
//
// A run on a list of another length or other element shapes fails with a
// clear message instead of giving a wrong result. Shape inference must run
// again afterwards for the exact types to reach the rest of the graph (after
// canonicalize has taken the elements out of the rebuilt list).
// Only lists of tensors with known dtype and rank, or of scalars, and at most
// kMaxSpecializedListLength elements, are specialized. Returns whether
// anything changed.
#pragma once
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace stitch {

// Per graph input: the exact types of a list input's elements, or nullopt
// (not a list, or not specialized).
using ListInputTypes = std::vector<std::optional<std::vector<TypePtr>>>;

constexpr size_t kMaxSpecializedListLength = 64;

bool specializeListInputs(Graph& graph, const ListInputTypes& elementTypes);

}  // namespace stitch
