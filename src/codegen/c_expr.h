// C expressions for single uops: ALU ops and casts per operand dtype, and
// constant literals. Every expression computes what the reference
// interpreter computes for that op and dtype (see ugraph/alu_op.h); ops
// without a one-line form call helpers that are added to the prelude.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "codegen/c_prelude.h"
#include "ugraph/alu_op.h"
#include "uops/uop.h"

namespace stitch {

// `args` are C operands (names or literals); `operand` is the dtype of the
// value operands (for WHERE: of the two choices). InternalError when the op
// has no meaning for that dtype.
std::string renderAluExpr(AluOp op, DType operand, const std::vector<std::string>& args,
                          CPrelude& prelude);

// a / c for a float constant c in the form ugraph/numerics.h's
// constantDivision chooses; nullopt where that is a plain division.
std::optional<std::string> renderDivByConstant(DType t, const std::string& a, double c, CPrelude& prelude);

std::string renderCastExpr(DType from, DType to, const std::string& arg, CPrelude& prelude);

// The literal of a CONST uop: exact (shortest round-trip decimal for
// floats), parenthesized when negative.
std::string renderConstC(const UOp& constant);

}  // namespace stitch
