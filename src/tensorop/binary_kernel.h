// x86-64 code generator for binary primitives (add, sub, mul, div, min, max)
// on an M x N column-major block with per-operand broadcasting: a leading
// dimension of 0 repeats a column, bcast_m repeats one element down a column.
#pragma once
#include <memory>

#include "tensorop/kernel_desc.h"

namespace Xbyak {
class CodeGenerator;
}

namespace stitch::tensorop {

std::unique_ptr<Xbyak::CodeGenerator> makeBinaryGenerator(const BinaryDesc& d,
                                                          Isa isa);

}  // namespace stitch::tensorop
