#include "uops/lane_reduce.h"

namespace stitch {

bool laneSplits(ReduceOp op, int64_t extent) {
  if (extent < kMinLaneSplitExtent) return false;
  switch (op) {
    case ReduceOp::Max:
    case ReduceOp::Min: return true;
    case ReduceOp::Sum:
    case ReduceOp::Prod:
      return true;
  }
  return false;
}

int64_t reduceLanes(int64_t extent) { return extent >= kWideLaneExtent ? kWideReduceLanes : kReduceLanes; }

int64_t threadReduceLanes(int64_t extent) {
  int64_t width = kThreadLanes;
  while (width > 1 && width > extent / 2) width /= 2;
  return width;
}

namespace {

int loop(UOpGraph& g, int64_t extent) {
  return g.add(makeUOp(UOpKind::Loop, DType::i64, {g.constInt(0), g.constInt(extent)}), false);
}

void endLoop(UOpGraph& g, int loopUOp) { g.add(makeUOp(UOpKind::EndLoop, DType::i64, {loopUOp}), false); }

}  // namespace

int defineLanes(UOpGraph& g, DType acc, int init, int64_t width) {
  UOp local = makeUOp(UOpKind::DefineLocal, acc);
  local.ival = width;
  int lanes = g.add(local, false);
  if (init < 0) return lanes;
  int l = loop(g, width);
  g.add(makeUOp(UOpKind::Store, acc, {lanes, l, init}), false);
  endLoop(g, l);
  return lanes;
}

void accumulateLane(UOpGraph& g, DType acc, int lanes, int lane, int value,
                    const std::function<int(int prev, int value)>& combine) {
  // Not cachable: the lane changes between loads.
  int prev = g.add(makeUOp(UOpKind::Load, acc, {lanes, lane}), false);
  g.add(makeUOp(UOpKind::Store, acc, {lanes, lane, combine(prev, value)}), false);
}

int combineLanes(UOpGraph& g, DType acc, int lanes, int64_t width,
                 const std::function<int(int prev, int value)>& combine) {
  for (int64_t half = width / 2; half >= 1; half /= 2) {
    int l = loop(g, half);
    int low = g.add(makeUOp(UOpKind::Load, acc, {lanes, l}), false);
    int high = g.add(makeUOp(UOpKind::Load, acc, {lanes, g.alu(AluOp::Add, DType::i64, {l, g.constInt(half)})}), false);
    g.add(makeUOp(UOpKind::Store, acc, {lanes, l, combine(low, high)}), false);
    endLoop(g, l);
  }
  return g.add(makeUOp(UOpKind::Load, acc, {lanes, g.constInt(0)}), false);
}

bool foldsInOneUOp(ReduceOp op, DType acc, bool threadLanes) {
  if (threadLanes) return acc == DType::f32 || acc == DType::f64 || acc == DType::i32 || acc == DType::i64;
  return op == ReduceOp::Sum && isFloating(acc);
}

int foldLanes(UOpGraph& g, ReduceOp op, DType acc, int lanes, int64_t width) {
  UOp fold = makeUOp(UOpKind::FoldLanes, acc, {lanes});
  switch (op) {
    case ReduceOp::Sum: fold.alu = AluOp::Add; break;
    case ReduceOp::Prod: fold.alu = AluOp::Mul; break;
    case ReduceOp::Max: fold.alu = AluOp::Max; break;
    case ReduceOp::Min: fold.alu = AluOp::Min; break;
  }
  fold.ival = width;
  return g.add(fold, false);
}

}  // namespace stitch
