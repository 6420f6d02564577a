// What a function is specialized on, from its arguments: the types shape
// inference starts from and each list argument's element types (for
// passes/specialize_lists.h). Compilation, dumps and the internal tests
// that build arguments from the command line's specs share it.
#pragma once
#include <optional>
#include <vector>

#include "frontend/frontend.h"
#include "passes/specialize_lists.h"
#include "stitch/stitch.h"

namespace stitch {

// One type per parameter: the argument's concrete type, or the annotation
// where no argument is given (nullopt) or the argument is an empty list
// for a List parameter (it says nothing about its elements). CompileError for more arguments
// than parameters.
std::vector<TypePtr> argumentTypes(const FunctionSignature& fn, const std::vector<std::optional<api::Value>>& args);

// Per parameter: a list argument's element types one by one, nullopt for
// other parameters and for those not given.
ListInputTypes listElementTypes(const FunctionSignature& fn, const std::vector<std::optional<api::Value>>& args);

}  // namespace stitch
