// Indentation-aware lexer for the Python subset. Produces NEWLINE / INDENT /
// DEDENT like Python's tokenizer: newlines inside brackets and after a
// backslash join lines; blank and comment-only lines produce nothing.
#pragma once
#include <string>
#include <vector>

#include "frontend/token.h"

namespace stitch {

// Throws UserError at the offending character (bad indentation, unterminated
// string, stray character, unsupported literal).
std::vector<Token> tokenize(const std::string& source, const std::string& filename);

}  // namespace stitch
