// The `stitch` subcommands. Each takes the arguments after its own name and
// returns the process exit code (0 ok, 1 run-time failure, 2 bad input).
#pragma once
#include <string>
#include <vector>

namespace stitch::cli {

int runCommand(const std::vector<std::string>& args);
int dumpCommand(const std::vector<std::string>& args);
int einsumCommand(const std::vector<std::string>& args);

}  // namespace stitch::cli
