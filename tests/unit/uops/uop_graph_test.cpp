// UOpGraph::add: constant folding, identities, CSE (and its scoping), str().
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "uop_test_util.h"
#include "uops/linearizer.h"
#include "uops/uop.h"

namespace stitch {
namespace {

using namespace testing;

int defineGlobal(UOpGraph& g, int slot, DType dtype) {
  UOp u = makeUOp(UOpKind::DefineGlobal, dtype);
  u.arg = slot;
  u.name = "data" + std::to_string(slot);
  return g.add(u, false);
}

int endLoop(UOpGraph& g, int l) { return g.add(makeUOp(UOpKind::EndLoop, DType::i64, {l}), false); }

int load(UOpGraph& g, int buf, int idx, DType dtype) {
  return g.add(makeUOp(UOpKind::Load, dtype, {buf, idx}));
}

TEST(UOpFold, IntegerArithmeticFoldsWithWrapping) {
  UOpGraph g;
  for (int trial = 0; trial < 50; ++trial) {
    int64_t a = randInt(INT64_MIN, INT64_MAX), b = randInt(INT64_MIN, INT64_MAX);
    int s = g.alu(AluOp::Add, DType::i64, {g.constInt(a), g.constInt(b)});
    ASSERT_EQ(g.at(s).kind, UOpKind::Const);
    EXPECT_EQ(g.at(s).ival, (int64_t)((uint64_t)a + (uint64_t)b));
    int m = g.alu(AluOp::Mul, DType::i64, {g.constInt(a), g.constInt(b)});
    ASSERT_EQ(g.at(m).kind, UOpKind::Const);
    EXPECT_EQ(g.at(m).ival, (int64_t)((uint64_t)a * (uint64_t)b));
    int32_t x = (int32_t)randInt(INT32_MIN, INT32_MAX), y = (int32_t)randInt(INT32_MIN, INT32_MAX);
    int d = g.alu(AluOp::Sub, DType::i32, {g.constInt(x, DType::i32), g.constInt(y, DType::i32)});
    ASSERT_EQ(g.at(d).kind, UOpKind::Const);
    EXPECT_EQ(g.at(d).ival, (int32_t)((uint32_t)x - (uint32_t)y));
    EXPECT_EQ(g.at(d).dtype, DType::i32);
  }
  int w = g.alu(AluOp::Add, DType::i32, {g.constInt(INT32_MAX, DType::i32), g.constInt(1, DType::i32)});
  EXPECT_EQ(g.at(w).ival, INT32_MIN);
}

TEST(UOpFold, PythonFloorDivisionAndRemainder) {
  UOpGraph g;
  for (int trial = 0; trial < 50; ++trial) {
    int64_t a = randInt(-1000, 1000), b = randInt(1, 30) * (randInt(0, 1) ? 1 : -1);
    int q = g.alu(AluOp::FloorDiv, DType::i64, {g.constInt(a), g.constInt(b)});
    int r = g.alu(AluOp::Remainder, DType::i64, {g.constInt(a), g.constInt(b)});
    ASSERT_EQ(g.at(q).kind, UOpKind::Const);
    ASSERT_EQ(g.at(r).kind, UOpKind::Const);
    EXPECT_EQ(g.at(q).ival, (int64_t)std::floor((double)a / (double)b)) << a << " // " << b;
    EXPECT_EQ(g.at(q).ival * b + g.at(r).ival, a);
    EXPECT_TRUE(g.at(r).ival == 0 || (g.at(r).ival < 0) == (b < 0));
    int c = g.alu(AluOp::Div, DType::i64, {g.constInt(a), g.constInt(b)});
    EXPECT_EQ(g.at(c).ival, a / b);
  }
  // Division by zero is left for the generated code (never folded).
  int z = g.alu(AluOp::FloorDiv, DType::i64, {g.constInt(7), g.constInt(0)});
  EXPECT_EQ(g.at(z).kind, UOpKind::Alu);
}

TEST(UOpFold, FloatsFoldInTheOpDtype) {
  UOpGraph g;
  std::uniform_real_distribution<float> dist(-100.f, 100.f);
  for (int trial = 0; trial < 50; ++trial) {
    float a = dist(rng()), b = dist(rng());
    int s = g.alu(AluOp::Add, DType::f32, {g.constFloat(a, DType::f32), g.constFloat(b, DType::f32)});
    ASSERT_EQ(g.at(s).kind, UOpKind::Const);
    EXPECT_EQ((float)g.at(s).fval, a + b);
    int d = g.alu(AluOp::Div, DType::f32, {g.constFloat(a, DType::f32), g.constFloat(b, DType::f32)});
    EXPECT_EQ((float)g.at(d).fval, a / b);
    int e = g.alu(AluOp::Mul, DType::f64, {g.constFloat(a, DType::f64), g.constFloat(b / 3.0, DType::f64)});
    EXPECT_EQ(g.at(e).fval, (double)a * (b / 3.0));
    int lt = g.alu(AluOp::CmpLT, DType::b8, {g.constFloat(a, DType::f32), g.constFloat(b, DType::f32)});
    ASSERT_EQ(g.at(lt).kind, UOpKind::Const);
    EXPECT_EQ(g.at(lt).ival, a < b ? 1 : 0);
  }
  double nan = std::numeric_limits<double>::quiet_NaN();
  int m = g.alu(AluOp::Max, DType::f64, {g.constFloat(1.0, DType::f64), g.constFloat(nan, DType::f64)});
  ASSERT_EQ(g.at(m).kind, UOpKind::Const);
  EXPECT_TRUE(std::isnan(g.at(m).fval));
  // Transcendentals stay for the generated code (its libm decides the bits).
  int x = g.alu(AluOp::Exp, DType::f32, {g.constFloat(0.5, DType::f32)});
  EXPECT_EQ(g.at(x).kind, UOpKind::Alu);
}

TEST(UOpFold, Casts) {
  UOpGraph g;
  int64_t big = (int64_t(1) << 53) + 1;
  UOp c = makeUOp(UOpKind::Cast, DType::f32, {g.constInt(big)});
  int f = g.add(c);
  ASSERT_EQ(g.at(f).kind, UOpKind::Const);
  EXPECT_EQ((float)g.at(f).fval, (float)big);
  int i = g.add(makeUOp(UOpKind::Cast, DType::i64, {g.constFloat(-2.75, DType::f64)}));
  ASSERT_EQ(g.at(i).kind, UOpKind::Const);
  EXPECT_EQ(g.at(i).ival, -2);
  int w = g.add(makeUOp(UOpKind::Cast, DType::i32, {g.constInt(int64_t(1) << 33 | 5)}));
  EXPECT_EQ(g.at(w).ival, 5);
  int b = g.add(makeUOp(UOpKind::Cast, DType::b8, {g.constFloat(std::nan(""), DType::f64)}));
  EXPECT_EQ(g.at(b).ival, 1);
  // Out of range float -> int is undefined in C: left alone.
  int u = g.add(makeUOp(UOpKind::Cast, DType::i32, {g.constFloat(1e20, DType::f64)}));
  EXPECT_EQ(g.at(u).kind, UOpKind::Cast);
}

TEST(UOpSimplify, Identities) {
  UOpGraph g;
  int buf = defineGlobal(g, 0, DType::i64);
  int fbuf = defineGlobal(g, 1, DType::f32);
  int x = load(g, buf, g.constInt(0), DType::i64);
  int f = load(g, fbuf, g.constInt(0), DType::f32);
  EXPECT_EQ(g.alu(AluOp::Add, DType::i64, {x, g.constInt(0)}), x);
  EXPECT_EQ(g.alu(AluOp::Add, DType::i64, {g.constInt(0), x}), x);
  EXPECT_EQ(g.alu(AluOp::Mul, DType::i64, {x, g.constInt(1)}), x);
  int zero = g.alu(AluOp::Mul, DType::i64, {x, g.constInt(0)});
  EXPECT_EQ(g.at(zero).kind, UOpKind::Const);
  EXPECT_EQ(g.at(zero).ival, 0);
  EXPECT_EQ(g.alu(AluOp::FloorDiv, DType::i64, {x, g.constInt(1)}), x);
  EXPECT_EQ(g.at(g.alu(AluOp::Remainder, DType::i64, {x, g.constInt(1)})).ival, 0);
  EXPECT_EQ(g.alu(AluOp::Sub, DType::i64, {x, g.constInt(0)}), x);
  EXPECT_EQ(g.alu(AluOp::Mul, DType::f32, {f, g.constFloat(1, DType::f32)}), f);
  // x + 0.0 is not x for floats (-0.0 + 0.0 == +0.0); x * 0 is not 0 (NaN, inf).
  EXPECT_NE(g.alu(AluOp::Add, DType::f32, {f, g.constFloat(0, DType::f32)}), f);
  EXPECT_EQ(g.at(g.alu(AluOp::Mul, DType::f32, {f, g.constFloat(0, DType::f32)})).kind, UOpKind::Alu);
  int y = load(g, fbuf, g.constInt(1), DType::f32);
  EXPECT_EQ(g.alu(AluOp::Where, DType::f32, {g.constInt(1, DType::b8), f, y}), f);
  EXPECT_EQ(g.alu(AluOp::Where, DType::f32, {g.constInt(0, DType::b8), f, y}), y);
  // (x + c1) + c2 -> x + (c1 + c2)
  int64_t c1 = randInt(-50, 50), c2 = randInt(-50, 50);
  int s = g.alu(AluOp::Add, DType::i64, {g.alu(AluOp::Add, DType::i64, {x, g.constInt(c1)}), g.constInt(c2)});
  if (c1 + c2 == 0) {
    EXPECT_EQ(s, x);
  } else {
    ASSERT_EQ(g.at(s).kind, UOpKind::Alu);
    EXPECT_EQ(g.at(s).src[0], x);
    EXPECT_EQ(g.at(g.at(s).src[1]).ival, c1 + c2);
  }
}

TEST(UOpCSE, EqualUOpsAreReusedAndCommutativeOperandsCanonical) {
  UOpGraph g;
  int buf = defineGlobal(g, 0, DType::f32);
  int a = load(g, buf, g.constInt(randInt(0, 9)), DType::f32);
  int b = load(g, buf, g.constInt(randInt(10, 19)), DType::f32);
  int n = g.size();
  int s1 = g.alu(AluOp::Add, DType::f32, {a, b});
  int s2 = g.alu(AluOp::Add, DType::f32, {b, a});
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(g.size(), n + 1);
  // Non-commutative: a - b and b - a differ.
  EXPECT_NE(g.alu(AluOp::Sub, DType::f32, {a, b}), g.alu(AluOp::Sub, DType::f32, {b, a}));
  // Float max is not commutative (signed zeros): operand order is kept.
  EXPECT_NE(g.alu(AluOp::Max, DType::f32, {a, b}), g.alu(AluOp::Max, DType::f32, {b, a}));
  EXPECT_EQ(g.constInt(42), g.constInt(42));
  EXPECT_NE(g.constFloat(0.0, DType::f64), g.constFloat(-0.0, DType::f64));
  // Definitions, accumulators, stores are never merged.
  UOp acc = makeUOp(UOpKind::DefineAcc, DType::f32, {g.constFloat(0, DType::f32)});
  EXPECT_NE(g.add(acc), g.add(acc));
  UOp st = makeUOp(UOpKind::Store, DType::f32, {buf, g.constInt(0), a});
  EXPECT_NE(g.add(st), g.add(st));
}

TEST(UOpCSE, LoadsFromALocalArrayAreNeverMerged) {
  UOpGraph g;
  UOp local = makeUOp(UOpKind::DefineLocal, DType::f64);
  local.name = "partial0";
  local.ival = 4;
  int arr = g.add(local, false);
  int idx = g.constInt(randInt(0, 3));
  int a = load(g, arr, idx, DType::f64);
  g.add(makeUOp(UOpKind::Store, DType::f64, {arr, idx, g.constFloat(1.5, DType::f64)}), false);
  EXPECT_NE(load(g, arr, idx, DType::f64), a);  // the store in between changed it
}

TEST(UOpCSE, NotAcrossAClosedLoop) {
  UOpGraph g;
  int buf = defineGlobal(g, 0, DType::f32);
  int64_t k = randInt(0, 100);
  int outside = load(g, buf, g.constInt(k), DType::f32);
  int l = loop(g, 0, 8);
  // Defined before the loop: still valid inside it.
  EXPECT_EQ(load(g, buf, g.constInt(k), DType::f32), outside);
  int inside = load(g, buf, g.constInt(k + 1), DType::f32);
  EXPECT_EQ(load(g, buf, g.constInt(k + 1), DType::f32), inside);
  int e = g.alu(AluOp::Exp, DType::f32, {inside});
  endLoop(g, l);
  // The loop's body is out of scope now: a fresh uop after the loop.
  int after = load(g, buf, g.constInt(k + 1), DType::f32);
  EXPECT_NE(after, inside);
  EXPECT_GT(after, l);
  EXPECT_NE(g.alu(AluOp::Exp, DType::f32, {after}), e);
  EXPECT_EQ(load(g, buf, g.constInt(k + 1), DType::f32), after);
}

TEST(UOpCSE, NotAcrossAClosedIf) {
  UOpGraph g;
  int buf = defineGlobal(g, 0, DType::f32);
  int cond = g.alu(AluOp::CmpLT, DType::b8, {load(g, buf, g.constInt(0), DType::f32), g.constFloat(0, DType::f32)});
  int open = g.add(makeUOp(UOpKind::If, DType::b8, {cond}), false);
  int64_t k = randInt(1, 50);
  int inside = load(g, buf, g.constInt(k), DType::f32);
  g.add(makeUOp(UOpKind::EndIf, DType::b8, {open}), false);
  EXPECT_NE(load(g, buf, g.constInt(k), DType::f32), inside);
}

TEST(UOpGraph, DeadUOpsAreDropped) {
  UOpGraph g;
  int out = defineGlobal(g, 0, DType::f32);
  int in = defineGlobal(g, 1, DType::f32);
  int l = loop(g, 0, 8);
  int x = load(g, in, l, DType::f32);
  g.alu(AluOp::Exp, DType::f32, {x});                           // unused
  g.alu(AluOp::Mul, DType::i64, {l, g.constInt(randInt(2, 9))});  // unused
  int y = g.alu(AluOp::Neg, DType::f32, {x});
  g.add(makeUOp(UOpKind::Store, DType::f32, {out, l, y}), false);
  endLoop(g, l);
  UOpGraph live = withoutDeadUOps(g);
  EXPECT_EQ(live.str(),
            "   0 DEFINE_GLOBAL ptr.f32                  data0\n"
            "   1 DEFINE_GLOBAL ptr.f32                  data1\n"
            "   2 CONST         i64                      0\n"
            "   3 CONST         i64                      8\n"
            "   4 LOOP          i64      [2, 3]\n"
            "   5 LOAD          f32      [1, 4]\n"
            "   6 ALU           f32      [5]             NEG\n"
            "   7 STORE                  [0, 4, 6]\n"
            "   8 ENDLOOP                [4]\n");
}

TEST(UOpGraphStr, Format) {
  UOpGraph g;
  UOp out = makeUOp(UOpKind::DefineGlobal, DType::f32);
  out.name = "data0";
  out.ival = 1;
  g.add(out, false);
  UOp sp = makeUOp(UOpKind::Special, DType::i64);
  sp.name = "gidx0";
  sp.ival = 4;
  g.add(sp, false);
  int l = loop(g, 0, 8);
  g.add(makeUOp(UOpKind::Store, DType::f32, {0, l, g.constFloat(0.5, DType::f32)}), false);
  endLoop(g, l);
  EXPECT_EQ(g.str(),
            "   0 DEFINE_GLOBAL ptr.f32                  data0 (output)\n"
            "   1 SPECIAL       i64                      gidx0 < 4\n"
            "   2 CONST         i64                      0\n"
            "   3 CONST         i64                      8\n"
            "   4 LOOP          i64      [2, 3]\n"
            "   5 CONST         f32                      0.5\n"
            "   6 STORE                  [0, 4, 5]\n"
            "   7 ENDLOOP                [4]\n");
}

}  // namespace
}  // namespace stitch

namespace stitch {
namespace {

using namespace testing;

// A tile that nothing live reads is not filled: its stores go with the
// loads that read it only into dead values.
TEST(DeadUOps, StoresIntoBuffersNoLiveUOpReadsAreDropped) {
  for (bool readIt : {false, true}) {
    UOpGraph g;
    int out = defineGlobal(g, 0, DType::f32), in = defineGlobal(g, 1, DType::f32);
    UOp tile = makeUOp(UOpKind::DefineLocal, DType::f32);
    tile.name = "tile0";
    tile.ival = 4;
    int t = g.add(tile, false);
    int i = loop(g, 0, 4);
    g.add(makeUOp(UOpKind::Store, DType::f32, {t, i, load(g, in, i, DType::f32)}), false);
    endLoop(g, i);
    int j = loop(g, 0, 4);
    int fromTile = load(g, t, j, DType::f32);
    int dead = g.alu(AluOp::Add, DType::f32, {fromTile, fromTile});  // read, then unused
    (void)dead;
    int value = readIt ? fromTile : load(g, in, j, DType::f32);
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, j, value}), false);
    endLoop(g, j);
    UOpGraph kept = withoutDeadUOps(g);
    int localStores = 0;
    for (const UOp& u : kept.uops())
      if (u.kind == UOpKind::Store && kept.at(u.src[0]).kind == UOpKind::DefineLocal) ++localStores;
    EXPECT_EQ(localStores, readIt ? 1 : 0) << (readIt ? "read" : "unread");
  }
}

}  // namespace
}  // namespace stitch
