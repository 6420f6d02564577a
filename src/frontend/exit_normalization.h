// Removes the need for control-flow exits in the middle of a statement list:
// after `if c: break` / `continue` / `return x`, the statements that follow
// move into the branch that does not exit (and are dropped after an
// unconditional exit). Afterwards an exit statement is always the last of its
// list, so the emitter needs no guards, only a flag for `break`.
//
//   for ...:                     for ...:
//     if c:                        if c:
//       continue          ->         continue
//     x = x + 1                    else:
//                                    x = x + 1
#pragma once
#include "frontend/ast.h"

namespace stitch {

StmtList normalizeExits(const StmtList& body);

// Variables through which a `return` inside a loop leaves it: the flag says
// a return ran, the value is what it returned.
inline constexpr const char* kLoopReturnFlag = "$returned";
inline constexpr const char* kLoopReturnValue = "$retval";

// The first `return` anywhere in a statement list, nested loops included.
const Stmt* findReturn(const StmtList& body);

// True when every path through the list ends in break / continue / return.
bool alwaysExits(const StmtList& body);

}  // namespace stitch
