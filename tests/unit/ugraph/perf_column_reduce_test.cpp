// Grid schedule of column reductions (a reduce over a non-innermost dim):
// the reduce loops run outside the contiguous output loop, so each block
// takes a long run of outputs (kMinContiguousOutputs, or the whole loop),
// stays within the accumulator limit, and large work keeps two blocks or
// more. Other kernels keep the plain schedule. A row vector times a matrix
// (x @ w, x: [1, k]) is a column reduction of w: x[k] is one value for every
// output, and the size-1 row loop stays outside.
#include "ir/ir_parser.h"
#include "ugraph/block_graph_builder.h"
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

std::string reduceIr(const std::string& op, int64_t rows, int64_t cols, int dim) {
  std::string shape = "f32[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  std::string out = "f32[" + std::to_string(dim == 0 ? cols : rows) + "]";
  std::string third = op == "sum" ? "%n : None = prim.constant[value=None]()" : "%n : bool = prim.constant[value=true]()";
  return "graph f(%x : " + shape + "):\n  %d : List[int] = prim.constant[value=[" + std::to_string(dim) +
         "]]()\n  %k : bool = prim.constant[value=false]()\n  " + third + "\n  %r : " + out + " = " + op +
         (op == "sum" ? "(%x, %d, %k, %n)" : "(%x, %d, %n, %k)") + "\n  return (%r)\n";
}

int64_t columnReduces(const BlockGraph& b) { return (int64_t)columnReduceNodes(b, outputLoopOrder(b)).size(); }

TEST(PerfColumnReduce, LargeColumnSumTakesLongRuns) {
  BlockGraph b = onlyBlock(reduceIr("sum", 4096, 4096, 0));
  EXPECT_EQ(columnReduces(b), 1);
  EXPECT_EQ(b.blockExtent, kMinContiguousOutputs);
  ASSERT_EQ(b.grid.size(), 1u);
  EXPECT_EQ(b.grid[0], 4096 / kMinContiguousOutputs);
}

TEST(PerfColumnReduce, WholeLoopSplitInTwoWhenWorkIsLarge) {
  BlockGraph b = onlyBlock(reduceIr("sum", 1024, 1024, 0));
  EXPECT_EQ(b.blockExtent, 512);
  EXPECT_EQ(b.grid[0], 2);
  BlockGraph v = onlyBlock(reduceIr("var", 2048, 512, 0));
  EXPECT_EQ(columnReduces(v), 2);
  EXPECT_EQ(v.blockExtent, 256);
  EXPECT_EQ(v.grid[0], 2);
}

TEST(PerfColumnReduce, SmallWorkIsOneBlock) {
  BlockGraph b = onlyBlock(reduceIr("sum", 3, 100, 0));
  EXPECT_EQ(b.blockExtent, 100);
  EXPECT_EQ(b.grid[0], 1);
}

TEST(PerfColumnReduce, AccumulatorLimitAndEvenBlocks) {
  // Little work per output: runs past kMinContiguousOutputs, capped by the
  // accumulators, then evened out (100000 = 25 blocks of 4000).
  BlockGraph b = onlyBlock(reduceIr("sum", 2, 100000, 0));
  EXPECT_EQ(columnReduces(b), 1);
  EXPECT_LE(b.blockExtent, kMaxLocalAccumulators);
  EXPECT_EQ(b.grid[0], 25);
  EXPECT_EQ(b.blockExtent, 4000);
}

TEST(PerfColumnReduce, RowVectorTimesMatrixReadsTheMatrixRowByRow) {
  BlockGraph b = onlyBlock(
      "graph f(%x : f32[1, 256], %w : f32[256, 384]):\n"
      "  %y : f32[1, 384] = matmul(%x, %w)\n"
      "  return (%y)\n");
  std::vector<int> order = outputLoopOrder(b);
  ASSERT_FALSE(order.empty());
  EXPECT_GT(b.loops.at(order.back()).extent, 1) << "the size-1 row loop went innermost";
  EXPECT_EQ(columnReduces(b), 1);
  // Each row of x times w: the same loads per output, still a column reduction.
  BlockGraph rows = onlyBlock(
      "graph f(%x : f32[4, 64], %w : f32[64, 384]):\n"
      "  %y : f32[4, 384] = matmul(%x, %w)\n"
      "  return (%y)\n");
  EXPECT_EQ(columnReduces(rows), 1);
}

TEST(PerfColumnReduce, RowReductionKeepsThePlainSchedule) {
  BlockGraph b = onlyBlock(reduceIr("sum", 4096, 4096, 1));
  EXPECT_EQ(columnReduces(b), 0);
  EXPECT_EQ(b.blockExtent, (kMinBlockIterations + 4095) / 4096);
  EXPECT_EQ(b.grid[0], 4096 / b.blockExtent);
}

}  // namespace
}  // namespace stitch::ugraph_test
