// Lowering of FuncTs' Access ops (immut.select / slice / view / permute /
// transpose / unsqueeze / squeeze / expand: the region a view covers, as a
// new tensor) and their Assign twins (`*_rev`: the base with that region
// replaced by src, broadcast and converted as copy_ does). Semantics from
// interp/kernels_view.cpp and ir/view_shape.h, on static arguments only.
//
//   immut.select_rev(%b, %s, 1, 2) at [i, j]  ->  j == 2 ? s[i] : b[i, j]
#include "ir/view_shape.h"
#include "ugraph/lowering.h"

namespace stitch {

namespace {

using namespace lowering;

// The view an Access / Assign op takes of its base, with constant arguments.
struct ViewSpec {
  enum Kind { Select, Slice, View, Permute, Unsqueeze, Squeeze, Expand } kind;
  int64_t dim = 0, start = 0, length = 0, step = 1;
  const Value* index = nullptr;  // Select at a run-time index (else `start`)
  std::vector<int64_t> perm;   // Permute: view dim k is base dim perm[k]
  std::vector<bool> squeezed;  // Squeeze: per base dim
  Dims viewShape;
};

std::string baseName(const Node& n) {
  std::string k = n.kind().substr(6);  // "immut."
  if (k.size() > 4 && k.substr(k.size() - 4) == "_rev") k = k.substr(0, k.size() - 4);
  return k;
}

// Arguments start after self (Access) or self and src (Assign).
std::optional<ViewSpec> specOf(const Node& n) {
  size_t a = isAssign(n) ? 2 : 1;
  const Value* base = n.input(0);
  if (!isTensor(base)) return std::nullopt;
  const Dims& shape = shapeOf(base);
  int64_t rank = (int64_t)shape.size();
  std::string k = baseName(n);
  ViewSpec s;
  if (k == "select") {
    auto d = constInt(n.input(a)), i = constInt(n.input(a + 1));
    if (!d) return std::nullopt;
    s.kind = ViewSpec::Select;
    checkNotZeroDim(rank, "select");
    s.dim = normalizeDim(*d, rank);
    if (i) {
      s.start = checkSelectIndex(*i, s.dim, shape[s.dim]);
    } else {
      // A run-time index (a loop counter) whose every value is in range:
      // the interpreter could not raise, so the kernel reads it as a param.
      auto range = intRange(n.input(a + 1));
      if (!range || range->first < 0 || range->second >= shape[s.dim]) return std::nullopt;
      s.index = n.input(a + 1);
    }
    s.viewShape = shape;
    s.viewShape.erase(s.viewShape.begin() + s.dim);
  } else if (k == "slice") {
    auto d = constInt(n.input(a)), step = constInt(n.input(a + 3));
    if (!d || !step || *step < 1) return std::nullopt;
    std::optional<int64_t> start, end;
    if (!isNoneValue(n.input(a + 1))) {
      start = constInt(n.input(a + 1));
      if (!start) return std::nullopt;
    }
    if (!isNoneValue(n.input(a + 2))) {
      end = constInt(n.input(a + 2));
      if (!end) return std::nullopt;
    }
    s.kind = ViewSpec::Slice;
    s.dim = normalizeDim(*d, rank);
    SliceRange r = sliceRange(start, end, *step, shape[s.dim]);
    s.start = r.start;
    s.length = r.length;
    s.step = *step;
    s.viewShape = shape;
    s.viewShape[s.dim] = r.length;
  } else if (k == "view") {
    auto size = constIntList(n.input(a));
    if (!size) return std::nullopt;
    s.kind = ViewSpec::View;
    s.viewShape = inferViewShape(*size, numel(shape));
  } else if (k == "permute" || k == "transpose") {
    s.kind = ViewSpec::Permute;
    if (k == "permute") {
      auto dims = constIntList(n.input(a));
      if (!dims) return std::nullopt;
      s.perm = checkPermutation(*dims, rank);
    } else {
      auto d0 = constInt(n.input(a)), d1 = constInt(n.input(a + 1));
      if (!d0 || !d1) return std::nullopt;
      for (int64_t i = 0; i < rank; ++i) s.perm.push_back(i);
      std::swap(s.perm[normalizeDim(*d0, rank)], s.perm[normalizeDim(*d1, rank)]);
    }
    for (int64_t p : s.perm) s.viewShape.push_back(shape[p]);
  } else if (k == "unsqueeze") {
    auto d = constInt(n.input(a));
    if (!d) return std::nullopt;
    s.kind = ViewSpec::Unsqueeze;
    s.dim = normalizeDim(*d, rank + 1);
    s.viewShape = shape;
    s.viewShape.insert(s.viewShape.begin() + s.dim, 1);
  } else if (k == "squeeze") {
    s.kind = ViewSpec::Squeeze;
    s.squeezed.assign(rank, false);
    if (isNoneValue(n.input(a))) {
      for (int64_t i = 0; i < rank; ++i) s.squeezed[i] = shape[i] == 1;
    } else {
      auto d = constInt(n.input(a));
      if (!d) return std::nullopt;
      if (rank > 0) {
        int64_t dd = normalizeDim(*d, rank);
        s.squeezed[dd] = shape[dd] == 1;
      }
    }
    for (int64_t i = 0; i < rank; ++i)
      if (!s.squeezed[i]) s.viewShape.push_back(shape[i]);
  } else if (k == "expand") {
    if (isAssign(n)) return std::nullopt;  // writes through broadcast dims: host op
    auto size = constIntList(n.input(a));
    if (!size) return std::nullopt;
    s.kind = ViewSpec::Expand;
    s.viewShape = expandShape(shape, *size);
  } else {
    return std::nullopt;
  }
  return s;
}

bool acceptAccess(const Node& n) {
  auto s = specOf(n);
  return s && s->viewShape == shapeOf(n.output()) && dtypeOf(n.output()) == dtypeOf(n.input(0));
}

std::vector<int> without(const std::vector<int>& idx, int64_t dim) {
  std::vector<int> out = idx;
  out.erase(out.begin() + dim);
  return out;
}

int lowerAccess(LowerContext& ctx, const Node& n, const std::vector<int>& j) {
  ViewSpec s = *specOf(n);
  const Value* self = n.input(0);
  const Dims& shape = shapeOf(self);
  std::vector<int> at;
  switch (s.kind) {
    case ViewSpec::Select:
      at = j;
      at.insert(at.begin() + s.dim, s.index ? ctx.scalar(s.index) : ctx.c(s.start));
      break;
    case ViewSpec::Slice:
      at = j;
      at[s.dim] = ctx.add(ctx.c(s.start), s.step == 1 ? j[s.dim] : ctx.mul(j[s.dim], ctx.c(s.step)));
      break;
    case ViewSpec::View: return ctx.elementReshaped(self, j, s.viewShape);
    case ViewSpec::Permute:
      at.assign(shape.size(), -1);
      for (size_t k = 0; k < s.perm.size(); ++k) at[s.perm[k]] = j[k];
      break;
    case ViewSpec::Unsqueeze: at = without(j, s.dim); break;
    case ViewSpec::Squeeze: {
      size_t next = 0;
      for (size_t k = 0; k < shape.size(); ++k) at.push_back(s.squeezed[k] ? ctx.c(0) : j[next++]);
      break;
    }
    case ViewSpec::Expand: at = broadcastIndex(ctx, j, shape); break;
  }
  return ctx.element(self, at);
}

bool acceptAssignOp(const Node& n) {
  auto s = specOf(n);
  const Value *base = n.input(0), *src = n.input(1);
  if (!s || !isTensor(src)) return false;
  if (shapeOf(n.output()) != shapeOf(base) || dtypeOf(n.output()) != dtypeOf(base)) return false;
  return broadcastShapes(s->viewShape, shapeOf(src)) == s->viewShape;
}

int lowerAssign(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ViewSpec s = *specOf(n);
  ThreadGraph& tg = ctx.tg();
  const Value *base = n.input(0), *src = n.input(1);
  const Dims& shape = shapeOf(base);
  DType t = dtypeOf(n.output());
  int cond = -1;  // -1: every element lies in the region
  std::vector<int> j;
  switch (s.kind) {
    case ViewSpec::Select:
      cond = tg.alu(AluOp::CmpEQ, DType::b8, {idx[s.dim], s.index ? ctx.scalar(s.index) : ctx.c(s.start)});
      j = without(idx, s.dim);
      break;
    case ViewSpec::Slice: {
      if (s.length == 0) return ctx.element(base, idx);
      // t = clamp(i - start) keeps src's index inside src even where the
      // element is not written (both Where arms may be evaluated).
      int offset = ctx.sub(idx[s.dim], ctx.c(s.start));
      int clamped = ctx.clampIndex(offset, 0, (s.length - 1) * s.step);
      cond = tg.alu(AluOp::CmpEQ, DType::b8, {offset, clamped});
      j = idx;
      j[s.dim] = clamped;
      if (s.step > 1) {
        int onStep = tg.alu(AluOp::CmpEQ, DType::b8,
                            {tg.alu(AluOp::Mod, DType::i64, {clamped, ctx.c(s.step)}), ctx.c(0)});
        cond = tg.alu(AluOp::LogicalAnd, DType::b8, {cond, onStep});
        j[s.dim] = tg.alu(AluOp::Div, DType::i64, {clamped, ctx.c(s.step)});
      }
      break;
    }
    case ViewSpec::View:
      // A src of the view's own shape is read at the same flat index.
      if (shapeOf(src) == s.viewShape) return tg.cast(ctx.elementReshaped(src, idx, shape), t);
      j = ctx.reshapeIndex(idx, shape, s.viewShape);
      break;
    case ViewSpec::Permute:
      for (int64_t p : s.perm) j.push_back(idx[p]);
      break;
    case ViewSpec::Unsqueeze:
      j = idx;
      j.insert(j.begin() + s.dim, ctx.c(0));
      break;
    case ViewSpec::Squeeze:
      for (size_t k = 0; k < shape.size(); ++k)
        if (!s.squeezed[k]) j.push_back(idx[k]);
      break;
    case ViewSpec::Expand: STITCH_ASSERT(false, "expand_rev is not lowered"); break;
  }
  int value = tg.cast(ctx.element(src, broadcastIndex(ctx, j, shapeOf(src))), t);
  if (cond < 0) return value;
  return tg.alu(AluOp::Where, t, {cond, value, ctx.element(base, idx)});
}

}  // namespace

void registerAccessLowerings(LoweringTable& table) {
  for (const char* op : {"select", "slice", "view", "permute", "transpose", "unsqueeze", "squeeze", "expand"}) {
    std::string access = std::string("immut.") + op;
    table[access] = LoweringRule{false, acceptAccess, lowerAccess};
    table[access + "_rev"] = LoweringRule{false, acceptAssignOp, lowerAssign};
  }
}

}  // namespace stitch
