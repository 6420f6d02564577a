// Runs stitch::cli::einsumCommand as a program: `stitch_einsum_driver ARGS`
// behaves like `stitch einsum ARGS`. Used by the CLI test and benchmarks.
#include <string>
#include <vector>

#include "commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return stitch::cli::einsumCommand(args);
}
