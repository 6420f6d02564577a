// Value bounds of i64 uops (UOp::vmin / vmax), known when a uop is added:
// constants are exact, a SPECIAL is in [0, n), a LOOP in [start.vmin,
// end.vmax - 1], and ALU ops propagate bounds (a bound that would overflow
// becomes unbounded). The index simplifier relies on them.
#pragma once
#include <vector>

#include "uops/uop.h"

namespace stitch {

// Sets u.vmin / u.vmax from its operands (already in `uops`). Non-i64 uops
// stay unbounded.
void computeRange(UOp& u, const std::vector<UOp>& uops);

}  // namespace stitch
