// The command line's own errors (a bad argument, spec or file): the API's
// CompileError with the text an error without a source location has,
// "stitch: error: message", so the command prints one line and exits 2
// whether the compiler or the command found the mistake.
//
//   throw userError("input '", name, "' is given twice");
#pragma once
#include <sstream>
#include <string>

#include "stitch/stitch.h"

namespace stitch::cli {

// A message from stream pieces: joined("dim ", d, " out of range").
template <typename... Parts>
std::string joined(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

template <typename... Parts>
api::CompileError userError(const Parts&... parts) {
  return api::CompileError("stitch: error: " + joined(parts...));
}

}  // namespace stitch::cli
