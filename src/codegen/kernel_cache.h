// Compiled programs, cached. `loadCompiled(source)` returns the loaded shared
// object for a C translation unit: from the in-memory cache, else from the
// disk cache ($STITCH_CACHE_DIR, default ~/.cache/tensorstitch), else by
// compiling it (clang, gcc as fallback; -O3 -march=native, no -ffast-math;
// the grid runs on the host's OpenMP threads, see parallel_blocks.h) and
// storing the result. Entries are keyed by a hash of the
// source, the compiler's identity, the flags and the CPU; they are written
// to a temporary file and renamed into place, and carry a checksum trailer
// that is verified before use, so concurrent processes and crashed runs never leave
// an entry that gets used broken (a bad entry is rebuilt).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "codegen/kernel_abi.h"
#include "codegen/parallel_blocks.h"
#include "codegen/tile_epilogue.h"

namespace stitch {

class LoadedLibrary {
 public:
  virtual ~LoadedLibrary() = default;
  // The kernel's entry point; InternalError when the library lacks it.
  virtual KernelFunction function(const std::string& name) const = 0;
  // The kernel's exported block range (NAME_blocks, codegen/c_renderer.h
  // blockRangeCount); InternalError when the library lacks it.
  virtual BlockRangeFunction blockRange(const std::string& name) const = 0;
  // A contraction's tile epilogue (codegen/tile_epilogue.h);
  // InternalError when the library lacks it.
  virtual TileEpilogueFunction tileEpilogue(const std::string& name) const = 0;
  // Where the shared object lives (the cache entry).
  virtual const std::string& path() const = 0;
};

// Where the library came from, for --json and tests.
enum class CacheOutcome : uint8_t { Memory, Disk, Compiled };

struct CompileStats {
  CacheOutcome outcome = CacheOutcome::Compiled;
  double ms = 0;               // time to obtain the library (compile + load, or load)
  std::string compiler;        // e.g. "clang 14.0.6"
  bool rebuiltBadEntry = false;  // a corrupted / truncated disk entry was found and replaced
};

// Throws InternalError naming the generated source file (kept on disk) when
// the compiler fails.
std::shared_ptr<const LoadedLibrary> loadCompiled(const std::string& cSource, CompileStats* stats = nullptr);

const char* cacheOutcomeName(CacheOutcome outcome);  // "memory", "disk", "compiled"

}  // namespace stitch
