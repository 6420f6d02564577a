// Optimizer passes: fusion, splitting, primitive identification, loop order
// and parallelization, and optimized operations against naive loops.
#include <gtest/gtest.h>

#include "naive.h"
#include "stitch/tensorop.h"
#include "tensorop/optimizer.h"
#include "test_util.h"

namespace stitch::tensorop {
namespace {

using testing::closeVectors;
using testing::freshSeed;
using testing::randomVector;

Dimension dim(dim_t t, int64_t size, int64_t s0, int64_t s1, int64_t so) {
  Dimension d;
  d.type = t;
  d.size = size;
  d.stride_in0 = s0;
  d.stride_in1 = s1;
  d.stride_out = so;
  return d;
}

TEST(Optimizer, FusesSmallContiguousDims) {
  // m dims 4 x 8 laid out back to back in in0 and out fuse to one of 32.
  std::vector<Dimension> dims{dim(dim_t::m, 4, 8, 0, 8), dim(dim_t::m, 8, 1, 0, 1)};
  passes::fuseDimensions(dims, 16);
  ASSERT_EQ(dims.size(), 1u);
  EXPECT_EQ(dims[0].size, 32);
  EXPECT_EQ(dims[0].stride_in0, 1);
}

TEST(Optimizer, SplitsLargeDimsIntoKernelFriendlySizes) {
  std::vector<Dimension> dims{dim(dim_t::m, 1600, 1, 0, 1)};
  passes::splitDimensions(dims, 16, 1024);
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0].size, 800);  // multiple of 16 for m
  EXPECT_EQ(dims[1].size, 2);
  EXPECT_EQ(dims[1].stride_in0, 800);
  std::vector<Dimension> prime{dim(dim_t::n, 1031, 0, 1, 1)};
  passes::splitDimensions(prime, 16, 256);
  EXPECT_EQ(prime.size(), 1u);  // no divisor: the kernel takes any size
}

TEST(Optimizer, IdentifiesBrgemmAndParallelizes) {
  // The seed's contraction without exec types.
  std::vector<Dimension> dims{dim(dim_t::m, 32, 8192, 0, 32768), dim(dim_t::n, 32, 0, 8192, 1024),
                              dim(dim_t::k, 8, 1024, 1024, 0),    dim(dim_t::m, 32, 1, 0, 1),
                              dim(dim_t::n, 32, 0, 32, 32),       dim(dim_t::k, 32, 32, 1, 0)};
  OptimizerOptions opt;
  opt.thread_target = 16;
  EXPECT_EQ(optimize(dims, ptype_t::gemm, opt), ptype_t::brgemm);
  ASSERT_EQ(dims.size(), 6u);
  EXPECT_EQ(dims[0].exec, exec_t::shared);
  EXPECT_EQ(dims[0].size, 32);
  EXPECT_EQ(dims[1].exec, exec_t::seq);
  int prims = 0;
  for (const auto& d : dims) prims += d.exec == exec_t::prim;
  EXPECT_EQ(prims, 4);
  EXPECT_EQ(dims.back().type, dim_t::m);
  EXPECT_EQ(dims.back().stride_in0, 1);
}

TEST(Optimizer, FallsBackToUnitMWithoutContiguousM) {
  std::vector<Dimension> dims{dim(dim_t::m, 8, 1, 0, 8), dim(dim_t::n, 8, 0, 1, 1),
                              dim(dim_t::k, 8, 8, 8, 0)};
  EXPECT_EQ(optimize(dims, ptype_t::gemm, OptimizerOptions{}), ptype_t::gemm);
  ASSERT_EQ(dims.size(), 4u);
  EXPECT_EQ(dims[0].type, dim_t::m);
  EXPECT_EQ(dims[0].exec, exec_t::seq);
  EXPECT_EQ(dims.back().type, dim_t::m);
  EXPECT_EQ(dims.back().size, 1);
  EXPECT_THROW(optimize(dims, ptype_t::none, OptimizerOptions{}), Error);
  OptimizerOptions noN;
  noN.max_n_kernel = 0;
  try {
    optimize(dims, ptype_t::gemm, noN);
    ADD_FAILURE() << "a zero kernel cap must be rejected";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("max_n_kernel"), std::string::npos) << e.what();
  }
}

TEST(Optimizer, MergesAdjacentContractionDimsUpToTheCaps) {
  // Column-major C[m, (n1, n0)] = A[m, k] B[k, (n1, n0)]: n1 sits directly
  // outside n0 in B and C, so the kernel gets one N of 8 x 32.
  std::vector<Dimension> dims{dim(dim_t::m, 64, 1, 0, 1), dim(dim_t::n, 32, 0, 128, 64),
                              dim(dim_t::n, 8, 0, 32 * 128, 32 * 64),
                              dim(dim_t::k, 128, 64, 1, 0)};
  optimize(dims, ptype_t::gemm, OptimizerOptions{});
  int64_t primN = 0;
  for (const auto& d : dims)
    if (d.type == dim_t::n && d.exec == exec_t::prim) primN = d.size;
  EXPECT_EQ(primN, 256);
  // With a cap of 64 the two stay apart.
  std::vector<Dimension> capped{dim(dim_t::m, 64, 1, 0, 1), dim(dim_t::n, 32, 0, 128, 64),
                                dim(dim_t::n, 8, 0, 32 * 128, 32 * 64),
                                dim(dim_t::k, 128, 64, 1, 0)};
  OptimizerOptions opt;
  opt.max_n_kernel = 64;
  optimize(capped, ptype_t::gemm, opt);
  for (const auto& d : capped) {
    if (d.type == dim_t::n && d.exec == exec_t::prim) {
      EXPECT_EQ(d.size, 32);
    }
  }
}

TEST(Optimizer, OptimizedGemmMatchesNaive) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  // Column-major C[M,N] = A[M,K] B[K,N] with large extents that get split.
  const int64_t M = 160, N = 70, K = 300;
  std::vector<Dimension> dims{dim(dim_t::m, M, 1, 0, 1), dim(dim_t::n, N, 0, K, M),
                              dim(dim_t::k, K, M, 1, 0)};
  auto a = randomVector(size_t(M * K), gen), b = randomVector(size_t(K * N), gen);
  std::vector<float> c(size_t(M * N), 7.0f), want(size_t(M * N), 0.0f);
  OptimizerOptions opt;
  opt.thread_target = 4;
  opt.max_kernel_size = 64;
  opt.max_k_kernel = 64;
  opt.max_n_kernel = 64;
  TensorOperation op;
  setupOptimized(op, ptype_t::zero, ptype_t::gemm, ptype_t::relu, dims, opt);
  op.execute(a.data(), b.data(), c.data());
  testing::naiveTensorOperation(ptype_t::zero, ptype_t::gemm, ptype_t::relu, {M, N, K},
                                {1, 0, M}, {0, K, 1}, {1, M, 0}, a.data(), b.data(),
                                want.data());
  EXPECT_TRUE(closeVectors(c, want, double(K))) << op.describe();
}

}  // namespace
}  // namespace stitch::tensorop
