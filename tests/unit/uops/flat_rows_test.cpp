// flat_rows.h on bare uop nests: a row loop around a column loop, the body
// built by each test; runsFlat says whether the nest may run as one loop
// over the rows' flat range.
#include <gtest/gtest.h>

#include <functional>

#include "uop_test_util.h"
#include "uops/flat_rows.h"

namespace stitch {
namespace {

using namespace testing;

int global(UOpGraph& g, int slot, DType dtype, bool written) {
  UOp u = makeUOp(UOpKind::DefineGlobal, dtype);
  u.arg = slot;
  u.ival = written;
  u.name = "data" + std::to_string(slot);
  return g.add(u, false);
}

int i64(UOpGraph& g, AluOp op, int a, int b) { return g.alu(op, DType::i64, {a, b}); }

// The element body gets (graph, row, col, out, in) and stores something.
using Body = std::function<void(UOpGraph&, int, int, int, int)>;

bool nestRunsFlat(int64_t rowLength, int64_t lo, int64_t hi, const Body& body) {
  UOpGraph g;
  const int out = global(g, 0, DType::f32, true), in = global(g, 1, DType::f32, false);
  const int row = loop(g, 0, 8);
  const int col = loop(g, lo, hi);
  body(g, row, col, out, in);
  g.add(makeUOp(UOpKind::EndLoop, DType::i64, {col}), false);
  g.add(makeUOp(UOpKind::EndLoop, DType::i64, {row}), false);
  return runsFlat(g, row, col, rowLength);
}

// out[i] = f(in[i]) at i = row * rowStride + col * colStep.
Body elementwise(int64_t rowStride, int64_t colStep, AluOp f = AluOp::Sigmoid) {
  return [=](UOpGraph& g, int row, int col, int out, int in) {
    int i = i64(g, AluOp::Add, i64(g, AluOp::Mul, row, g.constInt(rowStride)),
                i64(g, AluOp::Mul, col, g.constInt(colStep)));
    int v = g.alu(f, DType::f32, {g.add(makeUOp(UOpKind::Load, DType::f32, {in, i}))});
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, v}), false);
  };
}

TEST(FlatRows, RowsBackToBackRunFlat) {
  const int64_t length = randInt(8, 100);
  EXPECT_TRUE(nestRunsFlat(length, 4, length, elementwise(length, 1)));
  // Every other element: the flat variable still steps the same way.
  EXPECT_TRUE(nestRunsFlat(length, 0, length - 2, elementwise(2 * length, 2)));
  // A tile filled per row for the short pieces, which no store here needs,
  // in a loop of its own: dead, dropped later.
  EXPECT_TRUE(nestRunsFlat(length, 4, length, [&](UOpGraph& g, int row, int col, int out, int in) {
    UOp local = makeUOp(UOpKind::DefineLocal, DType::f32);
    local.ival = 2;
    local.name = "tile";
    int t = g.add(local, false);
    int k = loop(g, 0, 2);
    int rowStart = i64(g, AluOp::Mul, row, g.constInt(length));
    int x = g.add(makeUOp(UOpKind::Load, DType::f32, {in, i64(g, AluOp::Add, rowStart, k)}));
    g.add(makeUOp(UOpKind::Store, DType::f32, {t, k, x}), false);
    g.add(makeUOp(UOpKind::EndLoop, DType::i64, {k}), false);
    elementwise(length, 1)(g, row, col, out, in);
  }));
}

TEST(FlatRows, RowsApartOrOperandsOfOneRowDoNot) {
  const int64_t length = randInt(8, 100);
  // A padded row: the flat range would read and write the padding.
  EXPECT_FALSE(nestRunsFlat(length, 4, length, elementwise(length + 1, 1)));
  // A per-column operand (a bias over the slice): its index leaves the
  // operand on the extra columns.
  EXPECT_FALSE(nestRunsFlat(length, 4, length, [&](UOpGraph& g, int row, int col, int out, int in) {
    int i = i64(g, AluOp::Add, i64(g, AluOp::Mul, row, g.constInt(length)), col);
    int bias = g.add(makeUOp(UOpKind::Load, DType::f32, {in, i64(g, AluOp::Sub, col, g.constInt(4))}));
    int v = g.alu(AluOp::Add, DType::f32, {g.add(makeUOp(UOpKind::Load, DType::f32, {in, i})), bias});
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, v}), false);
  }));
}

TEST(FlatRows, TheColumnAsAValueKeepsTheNest) {
  const int64_t length = randInt(8, 100);
  // A select on the column (what a loop piece leaves unfolded).
  EXPECT_FALSE(nestRunsFlat(length, 4, length, [&](UOpGraph& g, int row, int col, int out, int in) {
    int i = i64(g, AluOp::Add, i64(g, AluOp::Mul, row, g.constInt(length)), col);
    int x = g.add(makeUOp(UOpKind::Load, DType::f32, {in, i}));
    int first = g.alu(AluOp::CmpLT, DType::b8, {col, g.constInt(6)});
    int v = g.alu(AluOp::Where, DType::f32, {first, x, g.alu(AluOp::Exp, DType::f32, {x})});
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, v}), false);
  }));
  // The index stored as a value (arange).
  EXPECT_FALSE(nestRunsFlat(length, 4, length, [&](UOpGraph& g, int row, int col, int out, int) {
    int i = i64(g, AluOp::Add, i64(g, AluOp::Mul, row, g.constInt(length)), col);
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, g.add(makeUOp(UOpKind::Cast, DType::f32, {i}))}), false);
  }));
}

TEST(FlatRows, NothingThatTrapsOnTheExtraColumnsValues) {
  const int64_t length = randInt(8, 100);
  // An integer division by loaded data: the extra columns may hold 0.
  EXPECT_FALSE(nestRunsFlat(length, 4, length, [&](UOpGraph& g, int row, int col, int out, int in) {
    int i = i64(g, AluOp::Add, i64(g, AluOp::Mul, row, g.constInt(length)), col);
    int x = g.add(makeUOp(UOpKind::Cast, DType::i64, {g.add(makeUOp(UOpKind::Load, DType::f32, {in, i}))}));
    int q = g.alu(AluOp::FloorDiv, DType::i64, {g.constInt(100), x});
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, g.add(makeUOp(UOpKind::Cast, DType::f32, {q}))}), false);
  }));
  // A gather: the index comes from loaded data.
  EXPECT_FALSE(nestRunsFlat(length, 4, length, [&](UOpGraph& g, int row, int col, int out, int in) {
    int i = i64(g, AluOp::Add, i64(g, AluOp::Mul, row, g.constInt(length)), col);
    int x = g.add(makeUOp(UOpKind::Load, DType::f32, {in, i}));
    int at = g.add(makeUOp(UOpKind::Cast, DType::i64, {x}));
    int v = g.add(makeUOp(UOpKind::Load, DType::f32, {in, at}));
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, v}), false);
  }));
}

TEST(FlatRows, ReadingAnOutputOrALocalKeepsTheNest) {
  const int64_t length = randInt(8, 100);
  EXPECT_FALSE(nestRunsFlat(length, 4, length, [&](UOpGraph& g, int row, int col, int out, int) {
    int i = i64(g, AluOp::Add, i64(g, AluOp::Mul, row, g.constInt(length)), col);
    int v = g.add(makeUOp(UOpKind::Load, DType::f32, {out, i64(g, AluOp::Sub, i, g.constInt(1))}));
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, v}), false);
  }));
  EXPECT_FALSE(nestRunsFlat(length, 4, length, [&](UOpGraph& g, int row, int col, int out, int in) {
    UOp local = makeUOp(UOpKind::DefineLocal, DType::f32);
    local.ival = 1;
    local.name = "tile";
    int t = g.add(local, false);
    int i = i64(g, AluOp::Add, i64(g, AluOp::Mul, row, g.constInt(length)), col);
    g.add(makeUOp(UOpKind::Store, DType::f32, {t, g.constInt(0), g.add(makeUOp(UOpKind::Load, DType::f32, {in, i}))}),
          false);
    g.add(makeUOp(UOpKind::Store, DType::f32, {out, i, g.add(makeUOp(UOpKind::Load, DType::f32, {t, g.constInt(0)}))}),
          false);
  }));
}

}  // namespace
}  // namespace stitch
