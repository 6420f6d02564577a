// Recursive-descent parser: tokens -> AST for the Python subset. Imports of
// torch / math / typing are checked and dropped; constructs outside the
// subset are rejected with "X is not supported" at their location.
#pragma once
#include <string>

#include "frontend/ast.h"

namespace stitch {

// Throws UserError with the exact location of the first problem.
Module parseModule(const std::string& source, const std::string& filename);

}  // namespace stitch
