// Lowering of the copy ops that rearrange elements (cat, stack, flip,
// repeat, tril, triu) as graph-defined kernels: each output element reads
// one input element at a remapped index (interp/copy_ops.cpp). cat and stack
// read a Tensor[] built by prim.list_construct; its elements become the
// kernel's inputs.
#include "ir/view_shape.h"
#include "ugraph/lowering.h"

namespace stitch {

namespace {

using namespace lowering;

DType promoted(const std::vector<const Value*>& parts) {
  DType d = dtypeOf(parts[0]);
  for (const Value* v : parts) d = promoteTypes(d, dtypeOf(v));
  return d;
}

std::vector<Dims> shapesOf(const std::vector<const Value*>& parts) {
  std::vector<Dims> out;
  for (const Value* v : parts) out.push_back(shapeOf(v));
  return out;
}

// Both arms of a Where may be evaluated, so every piece is read for every
// element: past a few pieces the host's piecewise copy is cheaper.
constexpr size_t kMaxPieces = 8;

bool acceptCat(const Node& n) {
  auto parts = listElements(n.input(0));
  auto dim = constInt(n.input(1));
  if (!parts || !dim || parts->size() > kMaxPieces) return false;
  if (promoted(*parts) != dtypeOf(n.output())) return false;
  if (n.is("stack")) return stackShape(shapesOf(*parts), *dim) == shapeOf(n.output());
  return planCat(shapesOf(*parts), *dim).shape == shapeOf(n.output());
}

// cat: a chain of Wheres over the pieces' ranges along the dim; each
// piece's index is clamped into it (a discarded arm still loads in bounds).
int lowerCat(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  std::vector<const Value*> parts = *listElements(n.input(0));
  DType t = dtypeOf(n.output());
  CatPlan plan = planCat(shapesOf(parts), *constInt(n.input(1)));
  struct Piece {
    const Value* v;
    int64_t offset, length;
  };
  std::vector<Piece> pieces;
  int64_t offset = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!plan.participates[i]) continue;
    int64_t len = shapeOf(parts[i])[plan.dim];
    if (len > 0) pieces.push_back({parts[i], offset, len});
    offset += len;
  }
  STITCH_ASSERT(!pieces.empty(), "cat with a non-empty output and no pieces");
  int p = idx[plan.dim];
  int value = -1;
  for (size_t k = pieces.size(); k-- > 0;) {
    std::vector<int> at = idx;
    at[plan.dim] = ctx.clampIndex(ctx.sub(p, ctx.c(pieces[k].offset)), 0, pieces[k].length - 1);
    int e = tg.cast(ctx.element(pieces[k].v, at), t);
    if (value < 0) {
      value = e;
      continue;
    }
    int before = tg.alu(AluOp::CmpLT, DType::b8, {p, ctx.c(pieces[k].offset + pieces[k].length)});
    value = tg.alu(AluOp::Where, t, {before, e, value});
  }
  return value;
}

int lowerStack(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  std::vector<const Value*> parts = *listElements(n.input(0));
  DType t = dtypeOf(n.output());
  int64_t d = normalizeDim(*constInt(n.input(1)), (int64_t)idx.size());
  std::vector<int> at = idx;
  at.erase(at.begin() + d);
  int value = tg.cast(ctx.element(parts.back(), at), t);
  for (size_t k = parts.size() - 1; k-- > 0;) {
    int here = tg.alu(AluOp::CmpEQ, DType::b8, {idx[d], ctx.c((int64_t)k)});
    value = tg.alu(AluOp::Where, t, {here, tg.cast(ctx.element(parts[k], at), t), value});
  }
  return value;
}

bool acceptFlip(const Node& n) {
  auto dims = constIntList(n.input(1));
  // A 0-dim tensor has no dim to index (flip of it is the value itself):
  // the interpreter handles that case.
  if (!isTensor(n.input(0)) || !dims || shapeOf(n.input(0)).empty()) return false;
  checkFlipDims(*dims, (int64_t)shapeOf(n.input(0)).size());
  return shapeOf(n.output()) == shapeOf(n.input(0)) && dtypeOf(n.output()) == dtypeOf(n.input(0));
}

int lowerFlip(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  const Dims& shape = shapeOf(n.input(0));
  std::vector<int> at = idx;
  for (int64_t d : checkFlipDims(*constIntList(n.input(1)), (int64_t)shape.size()))
    at[d] = ctx.sub(ctx.c(shape[d] - 1), idx[d]);
  return ctx.element(n.input(0), at);
}

bool acceptRepeat(const Node& n) {
  auto reps = constIntList(n.input(1));
  if (!isTensor(n.input(0)) || !reps) return false;
  return repeatShape(shapeOf(n.input(0)), *reps) == shapeOf(n.output()) &&
         dtypeOf(n.output()) == dtypeOf(n.input(0));
}

int lowerRepeat(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  const Dims& shape = shapeOf(n.input(0));
  size_t lead = idx.size() - shape.size();
  std::vector<int> at;
  for (size_t k = 0; k < shape.size(); ++k) {
    int i = idx[lead + k];
    bool repeated = shapeOf(n.output())[lead + k] != shape[k];
    at.push_back(repeated && shape[k] > 1 ? ctx.tg().alu(AluOp::Mod, DType::i64, {i, ctx.c(shape[k])}) : i);
  }
  return ctx.element(n.input(0), at);
}

bool acceptTriangular(const Node& n) {
  if (!isTensor(n.input(0)) || !constInt(n.input(1))) return false;
  checkTriangularRank((int64_t)shapeOf(n.input(0)).size());
  return shapeOf(n.output()) == shapeOf(n.input(0)) && dtypeOf(n.output()) == dtypeOf(n.input(0));
}

int lowerTriangular(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  DType t = dtypeOf(n.output());
  int64_t diagonal = *constInt(n.input(1));
  size_t r = idx.size();
  int offset = ctx.sub(idx[r - 1], idx[r - 2]);  // j - i
  int keep = n.is("tril") ? tg.alu(AluOp::CmpLE, DType::b8, {offset, ctx.c(diagonal)})
                          : tg.alu(AluOp::CmpLE, DType::b8, {ctx.c(diagonal), offset});
  int zero = isFloating(t) ? tg.constFloat(0, t) : tg.constInt(0, t);
  return tg.alu(AluOp::Where, t, {keep, ctx.element(n.input(0), idx), zero});
}

}  // namespace

void registerCopyLowerings(LoweringTable& table) {
  table["cat"] = LoweringRule{false, acceptCat, lowerCat};
  table["stack"] = LoweringRule{false, acceptCat, lowerStack};
  table["flip"] = LoweringRule{false, acceptFlip, lowerFlip};
  table["repeat"] = LoweringRule{false, acceptRepeat, lowerRepeat};
  table["tril"] = LoweringRule{false, acceptTriangular, lowerTriangular};
  table["triu"] = LoweringRule{false, acceptTriangular, lowerTriangular};
}

}  // namespace stitch
