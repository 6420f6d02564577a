// Tiles filled in the output that takes them (uops/output_tile.h): which
// tiles move, and that every kernel, moved or not, computes by the
// reference executor (uop_eval.h) what it computed before, on random data.
#include <gtest/gtest.h>

#include <random>

#include "../codegen/kernel_builder.h"
#include "../common/random.h"
#include "uop_eval.h"
#include "uops/output_tile.h"

namespace stitch {
namespace {

using codegentest::KernelBuilder;

// How a softmax-shaped kernel departs from the form that qualifies.
enum class Variant {
  Qualifies,       // T[j] = 2 x[b + j]; s = sum T; out[b + j] = T[j] * s, b = r * n per block's rows
  NoGrid,          // the same without a grid: one block
  RowPerBlock,     // one row a block: the row loop over [gidx, gidx + 1)
  OutputRead,      // the kernel also loads the output
  SecondOutput,    // a loop after the output's copies T into out2 in place: out2 takes it
  TileReadAfter,   // a loop after the output's reads T again (at j and at 0: out2 cannot take it either)
  OtherIndex,      // the output's loop reads T[n - 1 - j]
  RowsOfAllBlocks, // every block writes every row (b does not depend on the grid)
  NarrowRows,      // b = r * m with m < n: the rows' regions overlap
};

constexpr int64_t kBlocks = 3, kRowsPerBlock = 2;

// Buffers: out (slot 0), x (slot 1), out2 (slot 2, for the variants that need a second output).
KernelUOps rowKernel(Variant variant, int64_t n) {
  KernelBuilder b("rows");
  const int out = b.global(0, DType::f32, true);
  const int x = b.global(1, DType::f32, false);
  const int out2 = b.global(2, DType::f32, true);
  const bool grid = variant != Variant::NoGrid;
  const int g = grid ? b.special("gidx0", kBlocks) : -1;
  int r;
  if (!grid) {
    r = b.loop(b.i64(0), b.i64(kBlocks * kRowsPerBlock));
  } else if (variant == Variant::RowPerBlock) {
    r = b.loop(g, b.alu(AluOp::Add, DType::i64, {g, b.i64(1)}));
  } else if (variant == Variant::RowsOfAllBlocks) {
    r = b.loop(b.i64(0), b.i64(kRowsPerBlock));
  } else {
    const int lo = b.alu(AluOp::Mul, DType::i64, {g, b.i64(kRowsPerBlock)});
    r = b.loop(lo, b.alu(AluOp::Add, DType::i64, {lo, b.i64(kRowsPerBlock)}));
  }
  const int64_t m = variant == Variant::NarrowRows ? n - 1 : n;
  const int base = b.alu(AluOp::Mul, DType::i64, {r, b.i64(m)});
  UOp def = makeUOp(UOpKind::DefineLocal, DType::f32);
  def.ival = n;
  def.name = "tile0";
  const int tile = b.g().add(def, false);
  const int j = b.loop(b.i64(0), b.i64(n));
  b.store(tile, j,
          b.alu(AluOp::Mul, DType::f32, {b.load(x, b.alu(AluOp::Add, DType::i64, {base, j})), b.constant(2, DType::f32)}));
  b.endLoop(j);
  const int acc = b.acc(DType::f32, b.constant(0, DType::f32));
  const int k = b.loop(b.i64(0), b.i64(n));
  const int sum = b.phi(acc, b.alu(AluOp::Add, DType::f32, {acc, b.load(tile, k)}), k);
  b.endLoop(k);
  const int l = b.loop(b.i64(0), b.i64(n));
  const int at = variant == Variant::OtherIndex ? b.alu(AluOp::Sub, DType::i64, {b.i64(n - 1), l}) : l;
  const int outIndex = b.alu(AluOp::Add, DType::i64, {base, l});
  b.store(out, outIndex, b.alu(AluOp::Mul, DType::f32, {b.load(tile, at), sum}));
  b.endLoop(l);
  if (variant == Variant::OutputRead) b.store(out2, r, b.load(out, base));
  if (variant == Variant::SecondOutput) {
    const int t = b.loop(b.i64(0), b.i64(n));
    b.store(out2, b.alu(AluOp::Add, DType::i64, {base, t}), b.load(tile, t));
    b.endLoop(t);
  }
  if (variant == Variant::TileReadAfter) {
    const int t = b.loop(b.i64(0), b.i64(n));
    b.store(out2, b.alu(AluOp::Add, DType::i64, {base, t}),
            b.alu(AluOp::Add, DType::f32, {b.load(tile, t), b.load(tile, b.i64(0))}));
    b.endLoop(t);
  }
  b.endLoop(r);
  return b.kernel();
}

bool hasTile(const UOpGraph& g) {
  for (const UOp& u : g.uops())
    if (u.kind == UOpKind::DefineLocal) return true;
  return false;
}

TEST(OutputTile, TilesMoveOnlyWhereTheOutputTakesThemAlone) {
  const struct {
    Variant variant;
    bool moves;
  } cases[] = {{Variant::Qualifies, true},      {Variant::NoGrid, true},
               {Variant::RowPerBlock, true},
               {Variant::OutputRead, false},    {Variant::SecondOutput, true},
               {Variant::TileReadAfter, false},
               {Variant::OtherIndex, false},    {Variant::RowsOfAllBlocks, false},
               {Variant::NarrowRows, false}};
  std::uniform_real_distribution<float> d(-4.f, 4.f);
  for (const auto& c : cases) {
    const int64_t n = testing::randInt(3, 40);
    SCOPED_TRACE("variant " + std::to_string((int)c.variant) + ", n = " + std::to_string(n));
    const KernelUOps kernel = rowKernel(c.variant, n);
    const UOpGraph moved = fillTilesInOutputs(kernel.uops);
    EXPECT_EQ(hasTile(moved), !c.moves) << moved.str();
    const size_t elements = size_t(kBlocks * kRowsPerBlock * n);  // one row a block uses the first kBlocks
    std::vector<double> x(elements);
    for (double& v : x) v = d(testing::rng());
    const std::vector<std::vector<double>> data = {std::vector<double>(elements, 0.0), x,
                                                   std::vector<double>(elements, 0.0)};
    const auto want = testing::evalUOps(kernel.uops, data), got = testing::evalUOps(moved, data);
    EXPECT_EQ(got, want);
  }
}

// The moved tile's accesses are the output's, at the row's base.
TEST(OutputTile, TheTilesAccessesBecomeTheOutputsAtTheRowsBase) {
  const UOpGraph moved = fillTilesInOutputs(rowKernel(Variant::Qualifies, 8).uops);
  int loads = 0, stores = 0;
  for (const UOp& u : moved.uops()) {
    if (u.kind != UOpKind::Load && u.kind != UOpKind::Store) continue;
    const UOp& buffer = moved.at(u.src[0]);
    if (buffer.kind != UOpKind::DefineGlobal || buffer.arg != 0) continue;
    (u.kind == UOpKind::Load ? loads : stores) += 1;
    const UOp& index = moved.at(u.src[1]);
    EXPECT_TRUE(index.kind == UOpKind::Alu && index.alu == AluOp::Add) << moved.str();
  }
  EXPECT_EQ(loads, 2) << "the sum's and the output loop's";
  EXPECT_EQ(stores, 2) << "the fill and the output's";
}

}  // namespace
}  // namespace stitch
