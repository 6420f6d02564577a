#include "common/error.h"

namespace stitch {

std::string SourceLoc::str() const {
  if (!known()) return "";
  return errorMessage(file.empty() ? "<input>" : file, ":", line, ":", col);
}

static std::string formatWithLoc(const SourceLoc& loc, const std::string& message) {
  if (loc.known()) return loc.str() + ": error: " + message;
  return "stitch: error: " + message;
}

std::string UserError::formatted() const { return formatWithLoc(loc_, message_); }
std::string RuntimeFailure::formatted() const { return formatWithLoc(loc_, message_); }

void internalFailure(const char* cond, const char* file, int line, const std::string& message) {
  throw InternalError(errorMessage("internal error: ", message.empty() ? "" : message + " ",
                                   "(", cond, " failed at ", file, ":", line, ")"));
}

}  // namespace stitch
