// The attention kernel (runtime/attention_kernel.h) against the chain it
// replaces, run op by op by the interpreter, under PyTorch's f32 tolerance:
// random shapes around the chunk and lane boundaries, blocks of rows and
// single rows, head dims of 64 (their own code) and others, keys and values
// read through the strides of a larger cache; the same bits from 1 and 2
// threads; NaN and infinite scores as PyTorch's softmax has them; the
// operands it leaves to the interpreter; and compiled programs (GQA decode,
// a decode loop) against the interpreter.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiled_program.h"
#include "interp/along_dim_ops.h"
#include "interp/elementwise_ops.h"
#include "interp/matmul_ops.h"
#include "interp/tolerance.h"
#include "interp/view_ops.h"
#include "runtime/attention_kernel.h"

namespace stitch {
namespace {

using namespace rtest;


// The first `keys` positions of a cache with room for more: keys and values
// as a decode step reads them (row stride dim, batch stride positions * dim).
Tensor cachePrefix(Shape shape, int64_t room) {
  const int64_t keys = shape[shape.size() - 2];
  shape[shape.size() - 2] = keys + room;
  return views::slice(uniformF32(shape), (int64_t)shape.size() - 2, 0, keys, 1);
}

Tensor reference(const Tensor& q, const Tensor& k, const Tensor& v, double scale) {
  Tensor scores = matmulTensors(q, views::transpose(k, -2, -1));
  Tensor scaled = binaryKernel("mul", {IValue(scores), IValue(scale)}, false).at(0).toTensor();
  return matmulTensors(softmaxAlongDim(scaled, -1, std::nullopt, false), v);
}

Tensor attend(const Tensor& q, const Tensor& k, const Tensor& v, float scale, int threads) {
  EXPECT_TRUE(attentionApplies(q, k, v));
  Tensor out = Tensor::uninitialized(attentionOutputShape(q, v), DType::f32);
  attentionF32(q, k, v, scale, out, threads);
  return out;
}

void expectClose(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  TensorComparison cmp = compareTensorValues(got, want, pytorchTolerance(DType::f32));
  EXPECT_TRUE(cmp.close) << "element " << cmp.firstMismatch << ": " << got.getDouble(cmp.firstMismatch) << " vs "
                         << want.getDouble(cmp.firstMismatch);
}

TEST(AttentionKernel, MatchesTheChainAroundChunkAndLaneBoundaries) {
  const int64_t keyCounts[] = {1, 15, 16, 17, kAttentionChunk - 1, kAttentionChunk, kAttentionChunk + 1, 700};
  for (int trial = 0; trial < 32; ++trial) {
    Shape batch;
    for (int64_t d = randIn(0, 2); d > 0; --d) batch.push_back(randIn(1, 3));
    const int64_t rows = trial % 4 == 0 ? kAttentionRows : randIn(1, 2 * kAttentionRows + 1);
    const int64_t keys = keyCounts[trial % 8];
    const bool wide = trial % 2 == 0;  // head dims of 64: the specialized code
    const int64_t dim = wide ? 64 : randIn(1, 80), dimV = wide ? 64 : randIn(1, 80);
    const float scale = (float)std::uniform_real_distribution<double>(0.05, 2)(rng());
    Shape qs = batch, ks = batch, vs = batch;
    qs.push_back(rows), qs.push_back(dim), ks.push_back(keys), ks.push_back(dim);
    vs.push_back(keys), vs.push_back(dimV);
    Tensor q = uniformF32(qs, -2, 2);
    Tensor k = trial % 3 == 0 ? cachePrefix(ks, randIn(1, 9)) : uniformF32(ks, -2, 2);
    Tensor v = trial % 3 == 0 ? cachePrefix(vs, randIn(1, 9)) : uniformF32(vs);
    SCOPED_TRACE("trial " + std::to_string(trial) + " rows " + std::to_string(rows) + " keys " +
                 std::to_string(keys) + " dims " + std::to_string(dim) + "/" + std::to_string(dimV));
    expectClose(attend(q, k, v, scale, 1 + trial % 2), reference(q, k, v, scale));
  }
}

TEST(AttentionKernel, ThreadCountDoesNotChangeABit) {
  Tensor q = uniformF32({3, 6, 64}), k = uniformF32({3, 3 * kAttentionChunk + 5, 64}),
         v = uniformF32({3, 3 * kAttentionChunk + 5, 64});
  Tensor one = attend(q, k, v, 0.125f, 1), two = attend(q, k, v, 0.125f, 2);
  ASSERT_EQ(std::memcmp(one.rawData(), two.rawData(), (size_t)one.numel() * sizeof(float)), 0);
  expectClose(one, reference(q, k, v, 0.125));
}

// A NaN in a query row makes its scores, softmax and output NaN; an infinite
// score makes exp(inf - inf) NaN; very negative scores leave the others'
// weights (a row whose every score underflows to exp 0 relative to the max
// still has its max at weight 1). Other rows stay finite and right.
TEST(AttentionKernel, SpecialScoresFollowPyTorchsSoftmax) {
  for (int64_t keys : {int64_t(40), 3 * kAttentionChunk}) {
    Tensor q = uniformF32({1, kAttentionRows, 64}), k = uniformF32({1, keys, 64}), v = uniformF32({1, keys, 64});
    q.setDouble(1 * 64 + 3, NAN);                 // row 1: NaN
    q.setDouble(2 * 64 + 0, 1e30);                // row 2: scores of +-1e30 * k
    k.setDouble((keys - 1) * 64 + 5, INFINITY);   // every row's last score: +-inf or NaN
    Tensor got = attend(q, k, v, 0.125f, 2), want = reference(q, k, v, 0.125);
    SCOPED_TRACE("keys " + std::to_string(keys));
    expectClose(got, want);
    EXPECT_TRUE(std::isnan(got.getDouble(1 * 64)));
  }
}

TEST(AttentionKernel, OtherOperandsAreLeftToTheInterpreter) {
  Tensor q = uniformF32({2, 3, 8}), k = uniformF32({2, 5, 8}), v = uniformF32({2, 5, 4});
  EXPECT_TRUE(attentionApplies(q, k, v));
  EXPECT_FALSE(attentionApplies(q.to(DType::f64), k.to(DType::f64), v.to(DType::f64)));
  EXPECT_FALSE(attentionApplies(q, uniformF32({2, 5, 7}), v)) << "head dims differ";
  EXPECT_FALSE(attentionApplies(q, k, uniformF32({2, 6, 4}))) << "key counts differ";
  EXPECT_FALSE(attentionApplies(q, uniformF32({1, 5, 8}), uniformF32({1, 5, 4}))) << "broadcast batch";
  EXPECT_FALSE(attentionApplies(views::transpose(uniformF32({2, 8, 3}), 1, 2), k, v)) << "q strided along its dim";
}

// GQA decode compiles to the one attention kernel; a decode loop (keys of a
// loop-dependent length, read from the cache in place) to one loop kernel
// that runs it in every step.
TEST(AttentionKernel, CompiledProgramsAgreeWithTheInterpreter) {
  useScratchCache();
  Compiled gqa = compileProgram(R"PY(
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    scores = torch.matmul(q, k.transpose(1, 2)) / 8.0
    return torch.matmul(torch.softmax(scores, dim=-1), v)
)PY", "f", {"q=f32[4,4,64]", "k=f32[4,600,64]", "v=f32[4,600,64]"});
  IValueList in{IValue(randomTensor({4, 4, 64}, DType::f32)), IValue(randomTensor({4, 600, 64}, DType::f32)),
                IValue(randomTensor({4, 600, 64}, DType::f32))};
  RunStats stats = expectAgreesWithInterpreter(gqa, in, 1e-5);
  EXPECT_EQ(stats.kernelCalls, 1);
  Compiled decode = compileProgram(R"PY(
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, n: int) -> torch.Tensor:
    outs: List[torch.Tensor] = []
    for t in range(n):
        scores = (q @ k[:, :, :t + 1].transpose(-1, -2)) * 0.3
        outs.append(torch.softmax(scores, dim=-1) @ v[:, :, :t + 1])
    return torch.stack(outs)
)PY", "f", {"q=f32[2,3,1,16]", "k=f32[2,3,12,16]", "v=f32[2,3,12,16]", "n=12"});
  IValueList steps{IValue(randomTensor({2, 3, 1, 16}, DType::f32)), IValue(randomTensor({2, 3, 12, 16}, DType::f32)),
                   IValue(randomTensor({2, 3, 12, 16}, DType::f32)), IValue((int64_t)12)};
  stats = expectAgreesWithInterpreter(decode, steps, 1e-5);
  EXPECT_EQ(decode.exe->kernelGraph().loops.size(), 1u);
  EXPECT_EQ(stats.kernelCalls, 1);
}

}  // namespace
}  // namespace stitch
