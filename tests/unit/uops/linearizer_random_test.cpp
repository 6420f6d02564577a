// linearize() on random kernels: random shapes, loop groupings, block
// extents, broadcasts and reductions; the uops (run by uop_eval.h) must
// produce what a direct loop over the elements computes, and the innermost
// loop must be division-free whenever its dims are contiguous in every
// access.
#include <gtest/gtest.h>

#include <random>

#include "../common/kernel_spec.h"
#include "uop_eval.h"
#include "uop_test_util.h"
#include "uops/linearizer.h"

namespace stitch {
namespace {

using namespace testing;

std::vector<double> randomInts(size_t n) {
  std::vector<double> v(n);
  for (double& x : v) x = (double)randInt(-100, 100);
  return v;
}

// The kernels of the reduction tests write out[A, B] (i64) from one input x
// (i64, shape xs): their buffers, and a run on random x (out, then x).
void outOfX(KernelSpec& kb, const std::vector<int64_t>& xs) {
  kb.output(DType::i64, kb.tg().iterShape());
  kb.input(DType::i64, xs);
}
std::vector<std::vector<double>> runOnRandomX(const KernelUOps& k, int64_t outSize, const std::vector<int64_t>& xs) {
  return evalUOps(k.uops, {std::vector<double>(outSize, 12345), randomInts(numel(xs))});
}

// The reference for i64 reductions: start from identity(op), fold each
// value with combine (products wrap, as in the kernels).
int64_t identity(ReduceOp op) {
  return op == ReduceOp::Sum ? 0 : op == ReduceOp::Prod ? 1 : op == ReduceOp::Max ? INT64_MIN : INT64_MAX;
}
int64_t combine(ReduceOp op, int64_t acc, int64_t v) {
  switch (op) {
    case ReduceOp::Sum: return acc + v;
    case ReduceOp::Prod: return (int64_t)((uint64_t)acc * (uint64_t)v);
    case ReduceOp::Max: return std::max(acc, v);
    case ReduceOp::Min: return std::min(acc, v);
  }
  return acc;
}

TEST(LinearizerRandom, BroadcastElementwise) {
  for (int trial = 0; trial < 60; ++trial) {
    int rank = (int)randInt(1, 4);
    std::vector<int64_t> shape(rank), bshape(rank);
    for (int d = 0; d < rank; ++d) {
      shape[d] = randInt(1, 5);
      bshape[d] = randInt(0, 1) ? shape[d] : 1;
    }
    KernelSpec kb(shape);
    kb.output(DType::i64, shape);
    kb.input(DType::i64, shape);
    kb.input(DType::i64, bshape);
    ThreadGraph& tg = kb.tg();
    auto iv = kb.iterVars();
    std::vector<int> bidx = iv;
    for (int d = 0; d < rank; ++d)
      if (bshape[d] == 1) bidx[d] = tg.constInt(0);
    int a = tg.load(0, DType::i64, tg.flatIndex(iv, shape));
    int b = tg.load(1, DType::i64, tg.flatIndex(bidx, bshape));
    tg.store(0, tg.alu(AluOp::Sub, DType::i64, {tg.alu(AluOp::Mul, DType::i64, {a, tg.constInt(3)}), b}));
    auto groups = randomGroups(rank);
    kb.randomBlockLoops(groups);
    KernelUOps k = linearize(kb.kernel);
    int64_t n = numel(shape), nb = numel(bshape);
    auto bufs = evalUOps(k.uops, {std::vector<double>(n, 12345), randomInts(n), randomInts(nb)});
    std::vector<int64_t> idx(rank, 0);
    for (int64_t flat = 0; flat < n; ++flat) {
      int64_t bflat = 0;
      for (int d = 0; d < rank; ++d) bflat = bflat * bshape[d] + (bshape[d] == 1 ? 0 : idx[d]);
      ASSERT_EQ(bufs[0][flat], bufs[1][flat] * 3 - bufs[2][bflat]) << k.uops.str();
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
    // The innermost loop is division-free when the broadcast operand is
    // contiguous (or constant) along all of its dims.
    // (A loop of one iteration other than the first is no LOOP uop.)
    size_t last = groups.size() - 1;
    while (last > 0 && kb.kernel.block.loops[last].extent == 1) --last;
    const auto& inner = groups[last];
    bool contiguous = true;
    for (int d : inner) contiguous &= bshape[d] == shape[d];
    bool constant = true;
    for (int d : inner) constant &= bshape[d] == 1;
    if (!(contiguous || constant)) continue;
    std::vector<int> loops = allOf(k.uops, UOpKind::Loop);
    if (loops.empty()) continue;
    ASSERT_TRUE(divisionFreeIn(k.uops, loops.back())) << shapeStr(shape) << shapeStr(bshape) << k.uops.str();
  }
}

TEST(LinearizerRandom, Reductions) {
  for (int trial = 0; trial < 60; ++trial) {
    // x[a, r1, b, r2] reduced over r1 and r2 -> out[a, b].
    int64_t A = randInt(1, 4), R1 = randInt(0, 4), B = randInt(1, 4), R2 = randInt(1, 4);
    std::vector<int64_t> xs = {A, R1, B, R2};
    KernelSpec kb({A, B});
    outOfX(kb, xs);
    ThreadGraph& tg = kb.tg();
    auto iv = kb.iterVars();
    int r1 = tg.newReduceVar(R1), r2 = tg.newReduceVar(R2);
    int x = tg.load(0, DType::i64, tg.flatIndex({iv[0], r1, iv[1], r2}, xs));
    ReduceOp op = (ReduceOp)randInt(0, 3);
    int r = tg.reduce(op, DType::i64, x, {r1, r2});
    tg.store(0, r);
    kb.randomBlockLoops(randomGroups(2));  // one loop over [A, B], or one per dim
    KernelUOps k = linearize(kb.kernel);
    auto bufs = runOnRandomX(k, A * B, xs);
    for (int64_t i = 0; i < A; ++i)
      for (int64_t j = 0; j < B; ++j) {
        int64_t acc = identity(op);
        for (int64_t p = 0; p < R1; ++p)
          for (int64_t q = 0; q < R2; ++q) acc = combine(op, acc, (int64_t)bufs[1][((i * R1 + p) * B + j) * R2 + q]);
        ASSERT_EQ(bufs[0][i * B + j], (double)acc) << reduceOpName(op) << "\n" << k.uops.str();
      }
  }
}

TEST(LinearizerRandom, ColumnReductions) {
  // x[r1, r2, a, b] reduced over r1 and r2 -> out[a, b]: reduce variables
  // outside the output dims, as in a sum over dim 0.
  int reordered = 0;
  for (int trial = 0; trial < 60; ++trial) {
    int64_t R1 = randInt(1, 4), R2 = randInt(1, 5), A = randInt(1, 4), B = randInt(1, 6);
    std::vector<int64_t> xs = {R1, R2, A, B};
    KernelSpec kb({A, B});
    outOfX(kb, xs);
    ThreadGraph& tg = kb.tg();
    auto iv = kb.iterVars();
    int r1 = tg.newReduceVar(R1), r2 = tg.newReduceVar(R2);
    int x = tg.load(0, DType::i64, tg.flatIndex({r1, r2, iv[0], iv[1]}, xs));
    ReduceOp op = (ReduceOp)randInt(0, 3);
    // An epilogue after the reduction: out = reduce * 2 + a.
    int r = tg.reduce(op, DType::i64, x, {r1, r2});
    tg.store(0, tg.alu(AluOp::Add, DType::i64, {tg.alu(AluOp::Mul, DType::i64, {r, tg.constInt(2)}), iv[0]}));
    kb.randomBlockLoops(randomGroups(2));  // one loop over [A, B], or one per dim
    KernelUOps k = linearize(kb.kernel);
    if (!allOf(k.uops, UOpKind::DefineLocal).empty()) ++reordered;
    auto bufs = runOnRandomX(k, A * B, xs);
    for (int64_t i = 0; i < A; ++i)
      for (int64_t j = 0; j < B; ++j) {
        int64_t acc = identity(op);
        for (int64_t p = 0; p < R1; ++p)
          for (int64_t q = 0; q < R2; ++q) acc = combine(op, acc, (int64_t)bufs[1][((p * R2 + q) * A + i) * B + j]);
        int64_t want = (int64_t)((uint64_t)acc * 2 + (uint64_t)i);
        ASSERT_EQ(bufs[0][i * B + j], (double)want) << reduceOpName(op) << "\n" << k.uops.str();
      }
  }
  EXPECT_GT(reordered, 0);
}

TEST(LinearizerRandom, ReductionsOverSomeOutputDims) {
  // out[a, b, c] = x[a, b, c] + reduce_r y[r, dims the reduction keeps]:
  // the reduction depends on a random subset of the output dims.
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<int64_t> shape = {randInt(1, 4), randInt(1, 4), randInt(1, 4)};
    int64_t R = randInt(16, 20);  // enough work to move loops around
    std::vector<bool> keep = {randInt(0, 1) == 1, randInt(0, 1) == 1, randInt(0, 1) == 1};
    std::vector<int64_t> ys = {R};
    for (int d = 0; d < 3; ++d)
      if (keep[d]) ys.push_back(shape[d]);
    KernelSpec kb(shape);
    kb.output(DType::i64, shape);
    kb.input(DType::i64, shape);
    kb.input(DType::i64, ys);
    ThreadGraph& tg = kb.tg();
    auto iv = kb.iterVars();
    int r = tg.newReduceVar(R);
    std::vector<int> yidx = {r};
    for (int d = 0; d < 3; ++d)
      if (keep[d]) yidx.push_back(iv[d]);
    ReduceOp op = (ReduceOp)randInt(0, 3);
    int red = tg.reduce(op, DType::i64, tg.load(1, DType::i64, tg.flatIndex(yidx, ys)), {r});
    int x = tg.load(0, DType::i64, tg.flatIndex(iv, shape));
    tg.store(0, tg.alu(AluOp::Add, DType::i64, {x, red}));
    kb.randomBlockLoops(randomGroups(3));
    KernelUOps k = linearize(kb.kernel);
    int64_t n = numel(shape), ny = numel(ys);
    auto bufs = evalUOps(k.uops, {std::vector<double>(n, 12345), randomInts(n), randomInts(ny)});
    for (int64_t a = 0; a < shape[0]; ++a)
      for (int64_t b = 0; b < shape[1]; ++b)
        for (int64_t c = 0; c < shape[2]; ++c) {
          int64_t acc = identity(op);
          for (int64_t q = 0; q < R; ++q) {
            int64_t flat = q;
            int64_t idx[3] = {a, b, c};
            for (int d = 0; d < 3; ++d)
              if (keep[d]) flat = flat * shape[d] + idx[d];
            acc = combine(op, acc, (int64_t)bufs[2][flat]);
          }
          int64_t o = (a * shape[1] + b) * shape[2] + c;
          int64_t want = (int64_t)((uint64_t)acc + (uint64_t)(int64_t)bufs[1][o]);
          ASSERT_EQ(bufs[0][o], (double)want) << reduceOpName(op) << "\n" << k.uops.str();
        }
  }
}

TEST(LinearizerRandom, SequentialColumnReductions) {
  // m = max_r x[r, a, b]; s = sum_r (x[r, a, b] - m); out = s + 3*m: the
  // second reduction uses the first one's result (as var = mean of squared
  // deviations does).
  int reordered = 0;
  for (int trial = 0; trial < 60; ++trial) {
    int64_t R = randInt(2, 6), A = randInt(1, 4), B = randInt(2, 6);
    std::vector<int64_t> xs = {R, A, B};
    KernelSpec kb({A, B});
    outOfX(kb, xs);
    ThreadGraph& tg = kb.tg();
    auto iv = kb.iterVars();
    int r1 = tg.newReduceVar(R), r2 = tg.newReduceVar(R);
    int m = tg.reduce(ReduceOp::Max, DType::i64, tg.load(0, DType::i64, tg.flatIndex({r1, iv[0], iv[1]}, xs)), {r1});
    int d = tg.alu(AluOp::Sub, DType::i64, {tg.load(0, DType::i64, tg.flatIndex({r2, iv[0], iv[1]}, xs)), m});
    int sum = tg.reduce(ReduceOp::Sum, DType::i64, d, {r2});
    tg.store(0, tg.alu(AluOp::Add, DType::i64, {sum, tg.alu(AluOp::Mul, DType::i64, {m, tg.constInt(3)})}));
    kb.randomBlockLoops(randomGroups(2));  // one loop over [A, B], or one per dim
    KernelUOps k = linearize(kb.kernel);
    if (allOf(k.uops, UOpKind::DefineLocal).size() == 2) ++reordered;
    auto bufs = runOnRandomX(k, A * B, xs);
    for (int64_t i = 0; i < A; ++i)
      for (int64_t j = 0; j < B; ++j) {
        int64_t mx = INT64_MIN, sm = 0;
        for (int64_t q = 0; q < R; ++q) mx = std::max(mx, (int64_t)bufs[1][(q * A + i) * B + j]);
        for (int64_t q = 0; q < R; ++q) sm += (int64_t)bufs[1][(q * A + i) * B + j] - mx;
        ASSERT_EQ(bufs[0][i * B + j], (double)(sm + 3 * mx)) << k.uops.str();
      }
  }
  EXPECT_GT(reordered, 0);
}

}  // namespace
}  // namespace stitch
