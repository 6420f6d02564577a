// Loop merging and grid scheduling on planned kernels and hand-built
// thread graphs.
#include "ir/ir_parser.h"
#include "ugraph/block_graph_builder.h"
#include "ugraph/loop_merging.h"
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

std::string loopsStr(const BlockGraph& b) {
  std::string s;
  for (const LoopDim& l : b.loops) {
    s += "[";
    for (size_t i = 0; i < l.iterDims.size(); ++i) s += (i ? "," : "") + std::to_string(l.iterDims[i]);
    s += "]<" + std::to_string(l.extent) + ">";
  }
  return s;
}

TEST(LoopMerging, ContiguousElementwiseIsOneLoop) {
  BlockGraph b = onlyBlock(R"(graph f(%x : f32[800, 1333, 3], %m : float):
  %one : int = prim.constant[value=1]()
  %a : f32[800, 1333, 3] = sub(%x, %m, %one)
  return (%a)
)");
  EXPECT_EQ(loopsStr(b), "[0,1,2]<3199200>");
  EXPECT_EQ(b.blockExtent, kMinBlockIterations);
  ASSERT_EQ(b.grid.size(), 1u);
  EXPECT_EQ(b.grid[0], (3199200 + kMinBlockIterations - 1) / kMinBlockIterations);
  EXPECT_EQ(b.inputs.at(0).imap, std::vector<int>{0});
  EXPECT_EQ(b.outputs.at(0).omap, std::vector<int>{0});
}

TEST(LoopMerging, ColumnBroadcastKeepsDimsApart) {
  BlockGraph b = onlyBlock(R"(graph f(%x : f32[64, 1000], %m : f32[64, 1]):
  %one : int = prim.constant[value=1]()
  %a : f32[64, 1000] = sub(%x, %m, %one)
  return (%a)
)");
  EXPECT_EQ(loopsStr(b), "[0]<64>[1]<1000>");
  // 1000 iterations per row: 17 rows make >= 16384.
  EXPECT_EQ(b.blockExtent, 17);
  EXPECT_EQ(b.grid, std::vector<int64_t>{4});
}

TEST(LoopMerging, RowBroadcastKeepsDimsApart) {
  BlockGraph b = onlyBlock(R"(graph f(%x : f32[64, 1000], %m : f32[1000]):
  %a : f32[64, 1000] = mul(%x, %m)
  return (%a)
)");
  EXPECT_EQ(loopsStr(b), "[0]<64>[1]<1000>");
  EXPECT_EQ(b.inputs.at(1).imap, std::vector<int>{kReplica});
}

TEST(LoopMerging, SizeOneDimsAlwaysMerge) {
  BlockGraph b = onlyBlock(R"(graph f(%x : f32[5, 1, 7], %y : f32[7]):
  %a : f32[5, 1, 7] = mul(%x, %y)
  return (%a)
)");
  EXPECT_EQ(loopsStr(b), "[0,1]<5>[2]<7>");  // dims 0 and 2 have different strides in y
}

TEST(LoopMerging, TransposedReadDoesNotMerge) {
  BlockGraph b = onlyBlock(R"(graph f(%x : f32[4, 6]):
  %p : List[int] = prim.constant[value=[1, 0]]()
  %a : f32[6, 4] = immut.permute(%x, %p)
  return (%a)
)");
  EXPECT_EQ(loopsStr(b), "[0]<6>[1]<4>");
}

TEST(LoopMerging, ReductionsMergeKeptDimsOnlyWhenContiguous) {
  BlockGraph last = onlyBlock(R"(graph f(%x : f32[8, 9, 10]):
  %d : List[int] = prim.constant[value=[2]]()
  %k : bool = prim.constant[value=false]()
  %n : None = prim.constant[value=None]()
  %a : f32[8, 9] = sum(%x, %d, %k, %n)
  return (%a)
)");
  EXPECT_EQ(loopsStr(last), "[0,1]<72>");
  EXPECT_EQ(last.blockExtent, 72);  // 72 * 10 < 16384: one block
  BlockGraph middle = onlyBlock(R"(graph f(%x : f32[8, 9, 10]):
  %d : List[int] = prim.constant[value=[1]]()
  %k : bool = prim.constant[value=false]()
  %n : None = prim.constant[value=None]()
  %a : f32[8, 10] = sum(%x, %d, %k, %n)
  return (%a)
)");
  EXPECT_EQ(loopsStr(middle), "[0]<8>[1]<10>");
}

TEST(LoopMerging, IndexUsedAsValueBlocksMerging) {
  ThreadGraph tg({4, 5});
  int i0 = tg.iterVar(0), i1 = tg.iterVar(1);
  int flat = tg.flatIndex({i0, i1}, {4, 5});
  int x = tg.load(0, DType::f32, flat);
  tg.store(0, x);
  EXPECT_EQ(mergeLoops(tg).size(), 1u);
  ThreadGraph cmp({4, 5});
  i0 = cmp.iterVar(0);
  i1 = cmp.iterVar(1);
  int y = cmp.load(0, DType::f32, cmp.flatIndex({i0, i1}, {4, 5}));
  int c = cmp.alu(AluOp::CmpEQ, DType::b8, {i1, cmp.constInt(2)});
  cmp.store(0, cmp.alu(AluOp::Where, DType::f32, {c, cmp.constFloat(0, DType::f32), y}));
  EXPECT_EQ(mergeLoops(cmp).size(), 2u);
  IterAffineAnalysis a(cmp);
  ASSERT_TRUE(a.form(cmp.flatIndex({i0, i1}, {4, 5})).has_value());
  EXPECT_EQ(a.form(cmp.flatIndex({i0, i1}, {4, 5}))->coefficient(0), 5);
  EXPECT_FALSE(a.canMerge(0));
}

TEST(LoopMerging, RankZeroHasOneUnitLoop) {
  BlockGraph b = onlyBlock(R"(graph f(%x : f32[6]):
  %n : None = prim.constant[value=None]()
  %a : f32[] = sum(%x, %n)
  return (%a)
)");
  EXPECT_EQ(loopsStr(b), "[]<1>");
  EXPECT_EQ(b.grid, std::vector<int64_t>{1});
}

}  // namespace
}  // namespace stitch::ugraph_test
