// Element-level operations shared by thread graphs (ugraph), UOps (uops) and
// the renderers (codegen). Each op's meaning per dtype is fixed here; the C
// renderer's prelude implements exactly this, mirroring the reference
// interpreter (interp/scalar_math.h, interp/elementwise_*.cpp).
#pragma once
#include <cstdint>

namespace stitch {

enum class AluOp : uint8_t {
  // Unary.
  Neg,         // wraps for integers
  LogicalNot,  // bool result
  BitNot,      // ints; bool: logical not
  Abs,
  Sign,
  Floor,
  Ceil,
  Round,       // half to even, as torch.round
  Trunc,
  Exp, Exp2, Expm1, Log, Log2, Log1p, Sqrt, Rsqrt, Reciprocal,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh,
  Sigmoid, Silu, Erf, GeluErf, GeluTanh, Relu,
  ExpNonPos,   // exp of an argument its producer knows is <= 0 or NaN (x - max x):
               // exp's value; a cheaper f32 kernel (common/kernel_math.h)
  IsNan,       // bool result
  // Binary.
  Add, Sub, Mul,  // wrap for integers
  Div,         // floats: IEEE division. ints: C division (index arithmetic on non-negative values only)
  Mod,         // ints: C remainder (index arithmetic on non-negative values only)
  FloorDiv,    // Python floor division (torch.floor_divide); ints: divisor != 0 checked by the caller
  Remainder,   // Python remainder, sign of the divisor (torch.remainder)
  Pow,         // ints: integer power as torch (interp/scalar_math.h intPow)
  Atan2,
  Max, Min,    // NaN-propagating (torch.maximum / minimum)
  CmpLT, CmpLE, CmpEQ, CmpNE,  // bool result; operands of one dtype
  LogicalAnd, LogicalOr, LogicalXor,  // on bool operands, bool result
  BitAnd, BitOr, BitXor,
  // Ternary.
  Where,       // (bool cond, a, b)
  MulAdd,      // floats: a * b + c rounded once (fma); the linearizer's sums of products
};

enum class ReduceOp : uint8_t { Sum, Prod, Max, Min };

const char* aluOpName(AluOp op);        // "ADD", "CMPLT", ... (uops dumps)
const char* reduceOpName(ReduceOp op);  // "SUM", ...
int aluOpArity(AluOp op);
// Whether the op returns bool whatever its operands' dtype.
bool aluOpReturnsBool(AluOp op);

}  // namespace stitch
