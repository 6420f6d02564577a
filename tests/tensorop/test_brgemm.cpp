// JIT BRGEMM against the C++ reference: random shapes with row tails, every
// transpose combination, leading dimensions larger than the extents, br > 1,
// overwrite and accumulate, on every ISA this CPU can run.
#include <gtest/gtest.h>

#include "tensorop/jit_cache.h"
#include "tensorop/kernels.h"
#include "tensorop/reference.h"
#include "test_util.h"

namespace stitch::tensorop {
namespace {

using testing::closeVectors;
using testing::freshSeed;
using testing::randomVector;

std::vector<Isa> jitIsas() {
  std::vector<Isa> isas;
  if (detectIsa() == Isa::avx512) isas.push_back(Isa::avx512);
  if (detectIsa() != Isa::reference) isas.push_back(Isa::avx2);
  return isas;
}

void checkBrgemm(const BrgemmDesc& d, Isa isa, std::mt19937& gen) {
  std::uniform_int_distribution<int64_t> pad(0, 5);
  const int64_t rowsA = d.trans_a ? d.k : d.m, colsA = d.trans_a ? d.m : d.k;
  const int64_t rowsB = d.trans_b ? d.n : d.k, colsB = d.trans_b ? d.k : d.n;
  const int64_t lda = rowsA + pad(gen), ldb = rowsB + pad(gen), ldc = d.m + pad(gen);
  const int64_t bsa = lda * colsA + pad(gen), bsb = ldb * colsB + pad(gen);
  auto a = randomVector(size_t(bsa * d.br), gen);
  auto b = randomVector(size_t(bsb * d.br), gen);
  auto c = randomVector(size_t(ldc * d.n), gen);
  auto want = c;
  reference::brgemm(d, a.data(), b.data(), want.data(), lda, ldb, ldc, bsa, bsb);
  BrgemmKernel kernel(d, isa);
  kernel(a.data(), b.data(), c.data(), lda, ldb, ldc, bsa, bsb);
  EXPECT_TRUE(closeVectors(c, want, double(d.k * d.br)))
      << d.key() << " isa " << toString(isa) << " lda " << lda << " ldb " << ldb
      << " ldc " << ldc;
}

TEST(Brgemm, RandomShapesAllVariants) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> mn(1, 80), kd(1, 40), brd(1, 4);
  for (Isa isa : jitIsas()) {
    for (int trial = 0; trial < 60; ++trial) {
      BrgemmDesc d;
      d.m = mn(gen);
      d.n = mn(gen);
      d.k = kd(gen);
      d.br = trial % 3 == 0 ? 1 : brd(gen);
      d.trans_a = trial & 1;
      d.trans_b = (trial >> 1) & 1;
      d.accumulate = (trial >> 2) & 1;
      checkBrgemm(d, isa, gen);
    }
  }
}

TEST(Brgemm, EdgeShapes) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  const int64_t ms[] = {1, 7, 8, 15, 16, 17, 31, 33, 48, 63, 64, 65, 129};
  const int64_t ns[] = {1, 5, 6, 7, 8, 12, 13, 25};
  for (Isa isa : jitIsas())
    for (int64_t m : ms)
      for (int64_t n : ns)
        for (int64_t k : {1, 3, 4, 9}) {
          BrgemmDesc d;
          d.m = m;
          d.n = n;
          d.k = k;
          d.br = k == 3 ? 3 : 1;
          d.trans_b = n == 7;
          checkBrgemm(d, isa, gen);
        }
}

// Rows beyond the JIT's unroll limit go through the portable path.
TEST(Brgemm, HugeMFallsBackCorrectly) {
  std::mt19937 gen(freshSeed());
  BrgemmDesc d;
  d.m = 20000;
  d.n = 2;
  d.k = 3;
  checkBrgemm(d, detectIsa(), gen);
}

TEST(Brgemm, ReferenceIsaMatchesDefinition) {
  std::mt19937 gen(freshSeed());
  BrgemmDesc d;
  d.m = 5;
  d.n = 3;
  d.k = 4;
  d.br = 2;
  checkBrgemm(d, Isa::reference, gen);
}

TEST(Brgemm, KernelsAreCached) {
  BrgemmDesc d;
  d.m = 19;
  d.n = 11;
  d.k = 13;
  BrgemmKernel first(d);
  const size_t count = jitKernelCount();
  BrgemmKernel second(d);
  EXPECT_EQ(count, jitKernelCount());
  EXPECT_EQ(first.code(), second.code());
}

}  // namespace
}  // namespace stitch::tensorop
