#include "codegen/c_compiler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "codegen/cache_entry.h"
#include "codegen/hash128.h"
#include "common/error.h"

extern char** environ;

namespace stitch {

namespace {

bool isExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// `name` as the shell would find it: a path when it contains '/', else the
// first executable of that name in $PATH. Empty when there is none.
std::string findProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return isExecutableFile(name) ? name : "";
  const char* pathEnv = std::getenv("PATH");
  std::string dirs = pathEnv ? pathEnv : "/usr/local/bin:/usr/bin:/bin";
  std::istringstream in(dirs);
  std::string dir;
  while (std::getline(in, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (isExecutableFile(candidate)) return candidate;
  }
  return "";
}

std::string firstLine(const std::string& text) {
  size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

// "Debian clang version 14.0.6" -> "clang 14.0.6"; "gcc (Debian 12.2.0-14) 12.2.0" -> "gcc 12.2.0".
std::string shortName(const std::string& identity, bool isClang) {
  std::string version;
  std::istringstream words(identity);
  for (std::string word; words >> word;) {
    if (!word.empty() && std::isdigit((unsigned char)word[0]) && word.find('.') != std::string::npos)
      version = word;
    if (isClang && !version.empty()) break;  // clang's first dotted number is its version
  }
  std::string base = isClang ? "clang" : "gcc";
  return version.empty() ? base : base + " " + version;
}

// The CPU model and feature flags: -march=native output is only valid on a
// CPU like this one, so a cache shared between machines must not mix them.
std::string hostCpuDescription() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
  }
  return model + "\n" + flags;
}

// The first line of `path --version`. Asking costs a process start (tens of
// milliseconds, more than loading a cached kernel), so the answer is kept in
// the cache folder under the executable's identity on disk (an upgrade
// changes its inode, size or time stamp).
std::optional<std::string> compilerIdentity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  std::string fileId = path + "\n" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
                       std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                       std::to_string(st.st_mtim.tv_nsec);
  std::string memo = kernelCacheDirectory() + "/compiler-" + hash128(fileId).hex() + ".id";
  {
    std::ifstream in(memo);
    std::string stored, line;
    if (std::getline(in, stored) && stored == path && std::getline(in, line) && !line.empty()) return line;
  }
  CompilerRun version = runProgram({path, "--version"});
  if (version.exitCode != 0) return std::nullopt;
  std::string identity = firstLine(version.output);
  writeFileAtomically(memo, path + "\n" + identity + "\n");  // a failed write only costs time later
  return identity;
}

std::vector<std::string> compileFlags() {
  std::vector<std::string> flags = {"-O3", "-march=native", "-fPIC", "-shared", "-std=gnu11"};
  // No -fopenmp: the host program is built with g++ and runs libgomp, while
  // clang's OpenMP code calls LLVM's libomp (__kmpc_*); clang's
  // -fopenmp=libgomp only links libgomp and silently ignores the pragmas.
  // Two runtimes in one process keep two spinning thread pools that steal
  // cores from each other. So generated code has no pragmas: a kernel hands
  // its grid to the host's parallel loop (codegen/parallel_blocks.h), and
  // every thread in the process comes from the one libgomp pool.
  // Element-wise code computes what the interpreter computes, op by op: no
  // fused multiply-add contraction (gcc contracts across statements by
  // default). Sums of products use explicit fmaf (uops MULADD; numerics in
  // ugraph/numerics.h). -fno-math-errno changes no value, it only lets sqrt and friends become
  // plain instructions that vectorize.
  flags.push_back("-ffp-contract=off");
  flags.push_back("-fno-math-errno");
  // Compilers rewrite pow with a constant operand (pow(x, 0.5) -> sqrt,
  // pow(2, x) -> exp2, pow(x, 2) -> x*x); libm's pow is not always
  // correctly rounded, so those can differ in the last bit from the
  // interpreter's call. Keep pow a plain library call.
  flags.push_back("-fno-builtin-pow");
  flags.push_back("-fno-builtin-powf");
  // Clang's loop unroller multiplied compile time by up to 5x on reduction
  // kernels (scalar accumulators, unrolled 8x each) for no measurable run
  // time: vectorized loops are still interleaved by the vectorizer, and gcc
  // does not unroll at -O3 anyway (bench/RESULTS.md, cold compile times).
  flags.push_back("-fno-unroll-loops");
  // Full-width AVX-512 vectors (clang and gcc default to 256 bits on these
  // CPUs): softmax 64x1000 0.048 -> 0.040 ms, layernorm ~5% faster (2
  // threads, bench/RESULTS.md); a no-op where the CPU has no AVX-512.
  flags.push_back("-mprefer-vector-width=512");
  flags.push_back("-w");
#ifdef STITCH_SANITIZE
  // A checked build checks the kernels too: out-of-bounds accesses of a
  // generated kernel are reported like the host's. The kernel links against
  // the sanitizer runtime the host process already loaded.
  flags.push_back("-fsanitize=address,undefined");
  flags.push_back("-fno-sanitize-recover=undefined");
  flags.push_back("-fno-omit-frame-pointer");
#endif
  return flags;
}

// The C compilers tried in order. A checked build needs the kernels'
// sanitizer runtime to be the host's, so it tries the host's compiler first.
std::vector<std::string> compilerCandidates() {
#if defined(STITCH_SANITIZE) && !defined(__clang__)
  return {"gcc", "cc"};
#else
  return {"clang", "gcc", "cc"};
#endif
}

CCompiler probeCompiler() {
  std::vector<std::string> candidates;
  if (const char* forced = std::getenv("STITCH_CC"); forced && *forced) candidates = {forced};
  else candidates = compilerCandidates();
  for (const std::string& candidate : candidates) {
    std::string path = findProgram(candidate);
    if (path.empty()) continue;
    std::optional<std::string> identity = compilerIdentity(path);
    if (!identity) continue;
    CCompiler cc;
    cc.path = path;
    cc.identity = *identity;
    cc.isClang = cc.identity.find("clang") != std::string::npos;
    cc.name = shortName(cc.identity, cc.isClang);
    cc.flags = compileFlags();
    std::string joined;
    for (const std::string& f : cc.flags) joined += f + " ";
    cc.fingerprint = cc.path + "\n" + cc.identity + "\n" + joined + "-lm\n" + hostCpuDescription();
    return cc;
  }
  std::string tried;
  for (const std::string& c : candidates) tried += (tried.empty() ? "" : ", ") + c;
  // Not a bug but a machine without a compiler: say what to do about it.
  throw RuntimeFailure("no C compiler found to build kernels (tried " + tried +
                       " in PATH); install clang or gcc, set STITCH_CC, or run with --mode interp");
}

}  // namespace

const CCompiler& hostCCompiler() {
  static const CCompiler compiler = probeCompiler();
  return compiler;
}

CompilerRun runProgram(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {-1, "pipe failed"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawnError = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  CompilerRun run;
  if (spawnError != 0) {
    ::close(fds[0]);
    return {-1, "cannot start " + argv[0] + ": " + std::strerror(spawnError)};
  }
  // Read to the end before waiting, so a chatty child never blocks on a
  // full pipe.
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (run.output.size() < (1u << 20)) run.output.append(buf, (size_t)n);
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return {-1, run.output + "\nwaitpid failed"};
  }
  run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

CompilerRun compileSharedObject(const CCompiler& cc, const std::string& sourcePath,
                                const std::string& outputPath) {
  std::vector<std::string> argv = {cc.path};
  argv.insert(argv.end(), cc.flags.begin(), cc.flags.end());
  argv.insert(argv.end(), {"-o", outputPath, sourcePath, "-lm"});
  return runProgram(argv);
}

}  // namespace stitch
