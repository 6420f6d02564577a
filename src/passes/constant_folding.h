// constant-folding: replaces the pure scalar and list computations whose
// value is known at compile time (scalar.* arithmetic, list ops on constants,
// size/dim/numel of tensors with static shapes, prim.dtype) by prim.constant
// nodes; what they fed on is then dead (dce). The evaluation is shape
// inference's (static_eval.h), so a value that would fail at run time
// (1 // 0) stays as it is and fails when run.
//
//   %n = size(%x, 0)      (x: f32[4,3])       %n = prim.constant[value=4]()
//   %m = scalar.mul(%n, 2)            ->      %m = prim.constant[value=8]()
//
// Returns whether anything was folded.
#pragma once
#include "ir/graph.h"

namespace stitch {

bool foldConstants(Graph& graph);

}  // namespace stitch
