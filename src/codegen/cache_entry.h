// Files of the on-disk kernel cache. An entry is `<key>.so`: the shared
// object followed by a 32-byte trailer (magic, payload size, 128-bit hash of
// the payload). The loader maps only the ELF segments, so the trailer is
// invisible to dlopen, and one file carries its own checksum: a truncated or
// damaged entry is detected before it is loaded, and a single rename
// publishes an entry atomically (no object/checksum pair to keep in step).
#pragma once
#include <cstddef>
#include <string>

namespace stitch {

// The trailer's bytes: magic, u64 payload size, hash lo, hash hi.
inline constexpr size_t kCacheTrailerBytes = 32;

// $STITCH_CACHE_DIR, else ~/.cache/tensorstitch, created when missing.
// UserError when it cannot be created.
std::string kernelCacheDirectory();

enum class EntryState { Missing, Valid, Bad };
EntryState checkCacheEntry(const std::string& path);

// Appends the trailer to a freshly compiled shared object; false on I/O error.
bool sealCacheEntry(const std::string& path);

// Writes `content` to `path` through a temporary file in the same folder
// and a rename, so no reader sees it half written; false on I/O error.
bool writeFileAtomically(const std::string& path, const std::string& content);

// A name next to `path` that no other process or thread uses.
std::string uniqueTempPath(const std::string& path);

// The first `count` lines of a compiler's log, each on a line of its own
// indented by two spaces, for an error message.
std::string firstLines(const std::string& text, int count);

}  // namespace stitch
