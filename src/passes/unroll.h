// unroll: replaces a loop marked as a parallel map (parallel_map.h) whose
// trip count is a constant of at most kMaxUnrolledTrips by copies of its
// body in straight-line code: copy i sees the counter as the constant i and
// the carried values copy i-1 gave back; the loop's results are the last
// copy's. Shape inference must run again afterwards: each copy then gets the
// exact types of its own iteration (the loop body's types join every
// iteration's, f32[?,4]), so its ops have static shapes and can become
// kernels.
//
//   %l = prim.loop[pmap=true](2, %true, %empty)        %a = list.get(%xs, 0)
//     block0(%i, %acc):                               %l.0 = list.append(%empty, f(%a))
//       %a = list.get(%xs, %i)                  ->    %b = list.get(%xs, 1)
//       -> (%true, list.append(%acc, f(%a)))          %l = list.append(%l.0, f(%b))
//
// Loops with a data-dependent or larger trip count, or a body so large that
// the copies would pass kMaxUnrolledNodes, stay loops. Returns whether any
// loop was unrolled.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ir/graph.h"

namespace stitch {

constexpr int64_t kMaxUnrolledTrips = 16;
constexpr size_t kMaxUnrolledNodes = 4096;

bool unrollParallelMaps(Graph& graph);

}  // namespace stitch
