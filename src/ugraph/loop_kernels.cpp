#include "ugraph/loop_kernels.h"

#include <algorithm>

#include "ugraph/lowering.h"

namespace stitch {

namespace {

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
    bool anyKernel = false;
    for (const Node* n : *body) {
      if (std::find(appends.begin(), appends.end(), n) != appends.end()) continue;
      if (!node(n, anyKernel)) return false;
    }
    return anyKernel;
  }

 private:
  bool node(const Node* n, bool& anyKernel) {
    if (n->is("prim.constant")) return isScalarType(n->output());
    if (kernels_.inKernel.count(n) && copiesALargeBase(n)) return false;
    auto at = kernels_.kernelAt.find(n);
    if (at != kernels_.kernelAt.end()) {
      anyKernel = true;
      return kernels_.kernels[at->second].kind == KernelKind::GraphDefined;
    }
    if (kernels_.inKernel.count(n) || n->is("tssa.update") || isLoopScalarOp(n)) return true;
    if (!n->is("prim.loop") || !loop(n, false)) return false;
    anyKernel = true;
    return true;
  }

  const KernelGraph& kernels_;
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
      if (n->is("prim.loop") || n->is("list.append")) {
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

bool isCountedLoop(const Node* loop) {
  const Constant* next = constantOf(loop->block(0)->ret(0));
  return next && next->isBool() && next->toBool();
}

bool runsAsLoopKernel(const Node* loop, const KernelGraph& kernels) {
  return Qualifier(kernels).loop(loop, true);
}

void planLoopKernels(const Graph& graph, KernelGraph& kernels) { planBlock(graph.top(), kernels); }

}  // namespace stitch
