// A 128-bit non-cryptographic hash (MurmurHash3 x64_128) for cache keys and
// the checksums of cache entries: strong enough that distinct sources or a
// damaged file never collide by accident, with no dependency.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace stitch {

struct Hash128 {
  uint64_t lo = 0, hi = 0;
  bool operator==(const Hash128&) const = default;
  std::string hex() const;  // 32 lowercase hex digits
};

Hash128 hash128(std::string_view bytes, uint64_t seed = 0);

}  // namespace stitch
