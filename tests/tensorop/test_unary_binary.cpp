// JIT unary and binary primitives against the C++ reference: every op,
// plain and transposed output, broadcasts, row tails, padded leading dims.
#include <gtest/gtest.h>

#include "tensorop/kernels.h"
#include "tensorop/reference.h"
#include "test_util.h"

namespace stitch::tensorop {
namespace {

using testing::closeVectors;
using testing::freshSeed;
using testing::randomVector;

std::vector<Isa> allIsas() {
  std::vector<Isa> isas{Isa::reference};
  if (detectIsa() == Isa::avx512) isas.push_back(Isa::avx512);
  if (detectIsa() != Isa::reference) isas.push_back(Isa::avx2);
  return isas;
}

const ptype_t kUnaryOps[] = {ptype_t::zero,       ptype_t::identity,
                             ptype_t::relu,       ptype_t::square,
                             ptype_t::reciprocal, ptype_t::increment,
                             ptype_t::exp};
const ptype_t kBinaryOps[] = {ptype_t::add, ptype_t::sub, ptype_t::mul,
                              ptype_t::div, ptype_t::min, ptype_t::max};

TEST(Unary, AllOpsPlainAndTransposed) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> ext(1, 70), pad(0, 4);
  for (Isa isa : allIsas())
    for (ptype_t op : kUnaryOps)
      for (int trial = 0; trial < 8; ++trial) {
        UnaryDesc d;
        d.m = trial == 0 ? 16 : ext(gen);
        d.n = trial == 1 ? 1 : ext(gen);
        d.op = op;
        d.transpose = trial % 2 == 1;
        const int64_t ldIn = d.m + pad(gen);
        const int64_t outRows = d.transpose ? d.n : d.m, outCols = d.transpose ? d.m : d.n;
        const int64_t ldOut = outRows + pad(gen);
        // Keep reciprocal away from 0 and exp in a range floats represent.
        auto in = randomVector(size_t(ldIn * d.n), gen, op == ptype_t::exp ? -20.f : 0.25f,
                               op == ptype_t::exp ? 20.f : 4.f);
        if (op != ptype_t::exp && op != ptype_t::reciprocal)
          in = randomVector(size_t(ldIn * d.n), gen);
        auto out = randomVector(size_t(ldOut * outCols), gen);
        auto want = out;
        reference::unary(d, in.data(), want.data(), ldIn, ldOut);
        UnaryKernel(d, isa)(in.data(), out.data(), ldIn, ldOut);
        EXPECT_TRUE(closeVectors(out, want, 8))
            << d.key() << " isa " << toString(isa) << " ld " << ldIn << "," << ldOut;
      }
}

TEST(Binary, AllOpsWithBroadcasts) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> ext(1, 70), pad(0, 4);
  for (Isa isa : allIsas())
    for (ptype_t op : kBinaryOps)
      for (int trial = 0; trial < 12; ++trial) {
        BinaryDesc d;
        d.m = ext(gen);
        d.n = ext(gen);
        d.op = op;
        d.bcast_m_in0 = trial % 4 == 1;
        d.bcast_m_in1 = trial % 4 == 2;
        // Leading dimension 0 repeats one column for every n.
        const bool bcastN0 = trial % 3 == 1, bcastN1 = trial % 3 == 2;
        const int64_t rows0 = d.bcast_m_in0 ? 1 : d.m, rows1 = d.bcast_m_in1 ? 1 : d.m;
        const int64_t ld0 = bcastN0 ? 0 : rows0 + pad(gen);
        const int64_t ld1 = bcastN1 ? 0 : rows1 + pad(gen);
        const int64_t ldo = d.m + pad(gen);
        auto in0 = randomVector(size_t(std::max<int64_t>(ld0, rows0) * d.n), gen);
        auto in1 = randomVector(size_t(std::max<int64_t>(ld1, rows1) * d.n), gen, 0.5f, 2.0f);
        auto out = randomVector(size_t(ldo * d.n), gen);
        auto want = out;
        reference::binary(d, in0.data(), in1.data(), want.data(), ld0, ld1, ldo);
        BinaryKernel(d, isa)(in0.data(), in1.data(), out.data(), ld0, ld1, ldo);
        EXPECT_TRUE(closeVectors(out, want)) << d.key() << " isa " << toString(isa);
      }
}

TEST(Unary, InPlaceRelu) {
  std::mt19937 gen(freshSeed());
  UnaryDesc d;
  d.m = 37;
  d.n = 5;
  d.op = ptype_t::relu;
  auto buf = randomVector(size_t(40 * 5), gen);
  auto want = buf;
  reference::unary(d, want.data(), want.data(), 40, 40);
  UnaryKernel kernel(d);
  kernel(buf.data(), buf.data(), 40, 40);
  EXPECT_TRUE(closeVectors(buf, want));
}

}  // namespace
}  // namespace stitch::tensorop
