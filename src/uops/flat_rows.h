// Flat rows: a loop over rows around a loop over a slice of each row's
// columns, [a, b) of a row of `rowLength`, run as one loop over the flat
// range from row 0's column a to the last row's column b, when the rows lie
// back to back in every buffer the body touches. The columns outside the
// slice are then computed too (a few extra elements per row) and written,
// so this is only for a slice whose complement the same block writes again
// right after (the linearizer's short pieces of a row: the YOLO head's
// sigmoid over x[..., 4:85] with x[..., 0:4] written apart). The innermost
// loop then runs thousands of contiguous trips, not 81 (a vector loop and
// its scalar tail per row).
#pragma once
#include <cstdint>

#include "uops/uop.h"

namespace stitch {

// Whether the uops of g from rowLoop (a LOOP over rows [r0, r1)) to the end,
// all inside it, can run with rowLoop over [r0, r0 + 1) and colLoop (the
// LOOP inside it, over [a, b)) over [a, (r1 - r0 - 1) * rowLength + b):
// every index that depends on either loop is
// `h + s * (row * rowLength + col)` (each is then the flat variable's,
// and the flat range's accesses lie between the nest's first and last
// ones: in bounds), no other value depends on a loop variable (a select on
// the column, a cast of the row), the body reads only kernel inputs and
// writes only kernel outputs, and nothing in it can trap on the extra
// columns' values (an integer division, a float-to-integer conversion).
bool runsFlat(const UOpGraph& g, int rowLoop, int colLoop, int64_t rowLength);

}  // namespace stitch
