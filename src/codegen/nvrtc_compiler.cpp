#include "codegen/nvrtc_compiler.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <vector>

#include "codegen/cache_entry.h"
#include "codegen/hash128.h"
#include "common/dynamic_symbols.h"
#include "common/error.h"

namespace stitch {

namespace {

// NVRTC's C API, the part used here (nvrtc.h; nvrtcResult is an int enum,
// 0 is success).
using nvrtcProgram = struct _nvrtcProgram*;
struct Nvrtc {
  void* handle = nullptr;
  std::string path;
  std::string failure;  // why it could not be loaded
  int (*version)(int*, int*) = nullptr;
  const char* (*errorString)(int) = nullptr;
  int (*createProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*compileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  int (*getProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  int (*getProgramLog)(nvrtcProgram, char*) = nullptr;
  int (*getCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  int (*getCUBIN)(nvrtcProgram, char*) = nullptr;
  int (*destroyProgram)(nvrtcProgram*) = nullptr;
};

const Nvrtc& nvrtc() {
  static const Nvrtc* loaded = [] {
    auto* n = new Nvrtc();  // never unloaded: cubins outlive statics
    std::string tried;
    n->handle = openFirstLibrary(
        "STITCH_NVRTC", {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so"},
        &n->path, &tried);
    if (!n->handle) {
      n->failure = "NVRTC not found (tried " + tried + "; set STITCH_NVRTC to libnvrtc.so's path)";
      return n;
    }
    bool ok = bindSymbol(n->handle, "nvrtcVersion", n->version) &&
              bindSymbol(n->handle, "nvrtcGetErrorString", n->errorString) &&
              bindSymbol(n->handle, "nvrtcCreateProgram", n->createProgram) &&
              bindSymbol(n->handle, "nvrtcCompileProgram", n->compileProgram) &&
              bindSymbol(n->handle, "nvrtcGetProgramLogSize", n->getProgramLogSize) &&
              bindSymbol(n->handle, "nvrtcGetProgramLog", n->getProgramLog) &&
              bindSymbol(n->handle, "nvrtcGetCUBINSize", n->getCUBINSize) &&
              bindSymbol(n->handle, "nvrtcGetCUBIN", n->getCUBIN) &&
              bindSymbol(n->handle, "nvrtcDestroyProgram", n->destroyProgram);
    if (!ok) {
      n->failure = n->path + " lacks NVRTC's functions (NVRTC 11.1 or newer is needed)";
      ::dlclose(n->handle);
      n->handle = nullptr;
    }
    return n;
  }();
  return *loaded;
}

const Nvrtc& requireNvrtc() {
  const Nvrtc& n = nvrtc();
  if (!n.handle) throw RuntimeFailure("CUDA: " + n.failure);
  return n;
}

// --fmad=false: products and sums round separately, as in the C kernels
// (-ffp-contract=off); the f32 math's explicit fmaf stays fused.
std::vector<std::string> options(int arch) {
  return {"--gpu-architecture=sm_" + std::to_string(arch), "--std=c++17", "--fmad=false"};
}

std::string compileWithNvrtc(const Nvrtc& n, const std::string& source, int arch, const std::string& sourcePath,
                             const std::vector<std::string>& extraOptions = {}) {
  nvrtcProgram program = nullptr;
  if (int rc = n.createProgram(&program, source.c_str(), sourcePath.c_str(), 0, nullptr, nullptr))
    throw InternalError(std::string("nvrtcCreateProgram: ") + n.errorString(rc));
  std::vector<std::string> opts = options(arch);
  opts.insert(opts.end(), extraOptions.begin(), extraOptions.end());
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  int rc = n.compileProgram(program, (int)argv.size(), argv.data());
  std::string log;
  size_t logSize = 0;
  if (n.getProgramLogSize(program, &logSize) == 0 && logSize > 1) {
    log.resize(logSize);
    n.getProgramLog(program, log.data());
    log.resize(logSize - 1);
  }
  if (rc != 0) {
    n.destroyProgram(&program);
    throw InternalError("NVRTC (" + n.path + ") failed (" + n.errorString(rc) + ") on generated source " + sourcePath +
                        " for sm_" + std::to_string(arch) + ":" + firstLines(log, 20));
  }
  size_t size = 0;
  std::string cubin;
  if (n.getCUBINSize(program, &size) == 0) {
    cubin.resize(size);
    n.getCUBIN(program, cubin.data());
  }
  n.destroyProgram(&program);
  STITCH_ASSERT(!cubin.empty(), "NVRTC produced no cubin for ", sourcePath);
  return cubin;
}

// The cubin of a sealed entry (its trailer removed).
std::string readEntry(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  STITCH_ASSERT(bytes.size() > kCacheTrailerBytes, "cache entry ", path, " shorter than its trailer");
  bytes.resize(bytes.size() - kCacheTrailerBytes);
  return bytes;
}

}  // namespace

bool nvrtcAvailable(std::string* why) {
  const Nvrtc& n = nvrtc();
  if (!n.handle && why) *why = n.failure;
  return n.handle != nullptr;
}

std::string nvrtcVersion() {
  const Nvrtc& n = requireNvrtc();
  int major = 0, minor = 0;
  n.version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string compileCudaUncached(const std::string& source, int arch, const std::vector<std::string>& extraOptions,
                                const std::string& sourceName) {
  return compileWithNvrtc(requireNvrtc(), source, arch, sourceName, extraOptions);
}

std::string compileCuda(const std::string& source, int arch, CubinStats* stats) {
  auto start = std::chrono::steady_clock::now();
  const Nvrtc& n = requireNvrtc();
  std::string fingerprint = "nvrtc " + nvrtcVersion();
  for (const std::string& o : options(arch)) fingerprint += " " + o;
  const std::string key = hash128(source + '\0' + fingerprint).hex();
  const std::string dir = kernelCacheDirectory();
  const std::string entryPath = dir + "/" + key + ".cubin", sourcePath = dir + "/" + key + ".cu";
  auto finish = [&](bool fromCache, std::string cubin) {
    if (stats) {
      stats->compiler = fingerprint.substr(0, fingerprint.find(' ', 6));
      stats->fromCache = fromCache;
      stats->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return cubin;
  };
  if (checkCacheEntry(entryPath) == EntryState::Valid) return finish(true, readEntry(entryPath));
  if (!writeFileAtomically(sourcePath, source))
    throw UserError("cannot write to the kernel cache: " + sourcePath + ": " + std::strerror(errno));
  std::string cubin = compileWithNvrtc(n, source, arch, sourcePath);
  const std::string temp = uniqueTempPath(entryPath);
  const bool stored =
      writeFileAtomically(temp, cubin) && sealCacheEntry(temp) && ::rename(temp.c_str(), entryPath.c_str()) == 0;
  if (!stored) ::unlink(temp.c_str());  // the cubin is still good; only the cache misses it
  return finish(false, std::move(cubin));
}

}  // namespace stitch
