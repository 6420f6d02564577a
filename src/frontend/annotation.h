// Type annotations (`torch.Tensor`, `int`, `List[float]`, `Tuple[Tensor, int]`,
// `Optional[T]`) -> IR types.
#pragma once
#include "frontend/ast.h"
#include "ir/type.h"

namespace stitch {

// Optional[T] gives T and sets *optional; without `optional` it is an error.
// Throws UserError "unsupported type annotation" for anything else.
TypePtr annotationType(const Expr& e, bool* optional = nullptr);

}  // namespace stitch
