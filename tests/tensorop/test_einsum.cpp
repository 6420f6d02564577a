// Einsum trees against a naive sum over all indices: the seed's
// contraction, tree notation, several operands, layouts that need
// permutations, random two-operand expressions, threads, and error messages.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>

#include "naive.h"
#include "stitch/tensorop.h"
#include "tensorop/einsum_parse.h"
#include "test_util.h"

namespace stitch::tensorop {
namespace {

using testing::closeVectors;
using testing::freshSeed;
using testing::randomVector;

std::vector<std::string> letters(const std::string& s) {
  std::vector<std::string> v;
  for (char c : s) v.emplace_back(1, c);
  return v;
}

// Runs a standard einsum string through EinsumTree and the naive loops.
void checkEinsum(const std::string& expr, const std::map<std::string, int64_t>& sizes,
                 std::mt19937& gen, int threads = 1) {
  SCOPED_TRACE(expr);
  const size_t arrow = expr.find("->");
  std::vector<std::vector<std::string>> inDims;
  std::string lhs = expr.substr(0, arrow);
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    inDims.push_back(letters(lhs.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const auto outDims = letters(expr.substr(arrow + 2));
  omp_set_num_threads(threads);
  EinsumTree tree(expr, sizes, threads);
  ASSERT_EQ(tree.numInputs(), inDims.size());
  std::vector<std::vector<float>> inputs;
  std::vector<const float*> ptrs;
  double terms = 1;
  for (const auto& [d, s] : sizes)
    if (expr.find(d) != std::string::npos) terms *= double(s);
  for (size_t i = 0; i < inDims.size(); ++i) {
    int64_t n = 1;
    for (int64_t s : tree.inputShape(i)) n *= s;
    inputs.push_back(randomVector(size_t(n), gen));
    ptrs.push_back(inputs.back().data());
  }
  int64_t outN = 1;
  for (int64_t s : tree.outputShape()) outN *= s;
  std::vector<float> out(size_t(outN), std::nanf(""));  // poison: unwritten shows
  tree.execute(ptrs, out.data());
  const auto want = testing::naiveEinsum(inDims, outDims, sizes, inputs);
  for (const auto& d : outDims) terms /= double(sizes.at(d));
  EXPECT_TRUE(closeVectors(out, want, terms)) << tree.treeString();
}

TEST(Einsum, SeedContraction) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  checkEinsum("acfd,bcef->abed", {{"a", 3}, {"b", 4}, {"c", 8}, {"d", 32}, {"e", 32}, {"f", 32}},
              gen);
  checkEinsum("acfd,bcef->abed", {{"a", 4}, {"b", 2}, {"c", 3}, {"d", 19}, {"e", 7}, {"f", 11}},
              gen, 2);
}

TEST(Einsum, LayoutsNeedingPermutations) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  const std::map<std::string, int64_t> s{{"a", 5}, {"b", 17}, {"c", 6}, {"d", 9}, {"e", 3}};
  for (const char* e : {"ab,bc->ac", "ab,cb->ac", "ba,bc->ac", "ba,cb->ca", "ab,bc->ca",
                        "eab,ebc->eac", "abe,bce->ace", "eab,ebc->ace", "ab,cd->abcd",
                        "ab,ab->ab", "ab,ab->a", "abc,abd->abcd", "a,b->ab", "ab,b->a"})
    checkEinsum(e, s, gen);
  // Extent-1 dims in the innermost positions must not confuse the layout
  // choice (they have no meaningful stride).
  const std::map<std::string, int64_t> ones{{"a", 1}, {"b", 9}, {"c", 1}, {"d", 6}, {"e", 1}};
  for (const char* e : {"ab,bc->ac", "ba,cb->ca", "dba,bec->dcea", "abd,bcd->acd",
                        "adc,dbe->aebc", "ec,ce->e"})
    checkEinsum(e, ones, gen);
}

TEST(Einsum, MoreThanTwoOperands) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  const std::map<std::string, int64_t> s{{"a", 7}, {"b", 20}, {"c", 3}, {"d", 16}, {"e", 5}};
  checkEinsum("ab,bc,cd->ad", s, gen);
  checkEinsum("ab,bc,cd,de->ea", s, gen);
  checkEinsum("abc,cd,be->ade", s, gen);
}

TEST(Einsum, ShortContiguousOutputDimGivesWayToALongerM) {
  // The output's contiguous dim d has 5 elements (5 of 16 lanes); a (64)
  // makes full vectors at the price of permuting A and the result.
  const std::map<std::string, int64_t> s{{"a", 64}, {"b", 8}, {"c", 8},
                                         {"d", 5},  {"e", 64}, {"f", 8}};
  EinsumTree tree("acfd,bcef->abed", s);
  const auto plan = tree.plan();
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_NE(plan[0].find("identity"), std::string::npos) << plan[0];
  EXPECT_NE(plan[1].find("M=64 "), std::string::npos) << plan[1];
  EXPECT_NE(plan[2].find("identity"), std::string::npos) << plan[2];
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  checkEinsum("acfd,bcef->abed", s, gen);
  checkEinsum("acfd,bcef->abed", s, gen, 2);
  // Small problems keep the direct layout: the copies would cost more.
  EinsumTree small("acfd,bcef->abed", {{"a", 64}, {"b", 2}, {"c", 2}, {"d", 5}, {"e", 4}, {"f", 2}});
  EXPECT_EQ(small.numOperations(), 1u);
}

TEST(Einsum, RandomContractionsWithAShortContiguousOutputDim) {
  // The output's contiguous dim a is short and its operand ends in the
  // longer m dim b: the direct layout would copy that operand (larger than
  // the output, as it holds the reduction c), so b becomes M and the result
  // is permuted. Exercises the permuted layouts (a random fourth dim as
  // batch, m, n or k; random operand orders) against the naive loops.
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> role(0, 3);
  std::uniform_int_distribution<int64_t> shortExt(2, 6), mExt(24, 40), kExt(96, 160),
      otherExt(8, 24);
  for (int trial = 0; trial < 12; ++trial) {
    std::map<std::string, int64_t> sizes{
        {"a", shortExt(gen)}, {"b", mExt(gen)}, {"c", kExt(gen)}, {"d", otherExt(gen)}};
    std::string a = "c", b = "c", o = "b";
    switch (role(gen)) {
      case 0: a += 'd'; b += 'd'; o += 'd'; break;  // batch
      case 1: a += 'd'; o += 'd'; break;            // m
      case 2: b += 'd'; o += 'd'; break;            // n
      default: a += 'd'; b += 'd'; break;           // k
    }
    std::shuffle(a.begin(), a.end(), gen);
    std::shuffle(b.begin(), b.end(), gen);
    std::shuffle(o.begin(), o.end(), gen);
    a.insert(a.begin() + std::uniform_int_distribution<size_t>(0, a.size())(gen), 'a');
    a += 'b';
    o += 'a';
    const std::string expr = a + "," + b + "->" + o;
    SCOPED_TRACE(expr);
    EinsumTree tree(expr, sizes, trial % 2 ? 2 : 1);
    EXPECT_NE(tree.plan().back().find("identity"), std::string::npos)
        << "expected the result to be computed with a longer M and permuted";
    checkEinsum(expr, sizes, gen, trial % 2 ? 2 : 1);
  }
}

TEST(Einsum, MatrixChainNeedsNoPermutation) {
  // Each intermediate keeps a contiguous dim of an operand innermost, so
  // both contractions read their operands in place.
  const std::map<std::string, int64_t> s{{"a", 40}, {"b", 33}, {"c", 48}, {"d", 20}};
  EinsumTree tree("ab,bc,cd->ad", s);
  EXPECT_EQ(tree.numOperations(), 2u);
  for (const std::string& line : tree.plan())
    EXPECT_EQ(line.find("identity"), std::string::npos) << line;
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  checkEinsum("ab,bc,cd->ad", s, gen);
}

TEST(Einsum, TreeNotation) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  const std::map<std::string, int64_t> sizes{{"8", 24}, {"4", 17}, {"7", 3}, {"3", 5}};
  EinsumTree tree("[[8,4],[7,3,8]->[7,3,4]]", sizes);
  EXPECT_EQ(tree.treeString(), "[[8,4],[7,3,8]->[7,3,4]]");
  auto a = randomVector(24 * 17, gen), b = randomVector(3 * 5 * 24, gen);
  std::vector<float> out(3 * 5 * 17);
  tree.execute({a.data(), b.data()}, out.data());
  std::vector<float> want(out.size(), 0.0f);
  for (int i7 = 0; i7 < 3; ++i7)
    for (int i3 = 0; i3 < 5; ++i3)
      for (int i4 = 0; i4 < 17; ++i4) {
        double acc = 0;
        for (int i8 = 0; i8 < 24; ++i8) acc += a[i8 * 17 + i4] * b[(i7 * 5 + i3) * 24 + i8];
        want[(i7 * 5 + i3) * 17 + i4] = float(acc);
      }
  EXPECT_TRUE(closeVectors(out, want, 24));

  // Nested tree with a permutation node.
  EinsumTree nested("[[[[0,1],[1,2]->[0,2]]->[2,0]],[2,3]->[0,3]]",
                    {{"0", 9}, {"1", 18}, {"2", 7}, {"3", 33}});
  EXPECT_EQ(nested.numInputs(), 3u);
  auto x = randomVector(9 * 18, gen), y = randomVector(18 * 7, gen), z = randomVector(7 * 33, gen);
  std::vector<float> r(9 * 33);
  nested.execute({x.data(), y.data(), z.data()}, r.data());
  const auto expect = testing::naiveEinsum({{"0", "1"}, {"1", "2"}, {"2", "3"}}, {"0", "3"},
                                           {{"0", 9}, {"1", 18}, {"2", 7}, {"3", 33}},
                                           {x, y, z});
  EXPECT_TRUE(closeVectors(r, expect, 18 * 7));
}

// Random two-operand contractions: every dim gets a random role (batch,
// m, n, k) and each tensor a random dim order.
TEST(Einsum, RandomContractions) {
  const uint32_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> ndims(2, 5), role(0, 3);
  std::uniform_int_distribution<int64_t> ext(1, 12);
  for (int trial = 0; trial < 25; ++trial) {
    std::string a, b, o;
    std::map<std::string, int64_t> sizes;
    const int n = ndims(gen);
    for (int i = 0; i < n; ++i) {
      const char d = char('a' + i);
      sizes[std::string(1, d)] = trial % 5 == 0 ? ext(gen) * 4 : ext(gen);
      switch (role(gen)) {
        case 0: a += d; b += d; o += d; break;  // batch
        case 1: a += d; o += d; break;          // m
        case 2: b += d; o += d; break;          // n
        default: a += d; b += d; break;         // k
      }
    }
    if (a.empty() || b.empty()) continue;
    std::shuffle(a.begin(), a.end(), gen);
    std::shuffle(b.begin(), b.end(), gen);
    std::shuffle(o.begin(), o.end(), gen);
    checkEinsum(a + "," + b + "->" + o, sizes, gen, trial % 2 ? 2 : 1);
  }
}

void expectEinsumError(const std::string& expr, const std::map<std::string, int64_t>& sizes,
                       const std::string& fragment) {
  try {
    EinsumTree tree(expr, sizes);
    ADD_FAILURE() << "accepted '" << expr << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << expr << ": " << e.what();
  }
}

TEST(Einsum, BadExpressionsSayWhatIsWrong) {
  const std::map<std::string, int64_t> s{{"a", 2}, {"b", 3}, {"c", 4}};
  expectEinsumError("ab,bc->ac", {{"a", 2}, {"b", 3}}, "no size given for dimension 'c'");
  expectEinsumError("ab,bc->az", s, "output dimension 'z' appears in no operand");
  expectEinsumError("ab,bc->c", s, "summed out of a single operand");
  expectEinsumError("aa,bc->ac", s, "appears twice");
  expectEinsumError("a-b,bc->ac", s, "invalid character '-'");
  expectEinsumError("ab,,bc->ac", s, "operand 1 is empty");
  expectEinsumError("ab,bc->ac->a", s, "more than one '->'");
  expectEinsumError("", s, "empty einsum expression");
  expectEinsumError("[[a,b],[b,c]->[a,c]", s, "expected ']'");
  expectEinsumError("[[a,b],[b,c],[c]->[a]]", s, "one or two operands");
  expectEinsumError("[[a,b],[b,c][a,c]]", s, "expected '->'");
  expectEinsumError("ab,bc->ac", {{"a", 2}, {"b", 0}, {"c", 4}}, "must be >= 1");
}

TEST(Einsum, ContractionOrderIsGreedyByCost) {
  // (ab,bc) costs a*b*c = 2*3*1000; (bc,cd) costs 3*1000*2: tie broken by
  // order; (ab) with (cd) is an outer product of cost 2*3*1000*2.
  auto root = parseEinsum("ab,bc,cd->ad", {{"a", 2}, {"b", 3}, {"c", 1000}, {"d", 2}});
  ASSERT_EQ(root->children.size(), 2u);
  // The intermediate keeps c (contiguous in bc) innermost.
  EXPECT_EQ(toTreeString(*root), "[[[a,b],[b,c]->[a,c]],[c,d]->[a,d]]");
}

}  // namespace
}  // namespace stitch::tensorop
