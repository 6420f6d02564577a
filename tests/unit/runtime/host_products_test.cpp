// Few-row f32 products on the host (runtime/host_products.h): random
// shapes and layouts (a transposed right operand read along k, a plain one
// read along n, a strided left operand), compared with the interpreter under
// PyTorch's f32 tolerance and with the fixed summation order spelled out
// here; the shapes and dtypes the path declines; and a decode-style loop
// whose products have a loop-dependent shape, compiled against the
// interpreter.
#include <gtest/gtest.h>

#include <cmath>

#include "compiled_program.h"
#include "interp/matmul_ops.h"
#include "interp/tolerance.h"
#include "runtime/host_products.h"

namespace stitch {
namespace {

using namespace rtest;

// `shape` as a view of a tensor whose last two dims are swapped in memory.
Tensor transposedView(const Shape& shape) {
  Shape swapped = shape;
  std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
  Tensor base = uniformF32(swapped);
  Shape strides = base.strides();
  std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
  return base.asStrided(shape, strides, 0);
}

float element(const Tensor& t, const std::vector<int64_t>& index) {
  int64_t off = t.offset();
  for (size_t d = 0; d < index.size(); ++d) off += index[d] * t.stride((int64_t)d);
  return t.storage() ? reinterpret_cast<const float*>(t.storage()->data())[off] : 0.0f;
}

// The documented order, each term one fused multiply-add: along k, 16
// lanes (lane l: the terms k = l mod 16 in order) folded pairwise; along
// n, the terms in order.
float orderedTerm(const Tensor& a, const Tensor& b, std::vector<int64_t> batch, int64_t i, int64_t j, bool lanes) {
  const int64_t k = a.size(a.dim() - 1);
  auto term = [&](int64_t kk) {
    std::vector<int64_t> ai = batch, bi = batch;
    ai.push_back(i), ai.push_back(kk), bi.push_back(kk), bi.push_back(j);
    return std::pair<float, float>(element(a, ai), element(b, bi));
  };
  if (!lanes) {
    float acc = 0.0f;
    for (int64_t kk = 0; kk < k; ++kk) acc = std::fma(term(kk).first, term(kk).second, acc);
    return acc;
  }
  float lane[16] = {};
  for (int64_t kk = 0; kk < k; ++kk) lane[kk % 16] = std::fma(term(kk).first, term(kk).second, lane[kk % 16]);
  for (int h = 8; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) lane[l] += lane[l + h];
  return lane[0];
}

TEST(HostProducts, FewRowProductsMatchTheInterpreterInTheirOrder) {
  for (int trial = 0; trial < 40; ++trial) {
    Shape batch;
    for (int64_t d = randIn(0, 2); d > 0; --d) batch.push_back(randIn(1, 3));
    const int64_t m = randIn(1, kFewRows), k = randIn(1, 80), n = randIn(1, 40);
    const bool alongK = trial % 2 == 0;  // b a transposed view (q @ k^T), else dense (p @ v)
    Shape as = batch, bs = batch;
    as.push_back(m), as.push_back(k), bs.push_back(k), bs.push_back(n);
    Tensor a = trial % 3 == 0 ? transposedView(as) : uniformF32(as);
    Tensor b = alongK ? transposedView(bs) : uniformF32(bs);
    SCOPED_TRACE("trial " + std::to_string(trial) + " m " + std::to_string(m) + " k " + std::to_string(k) + " n " +
                 std::to_string(n) + (alongK ? " along k" : " along n"));
    std::optional<Tensor> got = fewRowProduct(a, b);
    ASSERT_TRUE(got.has_value());
    Tensor want = matmulTensors(a, b);
    ASSERT_EQ(got->sizes(), want.sizes());
    TensorComparison cmp = compareTensorValues(*got, want, pytorchTolerance(DType::f32));
    EXPECT_TRUE(cmp.close) << "element " << cmp.firstMismatch << ": " << got->getDouble(cmp.firstMismatch)
                           << " vs " << want.getDouble(cmp.firstMismatch);
    // The lanes apply when b is contiguous along k (a dense [k, 1] too).
    const bool lanes = b.stride(b.dim() - 2) == 1 || k == 1;
    int64_t batches = numelOf(batch);
    for (int64_t bi = 0; bi < batches; ++bi) {
      std::vector<int64_t> index(batch.size());
      for (int64_t rest = bi, d = (int64_t)batch.size(); d-- > 0;) {
        index[d] = rest % batch[d];
        rest /= batch[d];
      }
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int64_t flat = (bi * m + i) * n + j;
          ASSERT_EQ((float)got->getDouble(flat), orderedTerm(a, b, index, i, j, lanes))
              << "batch " << bi << " row " << i << " col " << j;
        }
    }
  }
}

TEST(HostProducts, OtherShapesAndDtypesAreLeftToTheInterpreter) {
  EXPECT_FALSE(fewRowProduct(uniformF32({kFewRows + 1, 8}), uniformF32({8, 4})).has_value()) << "too many rows";
  EXPECT_FALSE(fewRowProduct(uniformF32({1, 2, 8}), uniformF32({3, 8, 4})).has_value()) << "broadcast batch";
  EXPECT_FALSE(fewRowProduct(uniformF32({2, 8}), uniformF32({8})).has_value()) << "1-d operand";
  EXPECT_FALSE(fewRowProduct(uniformF32({2, 8}).to(DType::f64), uniformF32({8, 4}).to(DType::f64)).has_value());
  // b strided along both k and n: a column of a wider tensor's every other row.
  Tensor wide = uniformF32({16, 8});
  EXPECT_FALSE(fewRowProduct(uniformF32({2, 8}), wide.asStrided({8, 4}, {16, 2}, 0)).has_value());
}

// The products' shapes depend on the loop variable, so they run on the host
// (the scores are used twice: no attention kernel takes the chain).
TEST(HostProducts, DecodeLoopAgreesWithTheInterpreter) {
  useScratchCache();
  Compiled c = compileProgram(R"PY(
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, n: int) -> torch.Tensor:
    outs: List[torch.Tensor] = []
    for t in range(n):
        keys = k[:, :, :t + 1]
        scores = (q @ keys.transpose(-1, -2)) * 0.25
        outs.append(torch.softmax(scores, dim=-1) @ v[:, :, :t + 1] + scores.mean())
    return torch.stack(outs)
)PY", "f", {"q=f32[2,3,1,16]", "k=f32[2,3,12,16]", "v=f32[2,3,12,16]", "n=12"});
  IValueList in{IValue(randomTensor({2, 3, 1, 16}, DType::f32)), IValue(randomTensor({2, 3, 12, 16}, DType::f32)),
                IValue(randomTensor({2, 3, 12, 16}, DType::f32)), IValue((int64_t)12)};
  expectAgreesWithInterpreter(c, in, 1e-5);
}

}  // namespace
}  // namespace stitch
