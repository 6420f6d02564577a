// x86-64 code generator for BRGEMM (AVX-512 or AVX2).
//
// Register blocking: C is computed in blocks of up to 4 vectors along M
// (64 rows on AVX-512) by nb columns, held in registers across the whole
// batch-reduce and K loop. Per k step the block loads mv vectors of one A
// column and broadcasts nb elements of B; row tails use masked loads/stores.
// The column-major layout puts M on the vector lanes, so A and C are read
// with plain vector loads and B with scalar broadcasts.
#pragma once
#include <memory>

#include "tensorop/kernel_desc.h"

namespace Xbyak {
class CodeGenerator;
}

namespace stitch::tensorop {

// Vectors along M in one row pass: 4 zmm (64 rows) or 2 ymm (16 rows).
int brgemmPassVectors(Isa isa);

// Generates code for `d` (trans_a must be false; the caller packs A).
std::unique_ptr<Xbyak::CodeGenerator> makeBrgemmGenerator(const BrgemmDesc& d,
                                                          Isa isa);

}  // namespace stitch::tensorop
