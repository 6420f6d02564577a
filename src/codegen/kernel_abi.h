// How generated kernels are called. Every kernel of a program is a C function
//
//   void NAME(void* const* bufs, const stitch_scalar* params, int64_t threads);
//
// bufs: one pointer per buffer slot, outputs first, each a dense row-major
// array of its value's static shape and dtype (bool: one byte, 0 or 1).
// params: one value per scalar parameter (i64 in .i, f64 in .f, bool as .i).
// threads: the OpenMP thread count for the grid loop (>= 1).
#pragma once
#include <cstdint>

namespace stitch {

union StitchScalar {
  int64_t i;
  double f;
};

using KernelFunction = void (*)(void* const* bufs, const StitchScalar* params, int64_t threads);

// A CUDA kernel (codegen/c_renderer.h renderCuda) takes one argument by
// value, `stitch_args`: the same buffers (device addresses) and scalar
// parameters in fixed arrays, then the scratch buffers it needs.
inline constexpr int64_t kCudaMaxBuffers = 128;
inline constexpr int64_t kCudaMaxParams = 64;
struct CudaKernelArgs {
  uint64_t bufs[kCudaMaxBuffers];
  StitchScalar params[kCudaMaxParams];
};

// The same declarations in C, emitted at the top of every generated file.
inline constexpr const char* kKernelAbiC =
    "#include <stdint.h>\n"
    "typedef union { int64_t i; double f; } stitch_scalar;\n";

}  // namespace stitch
