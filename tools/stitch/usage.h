// Help texts of the `stitch` command and its subcommands.
#pragma once
#include <string>

namespace stitch::cli {

// "stitch 0.1.0 (TensorStitch)"
std::string versionLine();
extern const char* const kMainUsage;
extern const char* const kRunUsage;
extern const char* const kDumpUsage;

}  // namespace stitch::cli
