// Reads the IR text form (printer.h) back into a Graph. Op overloads are
// picked by the inputs' types, so printing the result gives the same text.
// Malformed text throws UserError located at line:col within the text.
#pragma once
#include <memory>
#include <string>

#include "ir/graph.h"

namespace stitch {

std::unique_ptr<Graph> parseGraph(const std::string& text);

}  // namespace stitch
