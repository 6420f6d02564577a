// Shared pieces of the code generator tests: a fresh kernel cache folder per
// test, child processes that load a program, random inputs, and compiles
// that report vectorized loops.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../common/random.h"
#include "codegen/c_compiler.h"
#include "codegen/kernel_cache.h"

namespace stitch::codegentest {

using testing::randInt;
using testing::rng;

inline std::vector<float> randomFloats(int64_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng());
  return v;
}

// Sets an environment variable for the scope, restoring it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

inline std::string makeTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "stitch-codegen-XXXXXX").string();
  char* made = ::mkdtemp(pattern.data());
  if (!made) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

// A fresh, empty $STITCH_CACHE_DIR for one test, removed afterwards.
class FreshCacheDir {
 public:
  FreshCacheDir() : dir_(makeTempDir()), env_("STITCH_CACHE_DIR", dir_) {}
  ~FreshCacheDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& path() const { return dir_; }

 private:
  std::string dir_;
  ScopedEnv env_;
};

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Runs `body` in a forked child and returns its exit status (the child's
// return value, 255 when it threw, -1 when it crashed).
inline int inChildProcess(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 255;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Child exit codes reporting a load: 10 + outcome, + 20 when a bad entry was rebuilt.
inline int outcomeCode(const CompileStats& stats) {
  return 10 + (int)stats.outcome + (stats.rebuiltBadEntry ? 20 : 0);
}
inline int outcomeCode(CacheOutcome outcome, bool rebuilt = false) {
  return 10 + (int)outcome + (rebuilt ? 20 : 0);
}

// Compiles C `source` to an object file in `dir` with the host compiler's
// loop-vectorization remarks on; they are in the output.
inline CompilerRun compileWithVectorizeRemarks(const std::string& dir, const std::string& source) {
  const CCompiler& cc = hostCCompiler();
  writeFile(dir + "/vectorize.c", source);
  std::vector<std::string> argv = {cc.path};
  // Whether a loop vectorizes is a property of the code we generate; a
  // checked build's sanitizer instrumentation keeps loops scalar.
  for (const std::string& f : cc.flags)
    if (f.rfind("-fsanitize", 0) != 0 && f.rfind("-fno-sanitize", 0) != 0) argv.push_back(f);
  argv.insert(argv.end(), {cc.isClang ? "-Rpass=loop-vectorize" : "-fopt-info-vec-optimized", "-c",
                           dir + "/vectorize.c", "-o", dir + "/vectorize.o"});
  return runProgram(argv);
}

// What that output says of a vectorized loop.
inline const char* vectorizedRemark() { return hostCCompiler().isClang ? "vectorized loop" : "loop vectorized"; }

}  // namespace stitch::codegentest
