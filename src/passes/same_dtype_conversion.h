// same-dtype-conversion: `x.to(dtype)` (and `x.float()`, ...) where x already
// has that dtype returns x itself in PyTorch, not a copy: a later write
// through the result writes x. The graph says so by using x directly, so the
// functionalizer sees the alias (the `to` op itself always makes a new value).
//
//   %y = to(%x, f32)    (x: f32[3])         (uses of %y read %x)
//   %z = mul_(%y, 2)             ->         %z = mul_(%x, 2)
//
// Needs x's static dtype; returns whether anything was rewritten.
#pragma once
#include "ir/graph.h"

namespace stitch {

bool removeSameDtypeConversions(Graph& graph);

}  // namespace stitch
