#include "codegen/hash128.h"

#include <gtest/gtest.h>

#include <set>

#include "codegen_test_util.h"

namespace stitch {
namespace {

using codegentest::rng;

std::string randomBytes(size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = char(rng()() & 0xff);
  return s;
}

TEST(Hash128, IsDeterministicAndHex) {
  std::string s = randomBytes(100);
  EXPECT_EQ(hash128(s), hash128(s));
  std::string hex = hash128(s).hex();
  EXPECT_EQ(hex.size(), 32u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
}

// Every length exercises a different block / tail split; flipping any one
// bit of any byte, or appending a zero byte, changes both halves.
TEST(Hash128, EveryBitOfEveryLengthMatters) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string s = randomBytes(n);
    Hash128 base = hash128(s);
    std::string longer = s + '\0';
    EXPECT_NE(hash128(longer).lo, base.lo);
    EXPECT_NE(hash128(longer).hi, base.hi);
    for (size_t i = 0; i < n; ++i) {
      std::string t = s;
      t[i] = char(t[i] ^ (1 << (rng()() % 8)));
      Hash128 h = hash128(t);
      EXPECT_NE(h.lo, base.lo) << "length " << n << " byte " << i;
      EXPECT_NE(h.hi, base.hi) << "length " << n << " byte " << i;
    }
  }
}

TEST(Hash128, SeedChangesTheHash) {
  std::string s = randomBytes(37);
  EXPECT_NE(hash128(s, 1), hash128(s, 2));
}

TEST(Hash128, NoCollisionsAmongManyRandomInputs) {
  std::set<std::string> inputs, hashes;
  for (int i = 0; i < 20000; ++i) inputs.insert(randomBytes(1 + i % 64));
  for (const std::string& s : inputs) hashes.insert(hash128(s).hex());
  EXPECT_GT(inputs.size(), 19000u);
  EXPECT_EQ(hashes.size(), inputs.size());
}

}  // namespace
}  // namespace stitch
