#include "codegen/kernel_cache.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "codegen/c_compiler.h"
#include "codegen/cache_entry.h"
#include "codegen/hash128.h"
#include "codegen/parallel_blocks.h"
#include "common/error.h"

namespace stitch {

const char* cacheOutcomeName(CacheOutcome outcome) {
  switch (outcome) {
    case CacheOutcome::Memory: return "memory";
    case CacheOutcome::Disk: return "disk";
    case CacheOutcome::Compiled: return "compiled";
  }
  return "?";
}

namespace {

class DlLibrary final : public LoadedLibrary {
 public:
  DlLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  ~DlLibrary() override { ::dlclose(handle_); }
  DlLibrary(const DlLibrary&) = delete;
  DlLibrary& operator=(const DlLibrary&) = delete;

  KernelFunction function(const std::string& name) const override {
    return reinterpret_cast<KernelFunction>(symbol(name, "kernel"));
  }
  BlockRangeFunction blockRange(const std::string& name) const override {
    return reinterpret_cast<BlockRangeFunction>(symbol(name + "_blocks", "block range"));
  }
  TileEpilogueFunction tileEpilogue(const std::string& name) const override {
    return reinterpret_cast<TileEpilogueFunction>(symbol(name, "tile epilogue"));
  }
  const std::string& path() const override { return path_; }

 private:
  void* symbol(const std::string& name, const char* what) const {
    void* symbol = ::dlsym(handle_, name.c_str());
    if (!symbol) throw InternalError("compiled library " + path_ + " has no " + what + " '" + name + "'");
    return symbol;
  }
  void* handle_;
  std::string path_;
};

// Entries loaded by this process, by the entry's path (the key, and the
// cache folder, which tests and users may change between calls).
struct MemoryCache {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const LoadedLibrary>> libraries;
};

MemoryCache& memoryCache() {
  static MemoryCache* cache = new MemoryCache();  // never destroyed: kernels may outlive statics
  return *cache;
}

// nullptr with `error` set when the dynamic loader refuses the file.
std::shared_ptr<const LoadedLibrary> openLibrary(const std::string& path, std::string* error) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* message = ::dlerror();
    *error = message ? message : "dlopen failed";
    return nullptr;
  }
  // Generated files with a grid hand it to the host's parallel loop.
  if (void* setter = ::dlsym(handle, "stitch_set_parallel"))
    reinterpret_cast<void (*)(ParallelBlocksFunction)>(setter)(&parallelBlocks);
  // ... and take their large block-local buffers from the host's arena.
  if (void* setter = ::dlsym(handle, "stitch_set_arena"))
    reinterpret_cast<void (*)(ArenaFunction)>(setter)(&hostArena);
  return std::make_shared<DlLibrary>(handle, path);
}

// Compiles into a private temporary name, seals it and renames it into
// place; a concurrent process doing the same replaces an identical entry.
void buildEntry(const CCompiler& cc, const std::string& cSource, const std::string& sourcePath,
                const std::string& entryPath) {
  // An unwritable cache folder is the environment's problem, not ours.
  if (!writeFileAtomically(sourcePath, cSource))
    throw UserError("cannot write to the kernel cache: " + sourcePath + ": " + std::strerror(errno));
  std::string temp = uniqueTempPath(entryPath);
  CompilerRun run = compileSharedObject(cc, sourcePath, temp);
  if (run.exitCode != 0) {
    ::unlink(temp.c_str());
    throw InternalError("C compiler (" + cc.name + ", " + cc.path + ") failed with exit code " +
                        std::to_string(run.exitCode) + " on generated source " + sourcePath +
                        ":" + firstLines(run.output, 20));
  }
  if (!sealCacheEntry(temp) || ::rename(temp.c_str(), entryPath.c_str()) != 0) {
    ::unlink(temp.c_str());
    throw UserError("cannot store compiled kernels in the kernel cache: " + entryPath);
  }
}

}  // namespace

std::shared_ptr<const LoadedLibrary> loadCompiled(const std::string& cSource, CompileStats* stats) {
  auto start = std::chrono::steady_clock::now();
  CompileStats local;
  CompileStats& st = stats ? *stats : local;
  st = CompileStats{};
  auto finish = [&](CacheOutcome outcome, std::shared_ptr<const LoadedLibrary> lib) {
    st.outcome = outcome;
    st.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return lib;
  };

  const CCompiler& cc = hostCCompiler();
  st.compiler = cc.name;
  std::string key = hash128(cSource + '\0' + cc.fingerprint).hex();
  std::string dir = kernelCacheDirectory();
  std::string entryPath = dir + "/" + key + ".so";
  std::string sourcePath = dir + "/" + key + ".c";

  // One load at a time per process: loads happen once per program, and
  // this keeps two threads from compiling the same source twice.
  MemoryCache& memory = memoryCache();
  std::lock_guard<std::mutex> lock(memory.mutex);
  if (auto it = memory.libraries.find(entryPath); it != memory.libraries.end())
    return finish(CacheOutcome::Memory, it->second);

  std::string loadError;
  switch (checkCacheEntry(entryPath)) {
    case EntryState::Valid:
      if (auto lib = openLibrary(entryPath, &loadError)) {
        memory.libraries[entryPath] = lib;
        return finish(CacheOutcome::Disk, lib);
      }
      st.rebuiltBadEntry = true;  // intact bytes the loader refuses: rebuild them too
      break;
    case EntryState::Bad:
      st.rebuiltBadEntry = true;
      break;
    case EntryState::Missing:
      break;
  }

  buildEntry(cc, cSource, sourcePath, entryPath);
  auto lib = openLibrary(entryPath, &loadError);
  if (!lib)
    throw InternalError("cannot load compiled kernels " + entryPath + " (source " + sourcePath +
                        "): " + loadError);
  memory.libraries[entryPath] = lib;
  return finish(CacheOutcome::Compiled, lib);
}

}  // namespace stitch
