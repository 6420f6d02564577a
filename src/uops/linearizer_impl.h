// The linearizer's working state (linearizer.h is its interface), shared by
// its two halves: linearizer.cpp (the loop nest, element nodes, fills,
// stores, unrolling) and linearizer_reduce.cpp (reductions: lane-split and
// serial accumulators, reductions outside the innermost loop, Column
// kernels). One Linearizer per kernel; private to src/uops.
#pragma once
#include <cstdint>
#include <vector>

#include "ugraph/kernel_graph.h"
#include "uops/linearizer.h"
#include "uops/uop.h"

namespace stitch::linearizer_detail {

// Terms of a reduce loop of `extent` that one pass over the elements takes
// (unroll and jam): 4, else 2, else 1, whichever divides it.
inline int64_t termsPerPass(int64_t extent) { return extent % 4 == 0 ? 4 : extent % 2 == 0 ? 2 : 1; }

// The accumulator's start: the identity of the combining op.
UOp reduceInit(ReduceOp op, DType dtype);

class Linearizer {
 public:
  Linearizer(const Kernel& kernel, KernelUOps& out, bool mayUnroll, const LinearizeOptions& options)
      : kernel_(kernel), block_(kernel.block), tg_(kernel.block.thread), out_(out), g_(out.uops),
        mayUnroll_(mayUnroll), options_(options) {}

  bool unrolled() const { return unrolled_; }

  void run();

 private:
  void analyze();
  void emitLevel(int level);
  void emitNode(int n);
  void emitReduce(int n);
  void emitFill(int n);
  // Emits the nodes of a loop body (ids up to `body`) that depend on reduce
  // variable r and on no variable still unbound, just after r's loop opened.
  void emitBodyNodes(int body, int r);
  void runColumn();
  bool unrollsInnerLoop(int l) const;
  void emitUnrolledInnerLoop(int l);
  void emitLoopsFrom(int from);
  std::vector<int64_t> loopPiecesAt(int p) const;
  void emitPiecedInnerLoop(int l, const std::vector<int64_t>& bounds);
  void emitPiecedOuterLoop(int p, const std::vector<int64_t>& bounds);
  bool splitsShortPieces(int p, const std::vector<int64_t>& innerBounds) const;
  void emitShortPiecesApart(int p, const std::vector<int64_t>& innerBounds);
  void emitInnerPieces(int l, const std::vector<std::pair<int64_t, int64_t>>& pieces);
  int pieceLoopUOp(int l, int64_t lo, int64_t hi);
  // The bounds of loop l's piece [lo, hi): constants, or for the split loop
  // the piece within the block's chunk (uops defined before the loop).
  std::pair<int, int> pieceBounds(int l, int64_t lo, int64_t hi);
  void forgetInnerLoopValues();
  void forgetValuesFrom(int depth);
  std::vector<int64_t> fillPieces(int r, int body) const;
  bool fillsByColumns(int i) const;
  void emitColumnFill(int i, int buffer);
  void emitPiecedFill(int i, int buffer, int r, const std::vector<int64_t>& bounds, const std::vector<int>& unit);
  int outputIndex();
  void emitStores(int index);
  void closeLoops();
  void markNeeded(const std::vector<int>& from, int stop);
  void emitRemaining();
  void emitOuterReduces(const std::vector<int>& reduces);
  int openInnerReloading(int* offset);
  int outerReducesDepth(const std::vector<int>& reduces) const;
  int combine(ReduceOp op, DType acc, int prev, int value);
  void openLoop(int l);
  // Opens output loop l; returns its LOOP (or -1 for a loop of one) and sets
  // *offset to the variable's offset within this block's share of the loop.
  int openLoopUOp(int l, int* offset);
  int decodeIterVar(int dim);
  int constOf(const TNode& n);
  int c(int64_t v) { return g_.constInt(v); }
  int loopUOp(int start, int end) { return g_.add(makeUOp(UOpKind::Loop, DType::i64, {start, end}), false); }

  const Kernel& kernel_;
  const BlockGraph& block_;
  const ThreadGraph& tg_;
  KernelUOps& out_;
  UOpGraph& g_;
  bool mayUnroll_ = true;
  LinearizeOptions options_;
  bool unrolled_ = false;

  std::vector<int> buffers_, params_;
  std::vector<int> loopOfDim_;      // iteration dim -> index in block.loops
  std::vector<int> order_;          // block.loops indices, outer to inner (reduce_order.h)
  std::vector<int> positionOf_;     // block.loops index -> its depth in order_
  int splitLoop_ = 0;               // the loop the grid splits, in chunks of chunk_ iterations
  int64_t chunk_ = 1;
  std::vector<int> loopVar_;        // per loop: its variable (a LOOP, or CONST 0 for a loop of one)
  int special_ = -1;
  int partials_ = -1;               // column kernels: the blocks' partial results
  std::vector<int> loopUOps_;       // LOOP uops still to close, outer to inner
  size_t loopFloor_ = 0;            // closeLoops closes those above this many (a piece's loops)
  std::vector<int> outer_;          // reductions with their loops outside the inner loop (reduce_order.h)
  int outerAt_ = -1;                // and the depth where they are emitted
  std::vector<int> outerArrays_;    // emitOuterReduces: each reduction's accumulator array
  std::vector<int> outerDone_;      // and the reductions whose arrays hold their results
  std::vector<int> outDepth_;       // per node: output loops it needs open (0: none)
  std::vector<std::vector<int>> rvars_;  // per node: reduce variables it depends on (sorted)
  std::vector<char> needed_;
  std::vector<int> value_;          // per node: its uop, -1 before it is emitted
  std::vector<int> reduceVarNode_;  // reduce variable -> its node
  std::vector<char> bound_;         // reduce variable -> its loop is open
};

}  // namespace stitch::linearizer_detail
