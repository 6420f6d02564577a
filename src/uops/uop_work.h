// Static work estimate of a kernel's uops: how many value operations one
// call executes. Counted are the ALU and CAST uops that compute data (not
// index arithmetic: a uop whose value only reaches LOAD / STORE indices or
// loop bounds) and every STORE, each times the iterations of the loops
// around it. Loop bounds are evaluated per grid block (a block's share of
// the split loop depends on gidx0) and per value of the enclosing loop
// variables they read, once at the loop's first iteration; a bound that
// needs a run-time value (DEFINE_VAR) counts its largest possible trip count.
//
// Compared with the same count for each op of the kernel compiled on its
// own (driver/work_estimate.h), it says whether fusion inflated the work:
// a value recomputed per element of a loop it does not depend on.
#pragma once
#include <cstdint>

#include "uops/uop.h"

namespace stitch {

int64_t uopWork(const UOpGraph& uops);

// The same count with each data ALU weighted by its rough cost in simple
// operations (a float transcendental or division counts kTranscendentalCost,
// a division by a constant the operations that replace the divider:
// ugraph/numerics.h constantDivision): what a call costs, for choosing
// whether it is worth a thread team.
constexpr int64_t kTranscendentalCost = 16;
constexpr int64_t kCorrectedDivisionCost = 4;
int64_t uopCost(const UOpGraph& uops);

}  // namespace stitch
