// The steps of a contraction's epilogue after its bias
// (ugraph/contraction_epilogue.h) that the kernel applies to each finished
// tile of its product, as a C function rendered into the program's
// translation unit next to its kernels:
//
//   void NAME(float* c, int64_t rows, int64_t ldc, int64_t cols,
//             const float* const* operands)
//
// c[r * ldc + j] = steps(c[r * ldc + j]) for r < rows, j < cols, where
// the i-th combining step reads operands[i][r * ldc + j] (each operand of
// C's shape, its pointer at the tile's first element). Each step is the
// same C expression (c_expr.h) and helpers (c_prelude.h) a kernel of its
// own would use, rounded to f32 in turn, compiled with the kernels' flags:
// the values are that kernel's to the bit. The host's compiler made slower
// code of the same helpers (the exact GELU 12-18% slower than the kernels'
// compiler on AVX-512), and generated code interleaves the long dependent
// chains of exp, tanh and erf the way kernels do (c_renderer.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/c_prelude.h"
#include "ugraph/contraction_epilogue.h"

namespace stitch {

struct TileEpilogue {
  std::string name;                 // the function's symbol
  std::vector<EpilogueStep> steps;  // f32 steps (ugraph/contraction_epilogue.h)
};

using TileEpilogueFunction = void (*)(float* c, int64_t rows, int64_t ldc, int64_t cols,
                                      const float* const* operands);

// The C function (C target), its helpers added to `prelude`.
std::string renderTileEpilogue(const TileEpilogue& epilogue, CPrelude& prelude);

// The symbol of the tile epilogue of contraction kernel `kernel`.
std::string tileEpilogueName(const std::string& kernel);

}  // namespace stitch
