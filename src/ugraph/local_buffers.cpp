#include "ugraph/local_buffers.h"

#include <algorithm>
#include <map>

#include "common/error.h"
#include "ugraph/lowering.h"

namespace stitch {

namespace {

struct Decision {
  const Value* value;
  std::vector<char> fixed;
};

// Lowers every output with the decided buffers; records the requests of
// `probe` (when not null).
void lowerOnce(Kernel& kernel, const std::vector<Decision>& decided, const Value* probe,
               std::vector<std::vector<int>>* requests, std::vector<int>* results) {
  const Dims& shape = lowering::shapeOf(kernel.outputs[0]);
  kernel.inputs.clear();
  kernel.params.clear();
  kernel.block.locals.clear();
  kernel.block.thread = ThreadGraph(shape);
  ThreadGraph& tg = kernel.block.thread;
  std::unordered_set<const Node*> group(kernel.nodes.begin(), kernel.nodes.end());
  LowerContext ctx(tg, group, kernel);
  for (const Decision& d : decided) {
    const Dims& vs = lowering::shapeOf(d.value);
    int64_t elements = 1;
    for (size_t k = 0; k < vs.size(); ++k)
      if (!d.fixed[k]) elements *= vs[k];
    LocalBuffer lb;
    lb.name = "tile" + std::to_string(kernel.block.locals.size());
    lb.dtype = lowering::dtypeOf(d.value);
    lb.elements = elements;
    lb.value = d.value;
    ctx.bufferValue(d.value, d.fixed, (int)kernel.block.locals.size());
    kernel.block.locals.push_back(lb);
  }
  if (probe) ctx.recordRequests(probe);
  std::vector<int> idx;
  for (int d = 0; d < (int)shape.size(); ++d) idx.push_back(tg.iterVar(d));
  for (size_t k = 0; k < kernel.outputs.size(); ++k) {
    const Value* out = kernel.outputs[k];
    STITCH_ASSERT(lowering::shapeOf(out) == shape, "kernel ", kernel.name, " outputs of different shapes");
    tg.store((int)k, tg.cast(ctx.element(out, idx), lowering::dtypeOf(out)));
  }
  if (!probe) return;
  *requests = ctx.requests(probe);
  *results = ctx.requestResults(probe);
}

// Per node: whether it depends on a reduce variable.
std::vector<char> reduceVarDependence(const ThreadGraph& tg) {
  const auto& nodes = tg.nodes();
  std::vector<char> dep(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    dep[i] = nodes[i].op == TOp::ReduceVar;
    for (int a : nodes[i].args) dep[i] |= dep[a];
  }
  return dep;
}

// Whether an element costs no more than reading it back: loads, index
// arithmetic, casts and selections between loaded values (copies and
// access ops), no float arithmetic and no reduction.
bool cheapElement(const ThreadGraph& tg, int node) {
  std::vector<int> stack{node};
  std::vector<char> seen(tg.nodes().size(), 0);
  while (!stack.empty()) {
    int k = stack.back();
    stack.pop_back();
    if (seen[k]) continue;
    seen[k] = 1;
    const TNode& n = tg.node(k);
    switch (n.op) {
      case TOp::IterVar:
      case TOp::ReduceVar:
      case TOp::Const:
      case TOp::Param:
      case TOp::BlockIndex: continue;
      case TOp::Load:
      case TOp::LocalLoad:
      case TOp::Cast: break;
      case TOp::Alu:
        if (isFloating(n.dtype) && n.alu != AluOp::Where) return false;
        break;
      case TOp::Reduce:
      case TOp::Fill: return false;
    }
    if (n.op == TOp::LocalLoad) continue;  // the fill is paid once already
    for (int a : n.args) stack.push_back(a);
  }
  return true;
}

// The fixed dims of a value from its requests, or nullopt when buffering it
// gains nothing (see local_buffers.h).
std::optional<std::vector<char>> tileOf(const ThreadGraph& tg, const Value* v,
                                        const std::vector<std::vector<int>>& requests,
                                        const std::vector<int>& results) {
  if (requests.size() < 2) return std::nullopt;
  if (std::all_of(results.begin(), results.end(), [&](int r) { return cheapElement(tg, r); })) return std::nullopt;
  const Dims& shape = lowering::shapeOf(v);
  std::vector<char> dep = reduceVarDependence(tg);
  std::vector<char> fixed(shape.size(), 1);
  int64_t tile = 1;
  bool anyTileDim = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    int first = requests[0][d];
    for (const auto& r : requests) fixed[d] &= r[d] == first;
    fixed[d] &= !dep[first];
    if (fixed[d]) continue;
    anyTileDim = true;
    tile *= shape[d];
  }
  if (!anyTileDim || tile * (int64_t)dtypeSize(lowering::dtypeOf(v)) > kMaxTileBytes) return std::nullopt;
  return fixed;
}

}  // namespace

void lowerThreadGraph(Kernel& kernel, const SharedMemoryPlan* plan) {
  std::vector<Decision> decided;
  if (plan) {
    std::unordered_set<const Node*> members(kernel.nodes.begin(), kernel.nodes.end());
    std::vector<const Value*> candidates;
    for (const SharedBuffer& b : plan->buffers)
      if (b.value && members.count(b.value->node()) && b.value->type()->isTensor()) candidates.push_back(b.value);
    // Consumers before producers: a buffered consumer asks for its operands
    // once, from its fill, which changes what they are asked for.
    std::map<const Node*, size_t> position;
    for (size_t i = 0; i < kernel.nodes.size(); ++i) position[kernel.nodes[i]] = i;
    std::sort(candidates.begin(), candidates.end(),
              [&](const Value* a, const Value* b) { return position.at(a->node()) > position.at(b->node()); });
    for (const Value* v : candidates) {
      std::vector<std::vector<int>> requests;
      std::vector<int> results;
      lowerOnce(kernel, decided, v, &requests, &results);
      if (auto fixed = tileOf(kernel.block.thread, v, requests, results)) decided.push_back({v, *fixed});
    }
  }
  lowerOnce(kernel, decided, nullptr, nullptr, nullptr);
  // Arena offsets in the order of the buffers (each its own space).
  int64_t offset = 0;
  for (LocalBuffer& lb : kernel.block.locals) {
    lb.offset = offset;
    offset += (lb.elements * (int64_t)dtypeSize(lb.dtype) + 63) / 64 * 64;
  }
}

}  // namespace stitch
