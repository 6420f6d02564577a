// A Column kernel for the renderers' tests: out[j] = sum_i x[i, j] (f32,
// summed in f64) over `rows` rows split into `parts` blocks, each block's
// partials in scratch shared by the blocks, combined after the grid.
#pragma once
#include <gtest/gtest.h>

#include "../common/kernel_spec.h"
#include "ugraph/block_graph_builder.h"
#include "uops/linearizer.h"

namespace stitch::codegentest {

inline KernelUOps columnSum(int64_t parts, int64_t rows, int64_t cols) {
  testing::KernelSpec k({cols}, "column_sum");
  k.output(DType::f32, {cols});
  k.input(DType::f32, {rows, cols});
  ThreadGraph& tg = k.tg();
  int r = tg.newReduceVar(rows);
  int j = tg.iterVar(0);
  int x = tg.load(0, DType::f32, tg.flatIndex({r, j}, {rows, cols}));
  int sum = tg.reduce(ReduceOp::Sum, DType::f64, tg.cast(x, DType::f64), {r});
  tg.store(0, tg.cast(sum, DType::f32));
  k.loops({{0}}, cols);
  EXPECT_TRUE(columnFromSchedule(k.kernel.block, Schedule{0, parts, SchedType::Column}, rows));
  EXPECT_EQ(k.kernel.block.grid, std::vector<int64_t>{parts});
  return linearize(k.kernel);
}

}  // namespace stitch::codegentest
