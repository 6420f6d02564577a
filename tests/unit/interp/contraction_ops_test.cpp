// matmul, mm, bmm, linear and einsum against naive double references on
// fresh random tensors (random shapes incl. size-1 and empty dims, strided
// views), plus their shape and dtype errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "interp/einsum_eval.h"
#include "interp/matmul_ops.h"
#include "reduction_test_util.h"

namespace stitch {
namespace {

using namespace rtest;

int64_t flatIndex(const Shape& sizes, const std::vector<int64_t>& idx) {
  int64_t lin = 0;
  for (size_t d = 0; d < sizes.size(); ++d) lin = lin * sizes[d] + idx[d];
  return lin;
}

// The element of t at the trailing part of a broadcast index (size-1 dims
// read index 0).
double broadcastAt(const Tensor& t, const std::vector<int64_t>& idx) {
  std::vector<int64_t> own(t.sizes().size());
  size_t lead = idx.size() - own.size();
  for (size_t d = 0; d < own.size(); ++d) own[d] = t.size((int64_t)d) == 1 ? 0 : idx[lead + d];
  return t.getDouble(flatIndex(t.sizes(), own));
}

// Naive matmul of a [..., m, k] and b [..., k, n] (both rank >= 2) with
// broadcast batch dims, in double.
std::vector<double> naiveBatchedMatmul(const Tensor& a, const Tensor& b, const Shape& batch) {
  int64_t m = a.size(a.dim() - 2), k = a.size(a.dim() - 1), n = b.size(b.dim() - 1);
  int64_t batches = 1;
  for (int64_t s : batch) batches *= s;
  std::vector<double> out;
  for (int64_t bi = 0; bi < batches; ++bi) {
    std::vector<int64_t> bidx = unravel(batch, bi);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p) {
          std::vector<int64_t> ia = bidx, ib = bidx;
          ia.push_back(i), ia.push_back(p);
          ib.push_back(p), ib.push_back(j);
          s += broadcastAt(a, ia) * broadcastAt(b, ib);
        }
        out.push_back(s);
      }
    }
  }
  return out;
}

void expectValues(const Tensor& out, const std::vector<double>& expected, double rtol) {
  ASSERT_EQ(out.numel(), (int64_t)expected.size());
  for (int64_t i = 0; i < out.numel(); ++i)
    EXPECT_TRUE(close(out.getDouble(i), expected[i], rtol, 1e-5))
        << "element " << i << ": " << out.getDouble(i) << " vs " << expected[i];
}

Tensor unitDimView(const Tensor& t, int64_t dim) {
  Shape sizes = t.sizes(), strides = t.strides();
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, 1);
  return t.asStrided(sizes, strides, t.offset());
}

TEST(ContractionOps, MatmulMatchesReferenceInEveryRankCombination) {
  for (int iter = 0; iter < 80; ++iter) {
    DType t = randomDType(false);
    int64_t ra = randInt(1, 4), rb = randInt(1, 4);
    int64_t m = randInt(0, 7) == 0 ? 0 : randInt(1, 9), k = randInt(0, 9), n = randInt(1, 9);
    Shape batchA = randomShape(std::max<int64_t>(ra - 2, 0), 0.0);
    Shape batchB = randomShape(std::max<int64_t>(rb - 2, 0), 0.0);
    // Make the batch dims broadcast: equal or 1.
    for (size_t i = 0; i < std::min(batchA.size(), batchB.size()); ++i) {
      size_t ia = batchA.size() - 1 - i, ib = batchB.size() - 1 - i;
      if (coin())
        batchB[ib] = batchA[ia];
      else if (coin())
        batchA[ia] = 1;
      else
        batchB[ib] = 1;
    }
    Shape sa = batchA, sb = batchB;
    if (ra >= 2) sa.push_back(m);
    sa.push_back(k);
    sb.push_back(k);
    if (rb >= 2) sb.push_back(n);
    Tensor a = randomTensor(sa, t, -5, 5), b = randomTensor(sb, t, -5, 5);
    Tensor out = matmulTensors(a, b);
    EXPECT_EQ(out.dtype(), t);
    Tensor am = ra == 1 ? unitDimView(a, 0) : a;
    Tensor bm = rb == 1 ? unitDimView(b, 1) : b;
    Shape batch = batchA.size() >= batchB.size() ? batchA : batchB;
    for (size_t i = 0; i < std::min(batchA.size(), batchB.size()); ++i) {
      size_t ib = batch.size() - 1 - i;
      batch[ib] = std::max(batchA[batchA.size() - 1 - i], batchB[batchB.size() - 1 - i]);
    }
    Shape expectedShape = batch;
    if (ra >= 2) expectedShape.push_back(m);
    if (rb >= 2) expectedShape.push_back(n);
    ASSERT_EQ(out.sizes(), expectedShape) << "a " << a.shapeStr() << " b " << b.shapeStr();
    expectValues(out, naiveBatchedMatmul(am, bm, batch), t == DType::f32 ? 1e-5 : 1e-12);
  }
}

// A strided right operand (q @ k^T) is read in place for a few rows and
// packed for more; both sum each element over k in order in double, so
// either gives exactly the product of a contiguous copy.
TEST(ContractionOps, StridedRightOperandGivesTheContiguousResult) {
  for (int iter = 0; iter < 20; ++iter) {
    const int64_t m = iter % 2 ? randInt(1, 4) : randInt(5, 20), k = randInt(1, 70), n = randInt(1, 50);
    Tensor a = randomTensor({3, m, k}, DType::f32, -5, 5);
    Tensor kt = randomTensor({3, n, k}, DType::f32, -5, 5);
    Tensor b = kt.asStrided({3, k, n}, {n * k, 1, k}, 0);  // kt.transpose(1, 2)
    Tensor got = matmulTensors(a, b), want = matmulTensors(a, b.contiguous());
    ASSERT_EQ(got.sizes(), want.sizes());
    for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.getDouble(i), want.getDouble(i)) << "element " << i;
    expectValues(got, naiveBatchedMatmul(a, b, {3}), 1e-5);
  }
}

TEST(ContractionOps, MatmulErrors) {
  Tensor a = randomTensor({2, 3}, DType::f32);
  EXPECT_EQ(userErrorOf([&] {
              matmulTensors(a, randomTensor({4, 5}, DType::f32));
            }),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_EQ(userErrorOf([&] {
              matmulTensors(a, randomTensor({3, 4}, DType::f64));
            }),
            "expected scalar type Float but found Double");
  EXPECT_EQ(userErrorOf([&] { matmulTensors(randomTensor({}, DType::f32), a); }),
            "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
  EXPECT_EQ(userErrorOf(
                [&] { matmulTensors(randomTensor({3}, DType::b8), randomTensor({3}, DType::b8)); }),
            "\"dot\" not implemented for 'Bool'");
  Tensor b2 = randomTensor({2, 3}, DType::b8), b3 = randomTensor({2, 2, 3}, DType::b8);
  EXPECT_EQ(userErrorOf([&] { matmulTensors(b2, randomTensor({3}, DType::f32)); }),
            "\"addmv_impl_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(userErrorOf([&] {
              matmulTensors(b3, randomTensor({2, 3, 2}, DType::f32));
            }),
            "\"bmm\" not implemented for 'Bool'");
  EXPECT_EQ(userErrorOf([&] {
              matmulTensors(b2, randomTensor({3, 2}, DType::b8));
            }),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  EXPECT_EQ(userErrorOf([&] {
              matmulTensors(randomTensor({2, 3}, DType::f32), b2.asStrided({3, 2}, {1, 3}, 0));
            }),
            "expected scalar type Float but found Bool");
  EXPECT_EQ(userErrorOf([&] {
              matmulTensors(randomTensor({3}, DType::f32), randomTensor({4}, DType::f32));
            }),
            "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of "
            "elements, but got 3 and 4 elements respectively");
}

TEST(ContractionOps, MmAndBmm) {
  for (int iter = 0; iter < 20; ++iter) {
    DType t = randomDType(false);
    int64_t bt = randInt(1, 3), m = randInt(1, 6), k = randInt(0, 6), n = randInt(1, 6);
    Tensor a = randomTensor({m, k}, t, -5, 5), b = randomTensor({k, n}, t, -5, 5);
    Tensor mm = mmTensors(a, b);
    ASSERT_EQ(mm.sizes(), Shape({m, n}));
    expectValues(mm, naiveBatchedMatmul(a, b, {}), 1e-5);
    Tensor ba = randomTensor({bt, m, k}, t, -5, 5), bb = randomTensor({bt, k, n}, t, -5, 5);
    Tensor bmm = bmmTensors(ba, bb);
    ASSERT_EQ(bmm.sizes(), Shape({bt, m, n}));
    expectValues(bmm, naiveBatchedMatmul(ba, bb, {bt}), 1e-5);
  }
  EXPECT_EQ(userErrorOf([] {
              mmTensors(randomTensor({2, 3}, DType::f32), randomTensor({3}, DType::f32));
            }),
            "mat2 must be a matrix");
  EXPECT_EQ(userErrorOf([] {
              mmTensors(randomTensor({2, 3}, DType::f32), randomTensor({4, 5}, DType::f32));
            }),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_EQ(
      userErrorOf([] {
        bmmTensors(randomTensor({2, 3, 4}, DType::f32), randomTensor({3, 4, 5}, DType::f32));
      }),
      "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4].");
  EXPECT_EQ(userErrorOf([] {
              bmmTensors(randomTensor({2, 3}, DType::f32), randomTensor({2, 3, 4}, DType::f32));
            }),
            "batch1 must be a 3D tensor");
}

TEST(ContractionOps, LargeMatmulUsesEveryTile) {
  // Sizes past the kernel's tiles (and not multiples of them).
  Tensor a = randomTensor({5, 300}, DType::f32), b = randomTensor({300, 270}, DType::f32);
  expectValues(mmTensors(a, b), naiveBatchedMatmul(a, b, {}), 1e-5);
}

TEST(ContractionOps, LinearMatchesReference) {
  for (int iter = 0; iter < 30; ++iter) {
    DType t = randomFloatDType();
    int64_t in = randInt(1, 6), outF = randInt(1, 6);
    Shape xs = randomShape(randInt(0, 2), 0.0);
    xs.push_back(in);
    Tensor x = randomTensor(xs, t);
    bool vectorWeight = coin(0.2);
    Tensor w = vectorWeight ? randomTensor({in}, t) : randomTensor({outF, in}, t);
    std::optional<Tensor> bias;
    if (!vectorWeight && coin()) bias = randomTensor(coin() ? Shape{outF} : Shape{1}, t);
    Tensor out = linearTensors(x, w, bias);
    Shape expectedShape(xs.begin(), xs.end() - 1);
    if (!vectorWeight) expectedShape.push_back(outF);
    ASSERT_EQ(out.sizes(), expectedShape);
    int64_t rows = x.numel() / in, cols = vectorWeight ? 1 : outF;
    std::vector<double> expected;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        double s = bias ? bias->getDouble(bias->numel() == 1 ? 0 : c) : 0;
        for (int64_t p = 0; p < in; ++p) s += x.getDouble(r * in + p) * w.getDouble(c * in + p);
        expected.push_back(s);
      }
    }
    expectValues(out, expected, t == DType::f32 ? 1e-5 : 1e-12);
  }
  Tensor x = randomTensor({2, 3}, DType::f32);
  EXPECT_EQ(userErrorOf([&] {
              linearTensors(x, randomTensor({5, 4}, DType::f32), std::nullopt);
            }),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_EQ(userErrorOf([&] {
              linearTensors(x, randomTensor({5, 3}, DType::f32), randomTensor({5}, DType::f64));
            }),
            "self and mat2 must have the same dtype");
}

// A random einsum problem: label sizes, per-operand subscripts (repeats
// allowed), broadcast size-1 dims, explicit or implicit output.
struct EinsumCase {
  std::string equation;
  std::vector<std::vector<char>> inputs;
  std::vector<char> output;
  std::map<char, int64_t> sizes;
  std::vector<Tensor> operands;
};

EinsumCase randomEinsumCase(DType t) {
  EinsumCase c;
  std::string letters = "abcdeXY";
  int numLabels = (int)randInt(1, 5);
  std::vector<char> labels(letters.begin(), letters.begin() + numLabels);
  for (char l : labels) c.sizes[l] = randInt(0, 9) == 0 ? 0 : randInt(1, 5);
  int numOps = (int)randInt(1, 3);
  std::map<char, int> uses;
  for (int i = 0; i < numOps; ++i) {
    std::vector<char> subs;
    int64_t len = randInt(0, 3);
    for (int64_t j = 0; j < len; ++j) subs.push_back(labels[randInt(0, numLabels - 1)]);
    for (char l : subs) ++uses[l];
    c.inputs.push_back(subs);
  }
  bool explicitOut = coin();
  if (explicitOut) {
    for (char l : labels)
      if (uses[l] > 0 && coin()) c.output.push_back(l);
    std::shuffle(c.output.begin(), c.output.end(), rng());
  } else {
    std::vector<char> once;
    for (char l : labels)
      if (uses[l] == 1) once.push_back(l);
    std::sort(once.begin(), once.end());  // upper case sorts first, as in PyTorch
    c.output = once;
  }
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    c.equation += (i ? "," : "") + std::string(c.inputs[i].begin(), c.inputs[i].end());
    Shape shape;
    std::map<char, int64_t> own;
    for (char l : c.inputs[i]) {
      if (!own.count(l)) own[l] = coin(0.15) ? 1 : c.sizes[l];  // broadcast dim
      shape.push_back(own[l]);
    }
    c.operands.push_back(randomTensor(shape, t, -4, 4));
  }
  if (explicitOut) c.equation += "->" + std::string(c.output.begin(), c.output.end());
  // Only labels in use take part, with the size the operands give them (1
  // where every operand broadcasts the label).
  std::map<char, int64_t> effective;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    for (size_t d = 0; d < c.inputs[i].size(); ++d) {
      char l = c.inputs[i][d];
      int64_t s = c.operands[i].size((int64_t)d);
      if (!effective.count(l) || effective[l] == 1) effective[l] = s;
    }
  }
  c.sizes = effective;
  return c;
}

// Sums the product of the operands over every assignment of every label.
std::vector<double> naiveEinsum(const EinsumCase& c) {
  std::vector<char> labels;
  for (const auto& [l, s] : c.sizes) labels.push_back(l);
  Shape all;
  for (char l : labels) all.push_back(c.sizes.at(l));
  Shape outShape;
  for (char l : c.output) outShape.push_back(c.sizes.at(l));
  int64_t outNumel = 1, total = 1;
  for (int64_t s : outShape) outNumel *= s;
  for (int64_t s : all) total *= s;
  std::vector<double> out(outNumel, 0.0);
  for (int64_t i = 0; i < total; ++i) {
    std::vector<int64_t> idx = unravel(all, i);
    std::map<char, int64_t> value;
    for (size_t j = 0; j < labels.size(); ++j) value[labels[j]] = idx[j];
    double p = 1;
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      const Tensor& t = c.operands[k];
      std::vector<int64_t> at;
      for (size_t d = 0; d < c.inputs[k].size(); ++d)
        at.push_back(t.size((int64_t)d) == 1 ? 0 : value[c.inputs[k][d]]);
      p *= t.getDouble(flatIndex(t.sizes(), at));
    }
    std::vector<int64_t> o;
    for (char l : c.output) o.push_back(value[l]);
    out[flatIndex(outShape, o)] += p;
  }
  return out;
}

TEST(ContractionOps, EinsumMatchesNaiveLoopNestOnRandomEquations) {
  for (int iter = 0; iter < 150; ++iter) {
    DType t = randomDType(false);
    EinsumCase c = randomEinsumCase(t);
    // Integer sums widen to i64 on some evaluation paths, and a later
    // contraction with an i32 operand then fails as in PyTorch (see
    // EinsumDTypesFollowPyTorch); i64 and float inputs never fail.
    std::string error = userErrorOf([&] { einsumTensors(c.equation, c.operands); });
    if (t == DType::i32 && !error.empty()) {
      EXPECT_TRUE(error == "expected scalar type Long but found Int" ||
                  error == "expected scalar type Int but found Long")
          << error;
      continue;
    }
    ASSERT_EQ(error, "") << c.equation;
    Tensor out = einsumTensors(c.equation, c.operands);
    if (isFloating(t))
      EXPECT_EQ(out.dtype(), t);
    else
      EXPECT_TRUE(out.dtype() == t || out.dtype() == DType::i64) << c.equation;
    Shape expectedShape;
    for (char l : c.output) expectedShape.push_back(c.sizes.at(l));
    ASSERT_EQ(out.sizes(), expectedShape) << c.equation;
    std::vector<double> expected = naiveEinsum(c);
    for (int64_t i = 0; i < out.numel(); ++i)
      EXPECT_TRUE(close(out.getDouble(i), expected[i], t == DType::f32 ? 1e-5 : 1e-12, 1e-5))
          << c.equation << " element " << i << ": " << out.getDouble(i) << " vs " << expected[i];
  }
}

TEST(ContractionOps, EinsumEllipsisBroadcastsLikeMatmul) {
  Tensor a = randomTensor({5, 1, 2, 3}, DType::f64), b = randomTensor({4, 3, 6}, DType::f64);
  Tensor viaEinsum = einsumTensors("...ij,...jk->...ik", {a, b});
  Tensor viaMatmul = matmulTensors(a, b);
  ASSERT_EQ(viaEinsum.sizes(), Shape({5, 4, 2, 6}));
  for (int64_t i = 0; i < viaEinsum.numel(); ++i)
    EXPECT_NEAR(viaEinsum.getDouble(i), viaMatmul.getDouble(i), 1e-12);
  // Implicit output: ellipsis dims first, then the letters used once.
  Tensor x = randomTensor({3, 2, 4}, DType::f32);
  Tensor t = einsumTensors("i...j", {x});
  ASSERT_EQ(t.sizes(), Shape({2, 3, 4}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t e = 0; e < 2; ++e)
      for (int64_t j = 0; j < 4; ++j)
        EXPECT_EQ(t.getDouble((e * 3 + i) * 4 + j), x.getDouble((i * 2 + e) * 4 + j));
}

TEST(ContractionOps, EinsumResultIsANewTensor) {
  Tensor x = randomTensor({3, 4}, DType::f32);
  Tensor y = einsumTensors("ij", {x});
  EXPECT_FALSE(y.sameStorage(x));
  y.setDouble(0, 7.0);
  EXPECT_NE(x.getDouble(0), 7.0);
}

TEST(ContractionOps, EinsumMatmulShapedProblemIsFast) {
  // 64x64x64: a single batched product, checked against the plain kernel.
  Tensor a = randomTensor({64, 64}, DType::f32), b = randomTensor({64, 64}, DType::f32);
  Tensor viaEinsum = einsumTensors("ik,kj->ij", {a, b});
  Tensor viaMm = mmTensors(a, b);
  for (int64_t i = 0; i < viaMm.numel(); ++i)
    EXPECT_NEAR(viaEinsum.getDouble(i), viaMm.getDouble(i), 1e-4);
}

// Result dtypes as PyTorch's left-to-right evaluation gives them (sums of
// integers and bools widen to i64, products promote, contractions need one
// dtype and no bool), with values checked against the float computation.
TEST(ContractionOps, EinsumDTypesFollowPyTorch) {
  struct Case {
    std::string eq;
    std::vector<Shape> shapes;
    std::vector<DType> dtypes;
    DType expected;
  };
  const DType i32 = DType::i32, b8 = DType::b8, f32 = DType::f32, f64 = DType::f64,
              i64 = DType::i64;
  const Case cases[] = {
      {"ij->", {{2, 3}}, {i32}, i64},
      {"ij->i", {{2, 3}}, {i32}, i64},
      {"ij,jk->ik", {{2, 3}, {3, 4}}, {i32, i32}, i32},
      {"ij,ij->", {{2, 3}, {2, 3}}, {i32, i32}, i32},
      {"ij,k->", {{2, 3}, {3}}, {i32, i32}, i64},
      {"ij,k->k", {{2, 3}, {3}}, {i32, i32}, i64},
      {"ij,jk->ik", {{2, 1}, {3, 2}}, {i32, i32}, i64},
      {"bi,bi->b", {{1, 3}, {2, 3}}, {i32, i32}, i32},
      {"bij,jk->bik", {{2, 3, 4}, {4, 5}}, {i32, i32}, i32},
      {"ij->", {{2, 3}}, {b8}, i64},
      {"ii->i", {{3, 3}}, {b8}, b8},
      {"ij->ji", {{2, 3}}, {b8}, b8},
      {"ij,ij->ij", {{2, 3}, {2, 3}}, {b8, b8}, b8},
      {"ij,k->ijk", {{2, 3}, {3}}, {b8, b8}, b8},
      {"i,j->ij", {{3}, {4}}, {f32, f64}, f64},
      {"i,i->i", {{3}, {3}}, {f32, f64}, f64},
  };
  for (const Case& c : cases) {
    std::vector<Tensor> ops, asFloat;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      ops.push_back(randomTensor(c.shapes[i], c.dtypes[i], -3, 3));
      asFloat.push_back(ops.back().to(DType::f64));
    }
    Tensor out = einsumTensors(c.eq, ops);
    EXPECT_EQ(out.dtype(), c.expected) << c.eq;
    Tensor ref = einsumTensors(c.eq, asFloat);
    ASSERT_EQ(out.sizes(), ref.sizes()) << c.eq;
    for (int64_t i = 0; i < out.numel(); ++i)
      EXPECT_NEAR(out.getDouble(i), ref.getDouble(i), 1e-6) << c.eq;
  }
  Tensor b = randomTensor({2, 3}, DType::b8);
  EXPECT_EQ(userErrorOf([&] {
              einsumTensors("ij,kj->ik", {b, b});
            }),
            "\"bmm\" not implemented for 'Bool'");
  EXPECT_EQ(userErrorOf([&] {
              einsumTensors("ij,jk->ik", {randomTensor({2, 3}, f32), randomTensor({3, 4}, f64)});
            }),
            "expected scalar type Float but found Double");
  EXPECT_EQ(
      userErrorOf([&] {
        einsumTensors("bij,jk->ik", {randomTensor({2, 3, 4}, i32), randomTensor({4, 5}, i32)});
      }),
      "expected scalar type Long but found Int");
}

TEST(ContractionOps, EinsumErrors) {
  Tensor a = randomTensor({2, 3}, DType::f32);
  auto err = [](const std::string& eq, std::vector<Tensor> ops) {
    return userErrorOf([&] { einsumTensors(eq, ops); });
  };
  EXPECT_EQ(err("ij,jk->ik", {a}),
            "einsum(): fewer operands were provided than specified in the equation");
  EXPECT_EQ(err("ij", {a, a}),
            "einsum(): more operands were provided than specified in the equation");
  EXPECT_EQ(err("ij->ik", {a}),
            "einsum(): output subscript k does not appear in the equation for any input operand");
  EXPECT_EQ(err("ij->ii", {a}),
            "einsum(): output subscript i appears more than once in the output");
  EXPECT_EQ(err("ijk->ij", {a}),
            "einsum(): the number of subscripts in the equation (3) does not match the number of "
            "dimensions (2) for operand 0 and no ellipsis was given");
  EXPECT_EQ(err("ii", {randomTensor({3, 4}, DType::f32)}),
            "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 4 != 3");
  EXPECT_EQ(err("ij,jk->ik", {a, randomTensor({4, 4}, DType::f32)}),
            "einsum(): subscript j has size 4 for operand 1 which does not broadcast with "
            "previously seen size 3");
  EXPECT_EQ(err("i1", {a}),
            "einsum(): invalid subscript given at index 1 in the equation string, subscripts must "
            "be in [a-zA-Z]");
  EXPECT_EQ(err("i..j", {a}), "einsum(): found '.' for operand 0 that is not part of any ellipsis");
  EXPECT_EQ(err("ij,ij->", {a, randomTensor({2, 3}, DType::f64)}),
            "expected scalar type Float but found Double");
}

}  // namespace
}  // namespace stitch
