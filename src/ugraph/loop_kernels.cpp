#include "ugraph/loop_kernels.h"

#include <algorithm>
#include <unordered_set>

#include "ugraph/lowering.h"

namespace stitch {

namespace {

// A dim argument: a constant in [-rank, rank), normalized.
std::optional<int64_t> constDim(const Node* n, size_t i, int64_t rank) {
  if (n->inputs().size() <= i) return std::nullopt;
  const std::optional<int64_t> d = lowering::constInt(n->input(i));
  if (!d || *d < -rank || *d >= rank) return std::nullopt;
  return *d < 0 ? *d + rank : *d;
}

bool isIntArg(const Node* n, size_t i) {
  return n->inputs().size() > i && n->input(i)->type()->kind() == TypeKind::Int;
}

bool isScalarType(const Value* v) { return v->type()->isScalar(); }

bool isStaticTensor(const Value* v) { return v->type()->isTensor() && v->type()->fullyKnown(); }

// An empty list made outside the loop: the loop's list starts from nothing.
bool isEmptyListConstruct(const Value* v) {
  const Node* def = v->node();
  return def && def->is("prim.list_construct") && def->inputs().empty();
}

bool allOfKind(const Node* n, TypeKind kind) {
  return std::all_of(n->inputs().begin(), n->inputs().end(), [&](const Value* v) { return v->type()->kind() == kind; });
}

bool isOneOf(const Node* n, std::initializer_list<const char*> ops) {
  return std::any_of(ops.begin(), ops.end(), [&](const char* op) { return n->is(op); });
}

// The scalar work a loop kernel does itself, every thread alike: int
// arithmetic (wrapping as the host's), int comparisons and bool logic (a
// while loop's condition).
bool isLoopScalarOp(const Node* n) {
  if (n->outputs().size() != 1) return false;
  const TypeKind out = n->output()->type()->kind();
  if (isOneOf(n, {"scalar.add", "scalar.sub", "scalar.mul", "scalar.min", "scalar.max", "scalar.neg"}))
    return out == TypeKind::Int && allOfKind(n, TypeKind::Int);
  if (isOneOf(n, {"scalar.lt", "scalar.le", "scalar.gt", "scalar.ge", "scalar.eq", "scalar.ne"}))
    return out == TypeKind::Bool && allOfKind(n, TypeKind::Int);
  if (isOneOf(n, {"scalar.not", "scalar.and", "scalar.or"})) return out == TypeKind::Bool && allOfKind(n, TypeKind::Bool);
  return false;
}

// An Assign in a kernel writes its whole base; the host walker writes only
// the region into a base that dies there (runtime/in_place_assign.h). A
// loop kernel writing a row per iteration into a large carried tensor would
// copy all of it every iteration, so such a loop stays on the host: a base
// over 64 KB and over 4 regions.
bool copiesALargeBase(const Node* n) {
  using namespace lowering;
  if (!isAssign(*n) || !isStaticTensor(n->input(0))) return false;
  const int64_t base = numel(shapeOf(n->input(0)));
  const int64_t region = isStaticTensor(n->input(1)) ? numel(shapeOf(n->input(1))) : 1;
  return base * (int64_t)dtypeSize(dtypeOf(n->input(0))) > (64 << 10) && base > 4 * region;
}

// The list.append that is a carried list's only use in the body, whose
// result is that slot's next value.
const Node* soleAppend(const Value* param, const Value* yield) {
  if (param->uses().size() != 1) return nullptr;
  const Node* user = param->uses()[0].user;
  if (!user->is("list.append") || user->input(0) != param || user->output() != yield) return nullptr;
  if (yield->uses().size() != 1 || !isStaticTensor(user->input(1))) return nullptr;
  return user;
}

// The chains of in-place writes of a loop's carried tensors: from a slot's
// parameter, each write's result read by the next write alone, to the
// slot's yield (the last result may have other readers: they read it
// before the next iteration's first write).
std::unordered_set<const Node*> inPlaceChains(const Node* loop) {
  std::unordered_set<const Node*> out;
  const Block* body = loop->block(0);
  for (size_t i = 1; i < body->params().size(); ++i) {
    if (!isStaticTensor(body->param(i))) continue;
    const Value* v = body->param(i);
    std::vector<const Node*> chain;
    while (v->uses().size() == 1) {
      const Node* user = v->uses()[0].user;
      if (!isLoopInPlaceAssign(user) || user->input(0) != v || user->owningBlock() != body) break;
      chain.push_back(user);
      v = user->output();
    }
    if (!chain.empty() && v == body->ret(i)) out.insert(chain.begin(), chain.end());
  }
  return out;
}

class Qualifier {
 public:
  explicit Qualifier(const KernelGraph& kernels) : kernels_(kernels) {}

  bool loop(const Node* loop, bool outermost) {
    if (loop->inputs().size() < 2 || loop->blocks().size() != 1) return false;
    const Block* body = loop->block(0);
    if (body->returns().empty()) return false;
    // A while loop's trip count is known only when it ends: no rows to
    // allocate for a list.
    const bool counted = isCountedLoop(loop);
    if (loop->input(0)->type()->kind() != TypeKind::Int || loop->input(1)->type()->kind() != TypeKind::Bool)
      return false;
    std::vector<const Node*> appends;
    for (size_t i = 2; i < loop->inputs().size(); ++i) {
      const Value* init = loop->input(i);
      const Value* param = body->param(i - 1);
      const Value* yield = body->ret(i - 1);
      if (isStaticTensor(init) || isScalarType(init)) {
        if (*init->type() != *yield->type()) return false;
        continue;
      }
      const Node* append = outermost && counted && init->type()->kind() == TypeKind::List && isEmptyListConstruct(init)
                               ? soleAppend(param, yield)
                               : nullptr;
      if (!append || append->owningBlock() != body) return false;
      appends.push_back(append);
    }
    if (outermost) inPlace_ = inPlaceChains(loop);
    bool anyKernel = false;
    for (const Node* n : *body) {
      if (std::find(appends.begin(), appends.end(), n) != appends.end()) continue;
      if (!node(n, anyKernel)) return false;
    }
    // Carried values are dense buffers.
    return anyKernel && std::none_of(body->returns().begin(), body->returns().end(), [&](const Value* v) {
             return views_.count(v) > 0;
           });
  }

 private:
  bool node(const Node* n, bool& anyKernel) {
    if (n->is("prim.constant")) return isScalarType(n->output());
    if (kernels_.inKernel.count(n) && copiesALargeBase(n)) return false;
    auto at = kernels_.kernelAt.find(n);
    if (at != kernels_.kernelAt.end()) {
      anyKernel = true;
      const Kernel& k = kernels_.kernels[at->second];
      if (k.kind == KernelKind::Attention) return attentionFits(k);
      return k.kind == KernelKind::GraphDefined && noneIsView(k.inputs);
    }
    if (kernels_.inKernel.count(n) || isLoopScalarOp(n)) return true;
    if (n->is("tssa.update")) return noneIsView(n->inputs());
    if (inPlace_.count(n)) return true;
    if (n->is("prim.loop")) {
      if (!noneIsView(n->inputs()) || !loop(n, false)) return false;
      anyKernel = true;
      return true;
    }
    if (n->is("immut.select_rev") || !loopViewOf(n)) return false;
    views_.insert(n->output());
    return true;
  }

  template <typename Values>
  bool noneIsView(const Values& values) const {
    return std::none_of(values.begin(), values.end(), [&](const Value* v) { return views_.count(v) > 0; });
  }

  // Whether v's last dim has stride 1: a dense buffer's does, and a view
  // keeps it unless it moves another dim last.
  bool lastDimUnitStride(const Value* v) const {
    if (!views_.count(v)) return true;
    const Node* n = v->node();
    const LoopView view = *loopViewOf(n);
    const int64_t last = n->input(0)->type()->rank() - 1;
    switch (view.op) {
      case LoopView::Op::Select:
      case LoopView::Op::Squeeze:
        if (view.dim == last) return false;
        break;
      case LoopView::Op::Slice:
        if (view.dim == last && view.step != 1) return false;
        break;
      case LoopView::Op::Unsqueeze:
        if (view.dim == last + 1) return true;
        break;
      case LoopView::Op::Transpose:
        if (view.dim != view.dim1 && (view.dim == last || view.dim1 == last)) return false;
        break;
      case LoopView::Op::Same: break;
    }
    return lastDimUnitStride(n->input(0));
  }

  // The attention kernel in a loop kernel: static query and output, the
  // operands' batch and head dims known and agreeing (what
  // attentionApplies checks on the host), key and value lengths provably
  // equal, last dims contiguous.
  bool attentionFits(const Kernel& k) const {
    const Node* n = k.nodes.back();
    const Value *q = n->input(0), *key = n->input(1), *value = n->input(2);
    if (!isStaticTensor(q) || !isStaticTensor(n->output()) || n->input(3)->type()->kind() != TypeKind::Float)
      return false;
    const int64_t r = q->type()->rank();
    for (const Value* t : {key, value})
      if (!t->type()->isTensor() || t->type()->rank() != r || *t->type()->dtype() != DType::f32) return false;
    if (r < 2 || *q->type()->dtype() != DType::f32) return false;
    const Dims& qs = *q->type()->shape();
    const Dims& ks = *key->type()->shape();
    const Dims& vs = *value->type()->shape();
    for (int64_t d = 0; d < r - 2; ++d)
      if (ks[d] != qs[d] || vs[d] != qs[d]) return false;
    if (ks[r - 1] != qs[r - 1] || vs[r - 1] < 0 || !sameLength(key, value, r - 2)) return false;
    return lastDimUnitStride(q) && lastDimUnitStride(key) && lastDimUnitStride(value);
  }

  // Whether a's and b's sizes along dim d are equal in every iteration:
  // both known and equal, or the same views (ops, dims, run-time operands)
  // of two values whose dims there are, down to the same slice of two
  // equally long dims.
  static bool sameLength(const Value* a, const Value* b, int64_t d) {
    const int64_t sa = (*a->type()->shape())[d], sb = (*b->type()->shape())[d];
    if (sa >= 0 || sb >= 0) return sa == sb;
    const Node *na = a->node(), *nb = b->node();
    if (!na || !nb || na->kind() != nb->kind() || na->is("immut.select_rev")) return false;
    const std::optional<LoopView> va = loopViewOf(na), vb = loopViewOf(nb);
    if (!va || !vb || va->op != vb->op || va->dim != vb->dim || va->dim1 != vb->dim1 || va->step != vb->step ||
        va->index != vb->index || va->end != vb->end)
      return false;
    using Op = LoopView::Op;
    const std::optional<Dims>& ba = na->input(0)->type()->shape();
    const std::optional<Dims>& bb = nb->input(0)->type()->shape();
    if (va->op == Op::Slice && va->dim == d) return ba && bb && (*ba)[d] >= 0 && (*ba)[d] == (*bb)[d];
    // The dim of the views' sources that d is.
    int64_t from = d;
    switch (va->op) {
      case Op::Select:
      case Op::Squeeze: from = d >= va->dim ? d + 1 : d; break;
      case Op::Unsqueeze: from = d > va->dim ? d - 1 : d; break;
      case Op::Transpose: from = d == va->dim ? va->dim1 : d == va->dim1 ? va->dim : d; break;
      case Op::Slice:
      case Op::Same: break;
    }
    return sameLength(na->input(0), nb->input(0), from);
  }

  const KernelGraph& kernels_;
  std::unordered_set<const Node*> inPlace_;  // the outermost loop's in-place writes
  std::unordered_set<const Value*> views_;   // values a loop view defines
};

int64_t gridBlocks(const Kernel& k) {
  int64_t n = 1;
  for (int64_t g : k.block.grid) n *= g;
  return n;
}

// Whether one of the two kernels reads or writes what the other writes.
bool conflict(const Kernel& p, const Kernel& q) {
  auto writes = [](const Kernel& k, const Value* v) {
    return std::find(k.outputs.begin(), k.outputs.end(), v) != k.outputs.end();
  };
  for (const std::vector<const Value*>* values : {&q.inputs, &q.outputs})
    for (const Value* v : *values)
      if (writes(p, v)) return true;
  for (const Value* v : p.inputs)
    if (writes(q, v)) return true;
  return false;
}

// Consecutive phases of a body (scalar steps between them change no
// memory) that conflict with none of the phases since the last barrier
// join their group; a nested loop, an append or the body's end closes it.
// A carried tensor's next value is written into the buffer its current
// value is not in (runtime/loop_kernel.h), so values never share memory
// within an iteration.
void placePhases(const Block* body, const KernelGraph& kernels, LoopKernel& loop) {
  std::vector<int> group;
  int64_t blocks = 0;
  for (const Node* n : *body) {
    if (n->is("prim.loop")) placePhases(n->block(0), kernels, loop);
    auto at = kernels.kernelAt.find(n);
    if (at == kernels.kernelAt.end()) {
      if (n->is("prim.loop") || n->is("list.append") || n->is("immut.select_rev")) {
        group.clear();
        blocks = 0;
      }
      continue;
    }
    const Kernel& q = kernels.kernels[at->second];
    // A kernel whose outputs are all empty is not called: it touches nothing.
    if (std::all_of(q.outputs.begin(), q.outputs.end(),
                    [](const Value* v) { return lowering::numel(lowering::shapeOf(v)) == 0; }))
      continue;
    // The attention kernel reads its operands through views, whose memory
    // the conflict check (by value) does not see: it meets the team before
    // and after (runtime/loop_kernel.h runs it with a barrier inside).
    if (q.kind == KernelKind::Attention) {
      group.clear();
      blocks = 0;
      loop.phases[at->second] = LoopKernel::Phase{true, 0};
      continue;
    }
    if (std::any_of(group.begin(), group.end(), [&](int g) { return conflict(kernels.kernels[g], q); })) {
      group.clear();
      blocks = 0;
    }
    if (!group.empty()) loop.phases[group.back()].barrierAfter = false;
    loop.phases[at->second] = LoopKernel::Phase{true, blocks};
    blocks += gridBlocks(q);
    group.push_back(at->second);
  }
}

void planBlock(const Block* block, KernelGraph& kernels) {
  for (const Node* n : *block) {
    if (n->is("prim.loop") && runsAsLoopKernel(n, kernels)) {
      kernels.loopAt[n] = (int)kernels.loops.size();
      LoopKernel loop{"loop" + std::to_string(kernels.loops.size()), n, {}};
      placePhases(n->block(0), kernels, loop);
      kernels.loops.push_back(std::move(loop));
      continue;
    }
    for (const Block* sub : n->blocks()) planBlock(sub, kernels);
  }
}

}  // namespace

std::optional<LoopView> loopViewOf(const Node* n) {
  using Op = LoopView::Op;
  if (n->inputs().empty() || !n->input(0)->type()->isTensor()) return std::nullopt;
  const std::optional<Dims>& shape = n->input(0)->type()->shape();
  const int64_t rank = shape ? (int64_t)shape->size() : -1;
  if (rank <= 0 || rank > kMaxLoopRank) return std::nullopt;
  LoopView v;
  const bool assign = n->is("immut.select_rev");
  if (assign || n->is("immut.select")) {
    const size_t first = assign ? 2 : 1;  // the view's arguments follow the source
    const std::optional<int64_t> d = constDim(n, first, rank);
    if (!d || !isIntArg(n, first + 1)) return std::nullopt;
    v.op = Op::Select;
    v.dim = *d;
    v.index = n->input(first + 1);
  } else if (n->is("immut.slice")) {
    const std::optional<int64_t> d = constDim(n, 1, rank);
    const std::optional<int64_t> step = n->inputs().size() > 4 ? lowering::constInt(n->input(4)) : std::nullopt;
    if (!d || !step || *step <= 0) return std::nullopt;
    v.op = Op::Slice;
    v.dim = *d;
    v.step = *step;
    for (size_t i : {2, 3}) {
      if (lowering::isNoneValue(n->input(i))) continue;
      if (!isIntArg(n, i)) return std::nullopt;
      (i == 2 ? v.index : v.end) = n->input(i);
    }
  } else if (n->is("immut.unsqueeze")) {
    const std::optional<int64_t> d = constDim(n, 1, rank + 1);
    if (!d || rank + 1 > kMaxLoopRank) return std::nullopt;
    v.op = Op::Unsqueeze;
    v.dim = *d;
  } else if (n->is("immut.squeeze")) {
    const std::optional<int64_t> d = constDim(n, 1, rank);
    if (!d || (*shape)[*d] < 0) return std::nullopt;
    v.op = (*shape)[*d] == 1 ? Op::Squeeze : Op::Same;
    v.dim = *d;
  } else if (n->is("immut.transpose")) {
    const std::optional<int64_t> d0 = constDim(n, 1, rank), d1 = constDim(n, 2, rank);
    if (!d0 || !d1) return std::nullopt;
    v.op = Op::Transpose;
    v.dim = *d0;
    v.dim1 = *d1;
  } else {
    return std::nullopt;
  }
  return v;
}

bool isLoopInPlaceAssign(const Node* n) {
  if (!n->is("immut.select_rev") || !loopViewOf(n)) return false;
  const Value *base = n->input(0), *src = n->input(1);
  if (!isStaticTensor(base) || !isStaticTensor(src) || *base->type()->dtype() != *src->type()->dtype()) return false;
  // The region (the base without the selected dim) takes src broadcast.
  Dims region = *base->type()->shape();
  region.erase(region.begin() + loopViewOf(n)->dim);
  const Dims& s = *src->type()->shape();
  if (s.size() > region.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const int64_t want = region[region.size() - s.size() + i];
    if (s[i] != want && s[i] != 1) return false;
  }
  return true;
}

bool isCountedLoop(const Node* loop) {
  const Constant* next = constantOf(loop->block(0)->ret(0));
  return next && next->isBool() && next->toBool();
}

bool runsAsLoopKernel(const Node* loop, const KernelGraph& kernels) {
  return Qualifier(kernels).loop(loop, true);
}

void planLoopKernels(const Graph& graph, KernelGraph& kernels) { planBlock(graph.top(), kernels); }

}  // namespace stitch
