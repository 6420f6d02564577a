// The C backend: one translation unit for all kernels of a program.
//
//   #include <stdint.h> / stitch_scalar (codegen/kernel_abi.h), <math.h>
//   static inline helpers the kernels need (codegen/c_prelude.h)
//   void NAME(void* const* bufs, const stitch_scalar* params, int64_t threads) { ... }
//
// Each value uop becomes `const T vN = ...;`, LOOP / ENDLOOP plain counted
// for loops (innermost loops stay branch-free so the C compiler vectorizes
// them), DEFINE_ACC a mutable local updated by its PHI. A kernel with a grid
// (SPECIAL) is split in two: NAME_blocks runs a range of grid blocks, and
// NAME hands the whole range to the host's parallel loop
// (codegen/parallel_blocks.h); the grid count never depends on the thread
// count, so neither do the results.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "uops/uop.h"

namespace stitch {

std::string renderC(const std::vector<KernelUOps>& kernels);

// The grid's block count when the kernel's whole work is its exported block
// range `void NAME_blocks(bufs, params, begin, end)` over [0, count) (no
// scratch shared by the blocks, nothing after the grid); 0 when the kernel
// has no grid or more than one.
int64_t blockRangeCount(const KernelUOps& kernel);

}  // namespace stitch
