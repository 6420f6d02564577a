#include "ugraph/alu_op.h"

namespace stitch {

const char* aluOpName(AluOp op) {
  switch (op) {
    case AluOp::Neg: return "NEG";
    case AluOp::LogicalNot: return "NOT";
    case AluOp::BitNot: return "BITNOT";
    case AluOp::Abs: return "ABS";
    case AluOp::Sign: return "SIGN";
    case AluOp::Floor: return "FLOOR";
    case AluOp::Ceil: return "CEIL";
    case AluOp::Round: return "ROUND";
    case AluOp::Trunc: return "TRUNC";
    case AluOp::Exp: return "EXP";
    case AluOp::ExpNonPos: return "EXP_NONPOS";
    case AluOp::Exp2: return "EXP2";
    case AluOp::Expm1: return "EXPM1";
    case AluOp::Log: return "LOG";
    case AluOp::Log2: return "LOG2";
    case AluOp::Log1p: return "LOG1P";
    case AluOp::Sqrt: return "SQRT";
    case AluOp::Rsqrt: return "RSQRT";
    case AluOp::Reciprocal: return "RECIP";
    case AluOp::Sin: return "SIN";
    case AluOp::Cos: return "COS";
    case AluOp::Tan: return "TAN";
    case AluOp::Asin: return "ASIN";
    case AluOp::Acos: return "ACOS";
    case AluOp::Atan: return "ATAN";
    case AluOp::Sinh: return "SINH";
    case AluOp::Cosh: return "COSH";
    case AluOp::Tanh: return "TANH";
    case AluOp::Sigmoid: return "SIGMOID";
    case AluOp::Silu: return "SILU";
    case AluOp::Erf: return "ERF";
    case AluOp::GeluErf: return "GELU";
    case AluOp::GeluTanh: return "GELU_TANH";
    case AluOp::Relu: return "RELU";
    case AluOp::IsNan: return "ISNAN";
    case AluOp::Add: return "ADD";
    case AluOp::Sub: return "SUB";
    case AluOp::Mul: return "MUL";
    case AluOp::Div: return "DIV";
    case AluOp::Mod: return "MOD";
    case AluOp::FloorDiv: return "FLOORDIV";
    case AluOp::Remainder: return "REMAINDER";
    case AluOp::Pow: return "POW";
    case AluOp::Atan2: return "ATAN2";
    case AluOp::Max: return "MAX";
    case AluOp::Min: return "MIN";
    case AluOp::CmpLT: return "CMPLT";
    case AluOp::CmpLE: return "CMPLE";
    case AluOp::CmpEQ: return "CMPEQ";
    case AluOp::CmpNE: return "CMPNE";
    case AluOp::LogicalAnd: return "AND";
    case AluOp::LogicalOr: return "OR";
    case AluOp::LogicalXor: return "XOR";
    case AluOp::BitAnd: return "BITAND";
    case AluOp::BitOr: return "BITOR";
    case AluOp::BitXor: return "BITXOR";
    case AluOp::Where: return "WHERE";
    case AluOp::MulAdd: return "MULADD";
  }
  return "?";
}

const char* reduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "SUM";
    case ReduceOp::Prod: return "PROD";
    case ReduceOp::Max: return "MAX";
    case ReduceOp::Min: return "MIN";
  }
  return "?";
}

int aluOpArity(AluOp op) {
  if (op == AluOp::Where || op == AluOp::MulAdd) return 3;
  return op >= AluOp::Add ? 2 : 1;
}

bool aluOpReturnsBool(AluOp op) {
  return op == AluOp::LogicalNot || op == AluOp::IsNan || op == AluOp::CmpLT ||
         op == AluOp::CmpLE || op == AluOp::CmpEQ || op == AluOp::CmpNE ||
         op == AluOp::LogicalAnd || op == AluOp::LogicalOr || op == AluOp::LogicalXor;
}

}  // namespace stitch
