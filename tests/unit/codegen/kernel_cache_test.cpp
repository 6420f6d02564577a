// loadCompiled: compiling hand-written C, the memory and disk caches, damaged
// entries, concurrent processes and compiler failures.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "codegen/cache_entry.h"
#include "codegen/kernel_abi.h"
#include "codegen/parallel_blocks.h"
#include "codegen/kernel_cache.h"
#include "codegen_test_util.h"
#include "common/error.h"

namespace stitch {
namespace {

using namespace codegentest;
namespace fs = std::filesystem;

// out[i] = a[i] * alpha + b[i] for i < n; a random salt makes every source
// (and so every cache key) new.
std::string scaleAddSource() {
  return std::string(kKernelAbiC) + "/* salt " + std::to_string(rng()()) + " */\n" + R"(
void scale_add(void* const* bufs, const stitch_scalar* params, int64_t threads) {
  float* restrict out = (float*)bufs[0];
  const float* restrict a = (const float*)bufs[1];
  const float* restrict b = (const float*)bufs[2];
  const float alpha = (float)params[0].f;
  const int64_t n = params[1].i;
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * alpha + b[i];
}
)";
}

// Calls scale_add on fresh random data; true when every element is right.
bool scaleAddWorks(const LoadedLibrary& lib) {
  std::uniform_real_distribution<float> dist(-10, 10);
  const int64_t n = 1000 + (int64_t)(rng()() % 100);
  std::vector<float> a(n), b(n), out(n, 0.f);
  for (int64_t i = 0; i < n; ++i) a[i] = dist(rng()), b[i] = dist(rng());
  const float alpha = dist(rng());
  void* bufs[] = {out.data(), a.data(), b.data()};
  StitchScalar params[2];
  params[0].f = alpha;
  params[1].i = n;
  lib.function("scale_add")(bufs, params, 1);
  for (int64_t i = 0; i < n; ++i) {
    float product = a[i] * alpha;
    if (out[i] != product + b[i]) return false;
  }
  return true;
}

std::string entryPath(const std::string& source) { return loadCompiled(source)->path(); }

TEST(KernelCache, CompilesAndRunsHandWrittenC) {
  FreshCacheDir cache;
  CompileStats stats;
  auto lib = loadCompiled(scaleAddSource(), &stats);
  EXPECT_EQ(stats.outcome, CacheOutcome::Compiled);
  EXPECT_FALSE(stats.rebuiltBadEntry);
  EXPECT_FALSE(stats.compiler.empty());
  EXPECT_GT(stats.ms, 0);
  EXPECT_TRUE(scaleAddWorks(*lib));
  // The entry and its source live in the cache folder.
  fs::path so = lib->path();
  EXPECT_EQ(so.parent_path(), fs::path(cache.path()));
  EXPECT_EQ(so.extension(), ".so");
  EXPECT_TRUE(fs::exists(fs::path(so).replace_extension(".c")));
}

TEST(KernelCache, SecondLoadInProcessComesFromMemory) {
  FreshCacheDir cache;
  std::string source = scaleAddSource();
  auto first = loadCompiled(source);
  CompileStats stats;
  auto second = loadCompiled(source, &stats);
  EXPECT_EQ(stats.outcome, CacheOutcome::Memory);
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(std::string(cacheOutcomeName(stats.outcome)), "memory");
  EXPECT_TRUE(scaleAddWorks(*second));
}

TEST(KernelCache, DifferentSourcesGetDifferentEntries) {
  FreshCacheDir cache;
  std::string a = scaleAddSource(), b = scaleAddSource();
  ASSERT_NE(a, b);
  EXPECT_NE(entryPath(a), entryPath(b));
}

TEST(KernelCache, SecondProcessLoadsFromDiskWithoutCompiling) {
  FreshCacheDir cache;
  std::string source = scaleAddSource();
  auto loadInChild = [&] {
    return inChildProcess([&] {
      CompileStats stats;
      auto lib = loadCompiled(source, &stats);
      return scaleAddWorks(*lib) ? outcomeCode(stats) : 1;
    });
  };
  EXPECT_EQ(loadInChild(), outcomeCode(CacheOutcome::Compiled));
  auto filesBefore = std::distance(fs::directory_iterator(cache.path()), fs::directory_iterator());
  EXPECT_EQ(loadInChild(), outcomeCode(CacheOutcome::Disk));
  // Nothing was written: no temporary object, no new entry.
  EXPECT_EQ(std::distance(fs::directory_iterator(cache.path()), fs::directory_iterator()), filesBefore);
  CompileStats stats;
  auto lib = loadCompiled(source, &stats);
  EXPECT_EQ(stats.outcome, CacheOutcome::Disk);
  EXPECT_TRUE(scaleAddWorks(*lib));
}

// Builds the entry in a child (so this process never maps it), damages it
// with `damage`, then loads it here.
void expectDamagedEntryRebuilt(const std::function<void(const std::string&)>& damage) {
  FreshCacheDir cache;
  std::string source = scaleAddSource();
  std::string path;
  ASSERT_EQ(inChildProcess([&] {
              CompileStats stats;
              loadCompiled(source, &stats);
              return outcomeCode(stats);
            }),
            outcomeCode(CacheOutcome::Compiled));
  for (const auto& entry : fs::directory_iterator(cache.path()))
    if (entry.path().extension() == ".so") path = entry.path().string();
  ASSERT_FALSE(path.empty());
  std::string intact = readFile(path);
  damage(path);
  ASSERT_NE(readFile(path), intact);

  CompileStats stats;
  auto lib = loadCompiled(source, &stats);
  EXPECT_EQ(stats.outcome, CacheOutcome::Compiled);
  EXPECT_TRUE(stats.rebuiltBadEntry);
  EXPECT_TRUE(scaleAddWorks(*lib));
  EXPECT_EQ(lib->path(), path);
  // The rebuilt entry is whole again.
  EXPECT_EQ(checkCacheEntry(path), EntryState::Valid);
}

TEST(KernelCache, TruncatedEntryIsDetectedAndRebuilt) {
  expectDamagedEntryRebuilt([](const std::string& path) {
    fs::resize_file(path, fs::file_size(path) / 2);
  });
}

TEST(KernelCache, EntryMissingItsLastByteIsRebuilt) {
  expectDamagedEntryRebuilt([](const std::string& path) {
    fs::resize_file(path, fs::file_size(path) - 1);
  });
}

TEST(KernelCache, EmptyEntryIsRebuilt) {
  expectDamagedEntryRebuilt([](const std::string& path) { fs::resize_file(path, 0); });
}

TEST(KernelCache, CorruptedEntryIsDetectedAndRebuilt) {
  expectDamagedEntryRebuilt([](const std::string& path) {
    std::string bytes = readFile(path);
    size_t at = std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng());
    bytes[at] = char(bytes[at] ^ (1 + rng()() % 255));
    writeFile(path, bytes);
  });
}

TEST(KernelCache, ConcurrentProcessesLoadingOneNewSourceAllSucceed) {
  FreshCacheDir cache;
  std::string source = scaleAddSource();
  constexpr int kProcesses = 4;
  int startPipe[2];
  ASSERT_EQ(::pipe(startPipe), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(startPipe[1]);
      char go;
      // Every child blocks here until the parent closes the pipe, so all
      // of them start compiling at once.
      if (::read(startPipe[0], &go, 1) < 0) ::_exit(2);
      int code = 1;
      try {
        CompileStats stats;
        auto lib = loadCompiled(source, &stats);
        code = scaleAddWorks(*lib) ? outcomeCode(stats) : 1;
      } catch (...) {
        code = 255;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  ::close(startPipe[0]);
  ::close(startPipe[1]);
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    int code = WEXITSTATUS(status);
    EXPECT_TRUE(code == outcomeCode(CacheOutcome::Compiled) || code == outcomeCode(CacheOutcome::Disk))
        << "child exit code " << code;
  }
  // One whole entry is left, and no temporary files.
  CompileStats stats;
  auto lib = loadCompiled(source, &stats);
  EXPECT_EQ(stats.outcome, CacheOutcome::Disk);
  EXPECT_FALSE(stats.rebuiltBadEntry);
  EXPECT_TRUE(scaleAddWorks(*lib));
  for (const auto& entry : fs::directory_iterator(cache.path()))
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST(KernelCache, CompilerErrorNamesTheGeneratedSource) {
  FreshCacheDir cache;
  std::string source = scaleAddSource() + "\nvoid broken(void) { this is not C; }\n";
  try {
    loadCompiled(source);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    std::string message = e.what();
    size_t at = message.find(cache.path() + "/");
    ASSERT_NE(at, std::string::npos) << message;
    size_t end = message.find(".c", at);
    ASSERT_NE(end, std::string::npos) << message;
    std::string sourcePath = message.substr(at, end + 2 - at);
    EXPECT_EQ(readFile(sourcePath), source);  // kept on disk for debugging
    EXPECT_NE(message.find("error"), std::string::npos) << message;  // the compiler's words
    EXPECT_NE(message.find("broken"), std::string::npos) << message;
  }
  // A failed build leaves no entry behind.
  for (const auto& entry : fs::directory_iterator(cache.path())) EXPECT_NE(entry.path().extension(), ".so");
}

TEST(KernelCache, MissingKernelIsAnInternalError) {
  FreshCacheDir cache;
  auto lib = loadCompiled(scaleAddSource());
  EXPECT_THROW(lib->function("no_such_kernel"), InternalError);
}

TEST(KernelCache, CacheFolderIsCreatedWhenMissing) {
  std::string base = makeTempDir();
  std::string nested = base + "/a/b/c";
  {
    ScopedEnv env("STITCH_CACHE_DIR", nested);
    auto lib = loadCompiled(scaleAddSource());
    EXPECT_EQ(fs::path(lib->path()).parent_path(), fs::path(nested));
    EXPECT_TRUE(scaleAddWorks(*lib));
  }
  fs::remove_all(base);
}

TEST(KernelCache, RelativeCacheFolderIsMadeAbsolute) {
  std::string base = makeTempDir();
  std::string cwd = fs::current_path().string();
  fs::current_path(base);
  {
    ScopedEnv env("STITCH_CACHE_DIR", "relative/cache");
    auto lib = loadCompiled(scaleAddSource());
    EXPECT_EQ(fs::path(lib->path()).parent_path(), fs::path(base) / "relative" / "cache");
    EXPECT_TRUE(scaleAddWorks(*lib));
  }
  fs::current_path(cwd);
  fs::remove_all(base);
}

TEST(KernelCache, DefaultFolderIsUnderHome) {
  std::string home = makeTempDir();
  {
    ScopedEnv unsetDir("STITCH_CACHE_DIR", std::nullopt);
    ScopedEnv setHome("HOME", home);
    auto lib = loadCompiled(scaleAddSource());
    EXPECT_EQ(fs::path(lib->path()).parent_path(), fs::path(home) / ".cache" / "tensorstitch");
  }
  fs::remove_all(home);
}

TEST(KernelCache, UncreatableCacheFolderIsAUserError) {
  std::string base = makeTempDir();
  writeFile(base + "/file", "x");
  ScopedEnv env("STITCH_CACHE_DIR", base + "/file/cache");
  EXPECT_THROW(loadCompiled(scaleAddSource()), UserError);
  fs::remove_all(base);
}

// Grid blocks run on the process's own OpenMP threads: a kernel using the
// parallel-blocks protocol sees the host's libgomp thread numbers, split
// into contiguous ranges as schedule(static) would.
TEST(KernelCache, GridBlocksRunOnTheHostOpenMPThreads) {
  FreshCacheDir cache;
  std::string source = std::string(kKernelAbiC) + kParallelBlocksC + "/* salt " +
                       std::to_string(rng()()) + " */\n" + R"(
int omp_get_thread_num(void);
int omp_get_num_threads(void);
static void team_blocks(void* const* bufs, const stitch_scalar* params, int64_t begin, int64_t end) {
  int64_t* restrict out = (int64_t*)bufs[0];
  for (int64_t i = begin; i < end; ++i) out[i] = omp_get_num_threads() * 1000 + omp_get_thread_num();
}
void team(void* const* bufs, const stitch_scalar* params, int64_t threads) {
  stitch_run_blocks(team_blocks, bufs, params, params[0].i, threads);
}
)";
  auto lib = loadCompiled(source);
  const int64_t count = 50 + (int64_t)(rng()() % 30);
  const int64_t threads = 2 + (int64_t)(rng()() % 3);
  std::vector<int64_t> out(count, -1);
  void* bufs[] = {out.data()};
  StitchScalar params[1];
  params[0].i = count;
  lib->function("team")(bufs, params, threads);
  const int64_t base = count / threads, extra = count % threads;
  for (int64_t i = 0, t = 0, next = base + (extra > 0); i < count; ++i) {
    if (i == next) ++t, next += base + (t < extra);
    EXPECT_EQ(out[i], threads * 1000 + t) << "block " << i;
  }
  // One thread: every block on the calling thread, no team.
  std::fill(out.begin(), out.end(), -1);
  lib->function("team")(bufs, params, 1);
  for (int64_t i = 0; i < count; ++i) EXPECT_EQ(out[i], 1000);
}

}  // namespace
}  // namespace stitch
