// x86-64 code generator for unary primitives on an M x N column-major block:
// zero, identity (copy), relu, square, reciprocal, increment, exp; each can
// write its output transposed (identity + transpose = the permute primitive).
#pragma once
#include <memory>

#include "tensorop/kernel_desc.h"

namespace Xbyak {
class CodeGenerator;
}

namespace stitch::tensorop {

// Transposed output gathers along N with 32-bit indices, so the caller must
// keep ld_in * n below 2^31 for transposing kernels.
std::unique_ptr<Xbyak::CodeGenerator> makeUnaryGenerator(const UnaryDesc& d,
                                                         Isa isa);

}  // namespace stitch::tensorop
