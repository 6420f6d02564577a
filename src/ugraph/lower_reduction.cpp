// Lowering of reductions over static dims (sum, mean, prod, amax / amin,
// max / min of a whole tensor, all / any, logsumexp) and of softmax /
// log_softmax as Reduce nodes, with the interpreter's dtype rules
// (interp/reduce_ops.cpp, along_dim_ops.cpp) and the kernels' numerics
// (numerics.h): float sums and products accumulate in the result's dtype,
// integer ones in i64; each Reduce folds in row-major order of the reduced
// dims.
#include "ir/reduction_dtypes.h"
#include "ugraph/lowering.h"
#include "ugraph/numerics.h"

namespace stitch {

namespace {

using namespace lowering;

struct ReduceArgs {
  std::vector<int64_t> dims;  // normalized, sorted, unique
  bool keepdim = false;
  std::optional<DType> dtype;
};

std::optional<ReduceArgs> argsOf(const Node& n) {
  const std::string& op = n.kind();
  const Value* self = n.input(0);
  if (!isTensor(self)) return std::nullopt;
  int64_t rank = (int64_t)shapeOf(self).size();
  ReduceArgs r;
  size_t count = n.inputs().size();
  std::vector<int64_t> dims;
  auto takeDType = [&](const Value* v) -> bool {
    if (isNoneValue(v)) return true;
    r.dtype = constDType(v);
    return r.dtype.has_value();
  };
  if ((op == "sum" || op == "mean" || op == "prod") && count == 2) {
    if (!takeDType(n.input(1))) return std::nullopt;
  } else if ((op == "max" || op == "min") && count == 1) {
  } else if ((op == "all" || op == "any") && count == 1) {
  } else if (count >= 3) {
    const Value* d = n.input(1);
    if (!isNoneValue(d)) {
      auto l = constIntList(d);
      if (!l) return std::nullopt;
      dims = *l;
    }
    auto k = constBool(n.input(2));
    if (!k) return std::nullopt;
    r.keepdim = *k;
    if (count == 4 && !takeDType(n.input(3))) return std::nullopt;
  } else {
    return std::nullopt;
  }
  r.dims = normalizeReduceDims(dims, rank);
  if (reduceShape(shapeOf(self), dims, r.keepdim) != shapeOf(n.output())) return std::nullopt;
  return r;
}

int64_t reducedCount(const Dims& shape, const std::vector<int64_t>& dims) {
  int64_t c = 1;
  for (int64_t d : dims) c *= shape[d];
  return c;
}

// A Reduce over `vars`, or the body itself when nothing is reduced (a 0-dim
// input): a Reduce without variables would be an empty loop nest.
int fold(ThreadGraph& tg, ReduceOp op, DType acc, int body, const std::vector<int>& vars) {
  if (vars.empty()) return tg.cast(body, acc);
  return tg.reduce(op, acc, body, vars);
}

// The input index of one output element: kept dims from idx, reduced dims
// from fresh reduce variables (returned in `vars`).
std::vector<int> inputIndex(LowerContext& ctx, const Dims& inShape, const ReduceArgs& r,
                            const std::vector<int>& idx, std::vector<int>& vars) {
  std::vector<int> in(inShape.size());
  size_t o = 0;
  for (size_t d = 0; d < inShape.size(); ++d) {
    bool reduced = std::find(r.dims.begin(), r.dims.end(), (int64_t)d) != r.dims.end();
    if (!reduced) {
      in[d] = idx.at(o++);
      continue;
    }
    if (r.keepdim) ++o;
    int v = ctx.tg().newReduceVar(inShape[d]);
    vars.push_back(v);
    in[d] = v;
  }
  return in;
}

// max(a, b) / min(a, b) of two tensors: promotion and broadcasting; the
// second operand wins only when strictly better (or NaN), as in the
// interpreter, which is AluOp Max / Min with the operands swapped.
bool isBinaryExtremum(const Node& n) {
  return (n.is("max") || n.is("min")) && n.inputs().size() == 2 && isTensor(n.input(1));
}

bool acceptBinaryExtremum(const Node& n) {
  const Value *a = n.input(0), *b = n.input(1);
  DType t = resultType({promoteArgOf(a), promoteArgOf(b)});
  return t == dtypeOf(n.output()) && t != DType::b8 &&
         broadcastShapes(shapeOf(a), shapeOf(b)) == shapeOf(n.output());
}

int lowerBinaryExtremum(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  DType t = dtypeOf(n.output());
  const Value *a = n.input(0), *b = n.input(1);
  int x = tg.cast(ctx.element(a, broadcastIndex(ctx, idx, shapeOf(a))), t);
  int y = tg.cast(ctx.element(b, broadcastIndex(ctx, idx, shapeOf(b))), t);
  return tg.alu(n.is("max") ? AluOp::Max : AluOp::Min, t, {y, x});
}

bool acceptReduce(const Node& n) {
  if (isBinaryExtremum(n)) return acceptBinaryExtremum(n);
  auto r = argsOf(n);
  if (!r) return false;
  const std::string& op = n.kind();
  DType in = dtypeOf(n.input(0)), out = dtypeOf(n.output());
  const Dims& shape = shapeOf(n.input(0));
  if (op == "sum" || op == "prod") return sumLikeDType(in, r->dtype) == out;
  if (op == "mean") return meanDType(in, r->dtype) == out;
  if (op == "all" || op == "any") return out == DType::b8;
  // No identity: an empty reduction raises in the interpreter.
  if (reducedCount(shape, r->dims) == 0) return false;
  if (op == "logsumexp") return floatResultType(in) == out;
  if (op == "argmax" || op == "argmin") {
    checkArgReduceDType(in, op.c_str());
    return out == DType::i64;
  }
  return in == out && in != DType::b8;  // amax / amin / max / min
}

int lowerReduce(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  if (isBinaryExtremum(n)) return lowerBinaryExtremum(ctx, n, idx);
  const std::string& op = n.kind();
  ReduceArgs r = *argsOf(n);
  ThreadGraph& tg = ctx.tg();
  const Value* self = n.input(0);
  const Dims& shape = shapeOf(self);
  DType in = dtypeOf(self), out = dtypeOf(n.output());
  std::vector<int> vars;
  std::vector<int> at = inputIndex(ctx, shape, r, idx, vars);
  int x = ctx.element(self, at);
  if (op == "sum" || op == "prod") {
    DType acc = accumulateDType(out);
    int body = tg.cast(tg.cast(x, out), acc);
    return tg.cast(fold(tg, op == "sum" ? ReduceOp::Sum : ReduceOp::Prod, acc, body, vars), out);
  }
  if (op == "mean") {
    DType acc = accumulateDType(out);
    int s = fold(tg, ReduceOp::Sum, acc, tg.cast(x, out), vars);
    int count = tg.constFloat((double)reducedCount(shape, r.dims), acc);
    return tg.alu(AluOp::Div, acc, {s, count});
  }
  if (op == "all" || op == "any") {
    int nz = in == DType::b8 ? x
                             : tg.alu(AluOp::CmpNE, DType::b8,
                                      {x, isFloating(in) ? tg.constFloat(0, in) : tg.constInt(0, in)});
    int ones = tg.cast(nz, DType::i64);
    // Prod / Sum of 0-1 values: true for an empty `all`, false for an empty `any`.
    int folded = fold(tg, op == "all" ? ReduceOp::Prod : ReduceOp::Sum, DType::i64, ones, vars);
    return tg.alu(AluOp::CmpNE, DType::b8, {folded, tg.constInt(0)});
  }
  if (op == "logsumexp") {
    // max m, then m + log(sum exp(x - m)); an infinite (or NaN) m is the
    // result itself, as in the interpreter's one-pass form.
    int m = fold(tg, ReduceOp::Max, out, tg.cast(x, out), vars);
    std::vector<int> vars2;
    int x2 = tg.cast(ctx.element(self, inputIndex(ctx, shape, r, idx, vars2)), out);
    int e = tg.alu(AluOp::ExpNonPos, out, {tg.alu(AluOp::Sub, out, {x2, m})});
    int s = fold(tg, ReduceOp::Sum, out, e, vars2);
    int finite = tg.alu(AluOp::Add, out, {m, tg.alu(AluOp::Log, out, {s})});
    int special = tg.alu(AluOp::IsNan, DType::b8, {tg.alu(AluOp::Sub, out, {m, m})});
    return tg.alu(AluOp::Where, out, {special, m, finite});
  }
  bool isMax = op == "amax" || op == "max" || op == "argmax";
  int extreme = fold(tg, isMax ? ReduceOp::Max : ReduceOp::Min, in, x, vars);
  if (op != "argmax" && op != "argmin") return extreme;
  // The first position (row-major over the reduced dims) holding the
  // extreme; NaN is the extreme when present, as in the interpreter.
  std::vector<int> vars2;
  int x2 = ctx.element(self, inputIndex(ctx, shape, r, idx, vars2));
  Dims extents;
  for (int64_t d : r.dims) extents.push_back(shape[d]);
  int position = tg.flatIndex(vars2, extents);
  int match = tg.alu(AluOp::CmpEQ, DType::b8, {x2, extreme});
  if (isFloating(in)) {
    int bothNan = tg.alu(AluOp::LogicalAnd, DType::b8,
                         {tg.alu(AluOp::IsNan, DType::b8, {x2}), tg.alu(AluOp::IsNan, DType::b8, {extreme})});
    match = tg.alu(AluOp::LogicalOr, DType::b8, {match, bothNan});
  }
  int total = tg.constInt(reducedCount(shape, r.dims));
  int candidate = tg.alu(AluOp::Where, DType::i64, {match, position, total});
  return fold(tg, ReduceOp::Min, DType::i64, candidate, vars2);
}

// var / std(self, unbiased) or (self, dim, unbiased, keepdim): the mean,
// then the mean squared deviation (two passes; the interpreter's Welford
// pass gives the same up to rounding).
std::optional<ReduceArgs> varianceArgs(const Node& n) {
  const Value* self = n.input(0);
  if (!isTensor(self)) return std::nullopt;
  ReduceArgs r;
  std::vector<int64_t> dims;
  if (n.inputs().size() == 4) {
    if (!isNoneValue(n.input(1))) {
      auto l = constIntList(n.input(1));
      if (!l) return std::nullopt;
      dims = *l;
    }
    auto k = constBool(n.input(3));
    if (!k) return std::nullopt;
    r.keepdim = *k;
  }
  r.dims = normalizeReduceDims(dims, (int64_t)shapeOf(self).size());
  if (reduceShape(shapeOf(self), dims, r.keepdim) != shapeOf(n.output())) return std::nullopt;
  return r;
}

const Value* unbiasedArg(const Node& n) { return n.input(n.inputs().size() == 4 ? 2 : 1); }

bool acceptVariance(const Node& n) {
  auto r = varianceArgs(n);
  auto unbiased = constBool(unbiasedArg(n));
  if (!r || !unbiased) return false;
  if (varianceDType(dtypeOf(n.input(0))) != dtypeOf(n.output())) return false;
  // A divisor <= 0 gives NaN in the interpreter: left to it.
  return reducedCount(shapeOf(n.input(0)), r->dims) - (*unbiased ? 1 : 0) > 0;
}

int lowerVariance(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  ReduceArgs r = *varianceArgs(n);
  const Value* self = n.input(0);
  const Dims& shape = shapeOf(self);
  DType t = dtypeOf(n.output());
  int64_t count = reducedCount(shape, r.dims);
  std::vector<int> vars1, vars2;
  DType acc = accumulateDType(t);
  int x1 = tg.cast(ctx.element(self, inputIndex(ctx, shape, r, idx, vars1)), acc);
  int sum = fold(tg, ReduceOp::Sum, acc, x1, vars1);
  int mean = tg.alu(AluOp::Div, acc, {sum, tg.constFloat((double)count, acc)});
  int x2 = tg.cast(ctx.element(self, inputIndex(ctx, shape, r, idx, vars2)), acc);
  int dev = tg.alu(AluOp::Sub, acc, {x2, mean});
  int m2 = fold(tg, ReduceOp::Sum, acc, tg.alu(AluOp::Mul, acc, {dev, dev}), vars2);
  double divisor = (double)count - (*constBool(unbiasedArg(n)) ? 1.0 : 0.0);
  int var = tg.alu(AluOp::Div, acc, {m2, tg.constFloat(divisor, acc)});
  if (n.is("std")) var = tg.alu(AluOp::Sqrt, acc, {var});
  return tg.cast(var, t);
}

// A softmax row whose exponentials fit this many bytes keeps them in a
// block-local tile (a quarter of a core's L2 here: the row is read back
// twice while it is still there); a longer row computes them twice.
constexpr int64_t kSoftmaxTileBytes = int64_t(256) << 10;

// softmax / log_softmax(self, dim, dtype) along one static dim.
bool acceptSoftmax(const Node& n) {
  const Value* self = n.input(0);
  if (!isTensor(self) || shapeOf(self).empty()) return false;
  auto dim = constInt(n.input(1));
  if (!dim) return false;
  std::optional<DType> requested;
  if (!isNoneValue(n.input(2))) {
    requested = constDType(n.input(2));
    if (!requested) return false;
  }
  int64_t rank = (int64_t)shapeOf(self).size();
  int64_t d = normalizeDim(*dim, rank);
  DType t = softmaxDType(dtypeOf(self), requested, n.is("log_softmax"), d == rank - 1);
  return t == dtypeOf(n.output()) && isFloating(t);
}

int lowerSoftmax(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  const Value* self = n.input(0);
  const Dims& shape = shapeOf(self);
  int64_t d = normalizeDim(*constInt(n.input(1)), (int64_t)shape.size());
  DType t = dtypeOf(n.output());
  auto along = [&](int var) {
    std::vector<int> at = idx;
    at[d] = var;
    return tg.cast(ctx.element(self, at), t);
  };
  int r1 = tg.newReduceVar(shape[d]);
  int m = fold(tg, ReduceOp::Max, t, along(r1), {r1});
  int r2 = tg.newReduceVar(shape[d]);
  // x - max x is never positive (or NaN): exp by the cheaper kernel for that.
  int e2 = tg.alu(AluOp::ExpNonPos, t, {tg.alu(AluOp::Sub, t, {along(r2), m})});
  int scale = -1;
  if (!n.is("log_softmax") && shape[d] * (int64_t)dtypeSize(t) <= kSoftmaxTileBytes) {
    // The exponentials go into a tile of the row as they are computed; the
    // sum and the outputs read them back: one exp per element, not two.
    int fill = tg.fill(ctx.newLocal(t, shape[d], "exp of a softmax row"), e2, {r2});
    int r3 = tg.newReduceVar(shape[d]);
    int s = fold(tg, ReduceOp::Sum, t, tg.localLoad(fill, r3), {r3});
    scale = tg.alu(AluOp::Div, t, {tg.constFloat(1.0, t), s});
    return tg.alu(AluOp::Mul, t, {tg.localLoad(fill, idx[d]), scale});
  }
  int s = fold(tg, ReduceOp::Sum, t, e2, {r2});
  int xi = tg.cast(ctx.element(self, idx), t);
  int shifted = tg.alu(AluOp::Sub, t, {xi, m});
  if (n.is("log_softmax")) return tg.alu(AluOp::Sub, t, {shifted, tg.alu(AluOp::Log, t, {s})});
  int e = tg.alu(AluOp::ExpNonPos, t, {shifted});
  scale = tg.alu(AluOp::Div, t, {tg.constFloat(1.0, t), s});
  return tg.alu(AluOp::Mul, t, {e, scale});
}

}  // namespace

void registerReductionLowerings(LoweringTable& table) {
  for (const char* op : {"sum", "mean", "prod", "amax", "amin", "max", "min", "all", "any", "logsumexp",
                         "argmax", "argmin"})
    table[op] = LoweringRule{false, acceptReduce, lowerReduce};
  table["softmax"] = LoweringRule{false, acceptSoftmax, lowerSoftmax};
  table["var"] = LoweringRule{false, acceptVariance, lowerVariance};
  table["std"] = LoweringRule{false, acceptVariance, lowerVariance};
  table["log_softmax"] = LoweringRule{false, acceptSoftmax, lowerSoftmax};
}

}  // namespace stitch
