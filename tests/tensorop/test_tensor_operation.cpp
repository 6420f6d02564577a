// TensorOperation against a naive loop nest: the seed's three benchmark
// configurations, shared (OpenMP) loops, permutations, binary ops, and the
// validation messages of bad setups.
#include <gtest/gtest.h>
#include <omp.h>

#include "naive.h"
#include "stitch/tensorop.h"
#include "test_util.h"

namespace stitch::tensorop {
namespace {

using testing::closeVectors;
using testing::freshSeed;
using testing::naiveTensorOperation;
using testing::randomVector;

using D = dim_t;
using E = exec_t;

struct Config {
  ptype_t first, main, last;
  std::vector<dim_t> types;
  std::vector<exec_t> execs;
  std::vector<int64_t> sizes, s0, s1, so;
};

int64_t span(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t m = 0;
  for (size_t i = 0; i < sizes.size(); ++i) m += (sizes[i] - 1) * strides[i];
  return m + 1;
}

void runAndCompare(const Config& c, std::mt19937& gen, double terms) {
  auto in0 = randomVector(size_t(span(c.sizes, c.s0)), gen);
  auto in1 = randomVector(size_t(span(c.sizes, c.s1)), gen, 0.5f, 1.5f);
  auto out = randomVector(size_t(span(c.sizes, c.so)), gen);
  auto want = out;
  naiveTensorOperation(c.first, c.main, c.last, c.sizes, c.s0, c.s1, c.so, in0.data(),
                       in1.data(), want.data());
  TensorOperation op;
  op.setup(dtype_t::fp32, c.first, c.main, c.last, c.types, c.execs, c.sizes, c.s0, c.s1,
           c.so);
  op.execute(in0.data(), in1.data(), out.data());
  EXPECT_TRUE(closeVectors(out, want, terms)) << op.describe();
}

// The seed's configurations (dims M, N, K, M, N, K), scaled to keep the
// naive reference fast.
Config seedConfig(int which, int64_t m, int64_t n, int64_t br, int64_t k) {
  Config c;
  c.first = which == 3 ? ptype_t::zero : ptype_t::none;
  c.main = which == 1 ? ptype_t::gemm : ptype_t::brgemm;
  c.last = which == 3 ? ptype_t::relu : ptype_t::none;
  c.types = {D::m, D::n, D::k, D::m, D::n, D::k};
  c.execs = which == 1 ? std::vector<E>{E::seq, E::seq, E::seq, E::prim, E::prim, E::prim}
                       : std::vector<E>{E::seq, E::seq, E::prim, E::prim, E::prim, E::prim};
  const int64_t M = 3, N = 2;
  c.sizes = {M, N, br, m, n, k};
  c.s0 = {br * k * m, 0, k * m, 1, 0, m};
  c.s1 = {0, br * n * k, n * k, 0, k, 1};
  c.so = {N * n * m, n * m, 0, 1, m, 0};
  return c;
}

TEST(TensorOperation, SeedConfigurations) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  for (int which = 1; which <= 3; ++which) {
    runAndCompare(seedConfig(which, 32, 32, 8, 32), gen, 256);
    runAndCompare(seedConfig(which, 17, 13, 3, 5), gen, 15);
  }
}

TEST(TensorOperation, SharedLoopsMatchSequential) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  omp_set_num_threads(2);
  Config c = seedConfig(3, 20, 9, 4, 7);
  c.execs[0] = E::shared;
  c.execs[1] = E::shared;
  runAndCompare(c, gen, 28);
  Config g = seedConfig(1, 16, 6, 3, 8);
  g.execs[1] = E::shared;
  std::swap(g.types[0], g.types[1]);
  std::swap(g.sizes[0], g.sizes[1]);
  std::swap(g.s0[0], g.s0[1]);
  std::swap(g.s1[0], g.s1[1]);
  std::swap(g.so[0], g.so[1]);
  std::swap(g.execs[0], g.execs[1]);
  runAndCompare(g, gen, 24);
}

// A leading dimension that is a multiple of 1 KiB takes the packed-A path.
TEST(TensorOperation, PowerOfTwoLeadingDimensionPacksA) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  using E = exec_t;
  // dims: k (seq), m, n, k (br), k: A is 1024 floats per column.
  Config c{ptype_t::zero, ptype_t::brgemm, ptype_t::none,
           {D::k, D::m, D::n, D::k, D::k}, {E::seq, E::prim, E::prim, E::prim, E::prim},
           {2, 20, 7, 3, 16}, {1024 * 48, 1, 0, 1024 * 16, 1024}, {7 * 48, 0, 48, 16, 1},
           {0, 1, 20, 0, 0}};
  runAndCompare(c, gen, 96);
}

// The seed's permutation test: trus -> turs with two prim dims.
TEST(TensorOperation, Permutation) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  for (int64_t T : {3, 7})
    for (int64_t R : {4, 17})
      for (int64_t U : {3, 16})
        for (int64_t S : {5, 33}) {
          Config c{ptype_t::none, ptype_t::identity, ptype_t::none,
                   {D::c, D::c, D::c, D::c}, {E::seq, E::seq, E::prim, E::prim},
                   {T, R, U, S}, {R * U * S, U * S, S, 1}, {0, 0, 0, 0},
                   {U * R * S, S, R * S, 1}};
          runAndCompare(c, gen, 1);
          // Transposed: s contiguous in, u contiguous out.
          c.so = {U * R * S, U, 1, R * U};
          runAndCompare(c, gen, 1);
        }
}

TEST(TensorOperation, BinaryAndTouches) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  for (ptype_t op : {ptype_t::add, ptype_t::sub, ptype_t::mul, ptype_t::div, ptype_t::min,
                     ptype_t::max}) {
    // out[a][b][c] = in0[a][b][c] op in1[a][c] (broadcast over b).
    Config c{ptype_t::none, op, ptype_t::relu, {D::c, D::c, D::c}, {E::seq, E::prim, E::prim},
             {3, 5, 21}, {105, 21, 1}, {21, 0, 1}, {105, 21, 1}};
    runAndCompare(c, gen, 1);
  }
}

void expectSetupError(const Config& c, const std::string& fragment) {
  TensorOperation op;
  try {
    op.setup(dtype_t::fp32, c.first, c.main, c.last, c.types, c.execs, c.sizes, c.s0, c.s1,
             c.so);
    ADD_FAILURE() << "setup accepted a bad configuration; expected: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "message: " << e.what();
  }
}

TEST(TensorOperation, InvalidSetupsSayWhatIsWrong) {
  const Config good = seedConfig(2, 8, 8, 2, 8);
  Config c = good;
  c.sizes.pop_back();
  expectSetupError(c, "dim_sizes has 5 entries but dim_types has 6");
  c = good;
  c.execs[2] = E::seq;
  expectSetupError(c, "brgemm needs prim dims m, n and two k");
  c = good;
  c.execs = {E::seq, E::prim, E::seq, E::prim, E::prim, E::prim};
  expectSetupError(c, "comes after a prim dim");
  c = good;
  c.execs[0] = E::undefined;
  expectSetupError(c, "undefined exec type");
  c = good;
  c.main = ptype_t::none;
  expectSetupError(c, "main primitive must not be none");
  c = good;
  c.last = ptype_t::add;
  expectSetupError(c, "first/last touch must be a unary primitive");
  c = good;
  c.sizes[3] = 0;
  expectSetupError(c, "sizes must be >= 1");
  c = good;
  c.so[3] = 2;
  expectSetupError(c, "must have unit stride in out");
  c = good;
  c.s1[0] = 5;
  expectSetupError(c, "is an m dim but has a nonzero stride in in1");
  c = good;
  c.types[2] = D::k;
  c.execs = {E::seq, E::seq, E::shared, E::prim, E::prim, E::prim};
  expectSetupError(c, "cannot be shared");

  TensorOperation op;
  EXPECT_THROW(op.setup(dtype_t::fp64, good.first, good.main, good.last, good.types,
                        good.execs, good.sizes, good.s0, good.s1, good.so),
               Error);
  EXPECT_THROW(op.execute(nullptr, nullptr, nullptr), Error);
}

}  // namespace
}  // namespace stitch::tensorop
