#include "codegen/hash128.h"

#include <cstdio>
#include <cstring>

namespace stitch {

namespace {

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t finalMix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline uint64_t load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

constexpr uint64_t kC1 = 0x87c37b91114253d5ULL;
constexpr uint64_t kC2 = 0x4cf5ad432745937fULL;

inline uint64_t mixK1(uint64_t k1) { return rotl(k1 * kC1, 31) * kC2; }
inline uint64_t mixK2(uint64_t k2) { return rotl(k2 * kC2, 33) * kC1; }

}  // namespace

std::string Hash128::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)hi, (unsigned long long)lo);
  return buf;
}

Hash128 hash128(std::string_view bytes, uint64_t seed) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t len = bytes.size();
  const size_t blocks = len / 16;
  uint64_t h1 = seed, h2 = seed;
  for (size_t i = 0; i < blocks; ++i) {
    h1 ^= mixK1(load64(data + 16 * i));
    h1 = rotl(h1, 27) + h2;
    h1 = h1 * 5 + 0x52dce729;
    h2 ^= mixK2(load64(data + 16 * i + 8));
    h2 = rotl(h2, 31) + h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  // The last 0..15 bytes, little-endian into two words.
  const unsigned char* tail = data + 16 * blocks;
  uint64_t k1 = 0, k2 = 0;
  size_t rest = len & 15;
  for (size_t i = rest; i-- > 8;) k2 |= uint64_t(tail[i]) << (8 * (i - 8));
  for (size_t i = rest < 8 ? rest : 8; i-- > 0;) k1 |= uint64_t(tail[i]) << (8 * i);
  if (rest > 8) h2 ^= mixK2(k2);
  if (rest > 0) h1 ^= mixK1(k1);

  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = finalMix(h1);
  h2 = finalMix(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

}  // namespace stitch
