// Two kinds of failure, kept apart on purpose:
//  - UserError: the program or the command line is wrong. It carries a
//    message and, when it comes from source, a location. The CLI prints
//    `FILE:LINE:COL: error: message` (or `stitch: error: message`) and exits 2.
//  - internal errors: a bug in TensorStitch. STITCH_ASSERT throws
//    InternalError with the failing condition and where it sits in our code.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace stitch {

struct SourceLoc {
  std::string file;  // empty: no location known
  int line = 0;      // 1-based
  int col = 0;       // 1-based
  bool known() const { return line > 0; }
  std::string str() const;  // "file:line:col", or "" when unknown
};

class UserError : public std::runtime_error {
 public:
  explicit UserError(std::string message, SourceLoc loc = {})
      : std::runtime_error(message), message_(std::move(message)), loc_(std::move(loc)) {}
  const std::string& message() const { return message_; }
  const SourceLoc& loc() const { return loc_; }
  // Attach a location if the error has none yet (the innermost one wins).
  UserError withLoc(const SourceLoc& loc) const {
    return loc_.known() ? *this : UserError(message_, loc);
  }
  // "FILE:LINE:COL: error: message" or "stitch: error: message".
  std::string formatted() const;

 private:
  std::string message_;
  SourceLoc loc_;
};

// A failure while running a well-formed program (e.g. a data-dependent index
// out of range). The CLI exits 1 for these.
class RuntimeFailure : public std::runtime_error {
 public:
  explicit RuntimeFailure(std::string message, SourceLoc loc = {})
      : std::runtime_error(message), message_(std::move(message)), loc_(std::move(loc)) {}
  const std::string& message() const { return message_; }
  const SourceLoc& loc() const { return loc_; }
  std::string formatted() const;

 private:
  std::string message_;
  SourceLoc loc_;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void internalFailure(const char* cond, const char* file, int line,
                                  const std::string& message);

// Builds a message from stream pieces: errorMessage("dim ", d, " out of range").
template <typename... Parts>
std::string errorMessage(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

}  // namespace stitch

#define STITCH_ASSERT(cond, ...)                                               \
  do {                                                                         \
    if (!(cond))                                                               \
      ::stitch::internalFailure(#cond, __FILE__, __LINE__,                     \
                                ::stitch::errorMessage("" __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)

#define STITCH_USER_CHECK(cond, loc, ...)                                      \
  do {                                                                         \
    if (!(cond)) throw ::stitch::UserError(::stitch::errorMessage(__VA_ARGS__), (loc)); \
  } while (0)
