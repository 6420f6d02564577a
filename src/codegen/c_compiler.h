// The host C compiler that turns generated kernels into shared objects:
// clang from PATH, gcc as the fallback ($STITCH_CC names another one). It
// runs as a subprocess with an argument vector (no shell), its output
// captured.
#pragma once
#include <string>
#include <vector>

namespace stitch {

struct CCompiler {
  std::string path;      // the executable
  std::string identity;  // first line of `--version`, e.g. "Debian clang version 14.0.6"
  std::string name;      // short form for reports, e.g. "clang 14.0.6"
  bool isClang = false;
  std::vector<std::string> flags;  // everything but the input and output names
  // What else decides the machine code: the flags and, because of
  // -march=native, the host CPU. Part of every cache key.
  std::string fingerprint;
};

// Found and asked for its version once per process; InternalError when no C
// compiler is on PATH.
const CCompiler& hostCCompiler();

struct CompilerRun {
  int exitCode = 0;    // -1: could not start, or killed by a signal
  std::string output;  // stdout and stderr together
};

// Compiles `sourcePath` into the shared object `outputPath`.
CompilerRun compileSharedObject(const CCompiler& cc, const std::string& sourcePath,
                                const std::string& outputPath);

// Runs argv[0] (a path) with the arguments, capturing stdout and stderr.
CompilerRun runProgram(const std::vector<std::string>& argv);

}  // namespace stitch
