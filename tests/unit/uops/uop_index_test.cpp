// Index simplification in UOpGraph::add: each rule, and random index
// expressions whose simplified uops must compute the same values.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "uop_eval.h"
#include "uop_test_util.h"
#include "uops/uop.h"

namespace stitch {
namespace {

using namespace testing;

int bin(UOpGraph& g, AluOp op, int a, int b) { return g.alu(op, DType::i64, {a, b}); }
int binc(UOpGraph& g, AluOp op, int a, int64_t c) { return g.alu(op, DType::i64, {a, g.constInt(c)}); }

bool isAluOp(const UOpGraph& g, int id, AluOp op) {
  return g.at(id).kind == UOpKind::Alu && g.at(id).alu == op;
}

// Whether any DIV / MOD uop is among id and what it depends on.
bool usesDivMod(const UOpGraph& g, int id) {
  const UOp& u = g.at(id);
  if (u.kind == UOpKind::Alu && (u.alu == AluOp::Div || u.alu == AluOp::Mod)) return true;
  for (int s : u.src)
    if (usesDivMod(g, s)) return true;
  return false;
}

TEST(UOpIndex, RangesOfLoopsAndSpecials) {
  UOpGraph g;
  int64_t n = randInt(2, 100);
  UOp sp = makeUOp(UOpKind::Special, DType::i64);
  sp.name = "gidx0";
  sp.ival = n;
  int s = g.add(sp, false);
  EXPECT_EQ(g.at(s).vmin, 0);
  EXPECT_EQ(g.at(s).vmax, n - 1);
  int64_t lo = randInt(0, 10), hi = randInt(20, 50);
  int l = loop(g, lo, hi);
  EXPECT_EQ(g.at(l).vmin, lo);
  EXPECT_EQ(g.at(l).vmax, hi - 1);
  int e = binc(g, AluOp::Add, binc(g, AluOp::Mul, l, 3), 7);
  EXPECT_EQ(g.at(e).vmin, lo * 3 + 7);
  EXPECT_EQ(g.at(e).vmax, (hi - 1) * 3 + 7);
  int d = binc(g, AluOp::Div, e, 4);
  EXPECT_EQ(g.at(d).vmin, (lo * 3 + 7) / 4);
  EXPECT_EQ(g.at(d).vmax, ((hi - 1) * 3 + 7) / 4);
  int m = binc(g, AluOp::Mod, s, 5);
  EXPECT_EQ(g.at(m).vmin, 0);
  EXPECT_EQ(g.at(m).vmax, std::min<int64_t>(4, n - 1));
}

TEST(UOpIndex, EqualityOfSingleValuesFolds) {
  // A loop piece of one iteration: its variable is that value.
  UOpGraph g;
  int64_t c = randInt(0, 50);
  auto cmp = [&](AluOp op, int a, int64_t b) { return g.at(g.alu(op, DType::b8, {a, g.constInt(b)})); };
  int x = loop(g, c, c + 1);
  EXPECT_EQ(cmp(AluOp::CmpEQ, x, c).ival, 1);
  EXPECT_EQ(cmp(AluOp::CmpNE, x, c).ival, 0);
  EXPECT_EQ(cmp(AluOp::CmpNE, x, c + 1).ival, 1);
  int y = loop(g, c, c + 2);  // two values: undecided
  EXPECT_NE(cmp(AluOp::CmpEQ, y, c).kind, UOpKind::Const);
}

TEST(UOpIndex, ModAndDivOfSmallValues) {
  UOpGraph g;
  int64_t n = randInt(3, 50);
  int l = loop(g, 0, n);
  EXPECT_EQ(binc(g, AluOp::Mod, l, n), l);
  EXPECT_EQ(binc(g, AluOp::Mod, l, n + randInt(0, 9)), l);
  int z = binc(g, AluOp::Div, l, n);
  ASSERT_EQ(g.at(z).kind, UOpKind::Const);
  EXPECT_EQ(g.at(z).ival, 0);
  // Not when the value may reach the divisor.
  EXPECT_TRUE(isAluOp(g, binc(g, AluOp::Mod, l, n - 1), AluOp::Mod));
  EXPECT_TRUE(isAluOp(g, binc(g, AluOp::Div, l, n - 1), AluOp::Div));
  // Python rounding on a non-negative value becomes C's.
  EXPECT_TRUE(isAluOp(g, binc(g, AluOp::FloorDiv, l, 2), AluOp::Div));
}

TEST(UOpIndex, MultiplesAndNestedDivisions) {
  UOpGraph g;
  int l = loop(g, 0, randInt(16, 1000));
  int64_t c = randInt(2, 9);
  int xc = binc(g, AluOp::Mul, l, c);
  EXPECT_EQ(binc(g, AluOp::Div, xc, c), l);
  int zero = binc(g, AluOp::Mod, xc, c);
  ASSERT_EQ(g.at(zero).kind, UOpKind::Const);
  EXPECT_EQ(g.at(zero).ival, 0);
  // (x / a) / b -> x / (a * b)
  int nested = binc(g, AluOp::Div, binc(g, AluOp::Div, l, 3), 5);
  ASSERT_TRUE(isAluOp(g, nested, AluOp::Div));
  EXPECT_EQ(g.at(nested).src[0], l);
  EXPECT_EQ(g.at(g.at(nested).src[1]).ival, 15);
  // (x * c1) * c2 -> x * (c1 * c2)
  int mm = binc(g, AluOp::Mul, binc(g, AluOp::Mul, l, 3), 4);
  EXPECT_EQ(g.at(mm).src[0], l);
  EXPECT_EQ(g.at(g.at(mm).src[1]).ival, 12);
}

TEST(UOpIndex, SumOfMultipleAndSmallRest) {
  UOpGraph g;
  int64_t c = randInt(2, 16);
  int a = loop(g, 0, randInt(2, 100));
  int b = loop(g, 0, c);
  int sum = bin(g, AluOp::Add, binc(g, AluOp::Mul, a, c), b);
  EXPECT_EQ(binc(g, AluOp::Div, sum, c), a);  // (a*c + b) / c -> a
  EXPECT_EQ(binc(g, AluOp::Mod, sum, c), b);  // (a*c + b) % c -> b
  // The same with the operands the other way round.
  int sum2 = bin(g, AluOp::Add, b, binc(g, AluOp::Mul, a, c));
  EXPECT_EQ(sum2, sum);
}

TEST(UOpIndex, DivModPairsRecombine) {
  UOpGraph g;
  int64_t c = randInt(2, 30), k = randInt(2, 7);
  int x = loop(g, 0, c * randInt(2, 30));
  int q = binc(g, AluOp::Div, x, c), r = binc(g, AluOp::Mod, x, c);
  // (x / c) * c + x % c -> x
  EXPECT_EQ(bin(g, AluOp::Add, binc(g, AluOp::Mul, q, c), r), x);
  EXPECT_EQ(bin(g, AluOp::Add, r, binc(g, AluOp::Mul, q, c)), x);
  // k*(x/c)*c + k*(x%c) -> k*x
  int kx = bin(g, AluOp::Add, binc(g, AluOp::Mul, binc(g, AluOp::Mul, q, c), k), binc(g, AluOp::Mul, r, k));
  ASSERT_TRUE(isAluOp(g, kx, AluOp::Mul));
  EXPECT_EQ(g.at(kx).src[0], x);
  EXPECT_EQ(g.at(g.at(kx).src[1]).ival, k);
  // Three dims merged into one loop: i0*s1*s2 + i1*s2 + i2 -> the loop.
  int64_t s0 = randInt(2, 9), s1 = randInt(2, 9), s2 = randInt(2, 9);
  int l = loop(g, 0, s0 * s1 * s2);
  int i0 = binc(g, AluOp::Mod, binc(g, AluOp::Div, l, s1 * s2), s0);
  int i1 = binc(g, AluOp::Mod, binc(g, AluOp::Div, l, s2), s1);
  int i2 = binc(g, AluOp::Mod, binc(g, AluOp::Div, l, 1), s2);
  EXPECT_FALSE(isAluOp(g, i0, AluOp::Mod));  // i0 < s0 already
  int flat = bin(g, AluOp::Add, bin(g, AluOp::Add, binc(g, AluOp::Mul, i0, s1 * s2), binc(g, AluOp::Mul, i1, s2)), i2);
  EXPECT_EQ(flat, l);
  // A slice x[:, 1:] of a contiguous [n, s1+1, s2] read over merged dims
  // (1, 2): ((l / s2) + 1) * s2 + l % s2 -> l + s2 once the product is
  // distributed.
  int l2 = loop(g, 0, s1 * s2);
  int row = binc(g, AluOp::Mul, binc(g, AluOp::Add, binc(g, AluOp::Div, l2, s2), 1), s2);
  int sliced = bin(g, AluOp::Add, row, binc(g, AluOp::Mod, l2, s2));
  ASSERT_TRUE(isAluOp(g, sliced, AluOp::Add)) << g.str();
  EXPECT_EQ(g.at(sliced).src[0], l2);
  EXPECT_EQ(g.at(g.at(sliced).src[1]).ival, s2);
  EXPECT_FALSE(usesDivMod(g, sliced));
  // A reshape read back through a coarser split: f = i*s + j with j < s,
  // c = s*m: f / c -> i / m and f % c -> (i % m)*s + j.
  int64_t m = randInt(2, 5);
  int i = loop(g, 0, randInt(6, 20)), j = loop(g, 0, s2);
  int f = bin(g, AluOp::Add, binc(g, AluOp::Mul, i, s2), j);
  int fd = binc(g, AluOp::Div, f, s2 * m);
  ASSERT_TRUE(isAluOp(g, fd, AluOp::Div)) << g.str();
  EXPECT_EQ(g.at(fd).src[0], i);
  EXPECT_EQ(g.at(g.at(fd).src[1]).ival, m);
  // (f / (s*m)) * (s*m) + f % (s*m) -> f
  EXPECT_EQ(bin(g, AluOp::Add, binc(g, AluOp::Mul, fd, s2 * m), binc(g, AluOp::Mod, f, s2 * m)), f) << g.str();
  // Both dims flipped, merged: (s1-1 - l/s2)*s2 + (s2-1 - l%s2) -> -l + (s1*s2 - 1).
  int l3 = loop(g, 0, s1 * s2);
  int rowf = bin(g, AluOp::Sub, g.constInt(s1 - 1), binc(g, AluOp::Div, l3, s2));
  int colf = bin(g, AluOp::Sub, g.constInt(s2 - 1), binc(g, AluOp::Mod, l3, s2));
  int flipped = bin(g, AluOp::Add, binc(g, AluOp::Mul, rowf, s2), colf);
  EXPECT_FALSE(usesDivMod(g, flipped)) << g.str();
  ASSERT_TRUE(isAluOp(g, flipped, AluOp::Add));
  EXPECT_EQ(g.at(g.at(flipped).src[1]).ival, s1 * s2 - 1);
  // Like terms: x + x -> x*2, x - x -> 0.
  int twice = bin(g, AluOp::Add, l3, l3);
  ASSERT_TRUE(isAluOp(g, twice, AluOp::Mul));
  EXPECT_EQ(g.at(g.at(twice).src[1]).ival, 2);
  int none = bin(g, AluOp::Add, binc(g, AluOp::Mul, l3, 3), binc(g, AluOp::Mul, l3, -3));
  EXPECT_EQ(g.at(none).kind, UOpKind::Const);
  // The pair does not merge when x may be negative (C division truncates).
  UOp var = makeUOp(UOpKind::DefineVar, DType::i64);
  var.name = "p0";
  int p = g.add(var, false);
  int neg = bin(g, AluOp::Add, binc(g, AluOp::Mul, binc(g, AluOp::Div, p, c), c), binc(g, AluOp::Mod, p, c));
  EXPECT_NE(neg, p);
}

// Random affine-with-div/mod index expressions over loop variables: the
// simplified uops compute what the expression computes, for every point.
struct Expr {
  std::function<int64_t(const std::vector<int64_t>&)> eval;
  int uop;
};

TEST(UOpIndex, RandomExpressionsKeepTheirValue) {
  for (int trial = 0; trial < 40; ++trial) {
    UOpGraph g;
    std::vector<int64_t> ext = {randInt(1, 6), randInt(1, 6), randInt(1, 6)};
    std::vector<int> loops;
    for (int64_t e : ext) loops.push_back(loop(g, 0, e));
    std::vector<Expr> pool;
    for (size_t k = 0; k < loops.size(); ++k)
      pool.push_back({[k](const std::vector<int64_t>& v) { return v[k]; }, loops[k]});
    for (int step = 0; step < 12; ++step) {
      const Expr a = pool[randInt(0, pool.size() - 1)];
      const Expr b = pool[randInt(0, pool.size() - 1)];
      int64_t c = randInt(1, 7);
      switch (randInt(0, 6)) {
        case 0:
          pool.push_back({[a, b](const auto& v) { return a.eval(v) + b.eval(v); }, bin(g, AluOp::Add, a.uop, b.uop)});
          break;
        case 1:
          pool.push_back({[a, c](const auto& v) { return a.eval(v) * c; }, binc(g, AluOp::Mul, a.uop, c)});
          break;
        case 2:
          pool.push_back({[a, c](const auto& v) { return a.eval(v) / c; }, binc(g, AluOp::Div, a.uop, c)});
          break;
        case 3:
          pool.push_back({[a, c](const auto& v) { return a.eval(v) % c; }, binc(g, AluOp::Mod, a.uop, c)});
          break;
        case 4: {
          int64_t k = randInt(-7, 7);  // may make the value negative
          pool.push_back({[a, k](const auto& v) { return a.eval(v) + k; }, binc(g, AluOp::Add, a.uop, k)});
          break;
        }
        case 5: {
          int64_t k = randInt(-7, 7);
          pool.push_back({[a, k](const auto& v) { return a.eval(v) - k; }, binc(g, AluOp::Sub, a.uop, k)});
          break;
        }
        case 6:
          pool.push_back({[a, b](const auto& v) { return a.eval(v) - b.eval(v); }, bin(g, AluOp::Sub, a.uop, b.uop)});
          break;
          break;
      }
    }
    // Evaluate every pool uop at every loop point by storing it.
    std::vector<int64_t> v(3);
    for (v[0] = 0; v[0] < ext[0]; ++v[0])
      for (v[1] = 0; v[1] < ext[1]; ++v[1])
        for (v[2] = 0; v[2] < ext[2]; ++v[2]) {
          std::vector<testing::EvalValue> val(g.size());
          for (int i = 0; i < g.size(); ++i) {
            const UOp& u = g.at(i);
            if (u.kind == UOpKind::Const) val[i].i = u.ival;
            else if (u.kind == UOpKind::Loop) val[i].i = v[std::find(loops.begin(), loops.end(), i) - loops.begin()];
            else if (u.kind == UOpKind::Alu) val[i] = testing::evalAlu(u, g.uops(), val);
          }
          for (const Expr& e : pool) {
            ASSERT_EQ(val[e.uop].i, e.eval(v)) << g.str();
            ASSERT_GE(val[e.uop].i, g.at(e.uop).vmin);
            ASSERT_LE(val[e.uop].i, g.at(e.uop).vmax);
          }
        }
  }
}

}  // namespace
}  // namespace stitch
