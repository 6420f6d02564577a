// Lowering of the creation ops with static shapes (zeros / ones / empty /
// full / arange / *_like / scalar_tensor) as kernels without inputs: the
// fill value converted to the output dtype as interp/kernels_creation.cpp
// does (empty is zero-filled there, so here too).
#include <cmath>

#include "ugraph/lowering.h"

namespace stitch {

namespace {

using namespace lowering;

// The fill value's input position, or -1 for a fixed 0 / 1.
int fillInput(const std::string& op) {
  if (op == "full" || op == "full_like") return 1;
  if (op == "scalar_tensor") return 0;
  return -1;
}

bool acceptFill(const Node& n) {
  int f = fillInput(n.kind());
  return f < 0 || isScalarValue(n.input(f));
}

int lowerFill(LowerContext& ctx, const Node& n, const std::vector<int>&) {
  DType t = dtypeOf(n.output());
  const std::string& op = n.kind();
  int f = fillInput(op);
  if (f >= 0) return ctx.scalarAs(n.input(f), t);
  int64_t v = (op == "ones" || op == "ones_like") ? 1 : 0;
  ThreadGraph& tg = ctx.tg();
  return isFloating(t) ? tg.constFloat((double)v, t) : tg.constInt(v, t);
}

struct ArangeArgs {
  const Value *start = nullptr, *step = nullptr;
};

ArangeArgs arangeArgs(const Node& n) {
  // arange(end, dtype) or arange(start, end, step, dtype).
  if (n.inputs().size() == 4) return {n.input(0), n.input(2)};
  return {nullptr, nullptr};
}

bool acceptArange(const Node& n) {
  for (const Value* v : n.inputs())
    if (isScalarValue(v) && !constantOf(v)) return false;
  return dtypeOf(n.output()) != DType::b8 && shapeOf(n.output()).size() == 1;
}

int lowerArange(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  DType t = dtypeOf(n.output());
  ArangeArgs a = arangeArgs(n);
  const Constant* start = a.start ? constantOf(a.start) : nullptr;
  const Constant* step = a.step ? constantOf(a.step) : nullptr;
  if (!isFloating(t)) {
    // Integer dtypes count in integers (PyTorch truncates the bounds first).
    int64_t s = !start ? 0 : start->isFloat() ? (int64_t)std::trunc(start->toDouble()) : (int64_t)start->toDouble();
    int64_t st = !step ? 1 : step->isFloat() ? (int64_t)std::trunc(step->toDouble()) : (int64_t)step->toDouble();
    if (start && start->isInt()) s = start->toInt();
    if (step && step->isInt()) st = step->toInt();
    int v = ctx.add(ctx.c(s), ctx.mul(idx[0], ctx.c(st)));
    return tg.cast(v, t);
  }
  double s = start ? start->toDouble() : 0.0, st = step ? step->toDouble() : 1.0;
  int i = tg.cast(idx[0], DType::f64);
  int v = tg.alu(AluOp::Add, DType::f64,
                 {tg.constFloat(s, DType::f64), tg.alu(AluOp::Mul, DType::f64, {i, tg.constFloat(st, DType::f64)})});
  return tg.cast(v, t);
}

}  // namespace

void registerCreationLowerings(LoweringTable& table) {
  for (const char* op : {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
                         "full_like", "scalar_tensor"})
    table[op] = LoweringRule{false, acceptFill, lowerFill};
  table["arange"] = LoweringRule{false, acceptArange, lowerArange};
}

}  // namespace stitch
