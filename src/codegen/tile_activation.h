// The activation a contraction kernel applies to each finished tile of its
// product (ugraph/contraction_epilogue.h), as a C function rendered into the
// program's translation unit next to its kernels:
//
//   void NAME(float* c, int64_t rows, int64_t ldc, int64_t cols)
//
// c[r * ldc + j] = act(c[r * ldc + j]) for r < rows, j < cols, through the
// same C expression (c_expr.h) and helpers (c_prelude.h) a kernel of its own
// would use, and compiled with the kernels' flags: the values are that
// kernel's to the bit. The host's compiler made slower code of the same
// helpers (the exact GELU 12-18% slower than the kernels' compiler on
// AVX-512), and generated code interleaves the long dependent chains of
// exp, tanh and erf the way kernels do (c_renderer.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/c_prelude.h"
#include "ugraph/alu_op.h"

namespace stitch {

struct TileActivation {
  std::string name;  // the function's symbol
  AluOp op;          // a unary f32 activation (ugraph/contraction_epilogue.h)
};

using TileActivationFunction = void (*)(float* c, int64_t rows, int64_t ldc, int64_t cols);

// The C function (C target), its helpers added to `prelude`.
std::string renderTileActivation(const TileActivation& activation, CPrelude& prelude);

// The symbol of the activation of contraction kernel `kernel`.
std::string tileActivationName(const std::string& kernel);

}  // namespace stitch
