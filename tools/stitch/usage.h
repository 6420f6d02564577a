// Help texts of the `stitch` command and its subcommands.
#pragma once

namespace stitch::cli {

extern const char* const kVersion;
extern const char* const kMainUsage;
extern const char* const kRunUsage;
extern const char* const kDumpUsage;

}  // namespace stitch::cli
