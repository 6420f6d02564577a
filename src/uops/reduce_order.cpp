#include "uops/reduce_order.h"

#include <optional>

namespace stitch {

namespace {

// The value of an i64 index node with every iteration and reduce variable
// at the given point; nullopt when it depends on data or parameters.
class IndexProbe {
 public:
  IndexProbe(const ThreadGraph& tg, int iterDim, int reduceVar) : tg_(tg), iterDim_(iterDim), reduceVar_(reduceVar) {}

  std::optional<int64_t> at(int node, bool iterStep, bool reduceStep) {
    iterStep_ = iterStep;
    reduceStep_ = reduceStep;
    return eval(node, 0);
  }

 private:
  std::optional<int64_t> eval(int id, int depth) {
    const TNode& n = tg_.node(id);
    if (depth > 64 || n.dtype != DType::i64) return std::nullopt;
    switch (n.op) {
      case TOp::IterVar: return (iterStep_ && n.index == iterDim_) ? 1 : 0;
      case TOp::ReduceVar: return (reduceStep_ && n.index == reduceVar_) ? 1 : 0;
      case TOp::Const: return n.ival;
      case TOp::Alu: break;
      case TOp::Param:
      case TOp::Load:
      case TOp::Cast:
      case TOp::Reduce: return std::nullopt;
    }
    std::optional<int64_t> a = eval(n.args[0], depth + 1), b;
    if (!a) return std::nullopt;
    if (n.args.size() > 1 && !(b = eval(n.args[1], depth + 1))) return std::nullopt;
    switch (n.alu) {
      case AluOp::Neg: return -*a;
      case AluOp::Add: return *a + *b;
      case AluOp::Sub: return *a - *b;
      case AluOp::Mul: return *a * *b;
      case AluOp::Div:
      case AluOp::FloorDiv: return *b > 0 && *a >= 0 ? std::optional<int64_t>(*a / *b) : std::nullopt;
      case AluOp::Mod:
      case AluOp::Remainder: return *b > 0 && *a >= 0 ? std::optional<int64_t>(*a % *b) : std::nullopt;
      case AluOp::Max: return std::max(*a, *b);
      case AluOp::Min: return std::min(*a, *b);
      default: return std::nullopt;
    }
  }

  const ThreadGraph& tg_;
  int iterDim_, reduceVar_;
  bool iterStep_ = false, reduceStep_ = false;
};

std::vector<char> neededNodes(const ThreadGraph& tg) {
  const auto& nodes = tg.nodes();
  std::vector<char> needed(nodes.size(), 0);
  for (const auto& s : tg.stores()) needed.at(s.value) = 1;
  for (int i = (int)nodes.size() - 1; i >= 0; --i)
    if (needed[i])
      for (int a : nodes[i].args) needed[a] = 1;
  return needed;
}

}  // namespace

std::vector<int> outputLoopOrder(const BlockGraph& block) {
  const ThreadGraph& tg = block.thread;
  const auto& nodes = tg.nodes();
  const int numLoops = (int)block.loops.size();
  std::vector<int> order(numLoops);
  for (int l = 0; l < numLoops; ++l) order[l] = l;
  if (numLoops < 2) return order;
  std::vector<int> loopOfDim(tg.iterShape().size(), -1);
  for (int l = 0; l < numLoops; ++l)
    for (int d : block.loops[l].iterDims) loopOfDim.at(d) = l;
  std::vector<char> needed = neededNodes(tg);
  std::vector<char> usedByReduce(numLoops, 0);
  bool heavy = false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!needed[i] || nodes[i].op != TOp::Reduce) continue;
    int64_t work = 1;
    for (int v : nodes[i].reduceVars) work *= tg.reduceExtent(v);
    heavy |= work >= kMinReuseWork;
    std::vector<char> sub(i + 1, 0);
    sub[i] = 1;
    for (int k = (int)i; k >= 0; --k) {
      if (!sub[k]) continue;
      if (nodes[k].op == TOp::IterVar) usedByReduce[loopOfDim.at(nodes[k].index)] = 1;
      for (int a : nodes[k].args) sub[a] = 1;
    }
  }
  if (!heavy) return order;
  order.clear();
  for (int l = 0; l < numLoops; ++l)
    if (usedByReduce[l]) order.push_back(l);
  for (int l = 0; l < numLoops; ++l)
    if (!usedByReduce[l]) order.push_back(l);
  return order;
}

std::vector<int> outerReduceNodes(const BlockGraph& block, const std::vector<int>& order, int splitLoop,
                                  int64_t chunk) {
  const ThreadGraph& tg = block.thread;
  const auto& nodes = tg.nodes();
  if (order.empty() || block.loops.at(order.back()).iterDims.empty()) return {};
  const LoopDim& inner = block.loops.at(order.back());
  const int innerDim = inner.iterDims.back();
  if (tg.iterShape()[innerDim] < 2) return {};
  std::vector<char> needed = neededNodes(tg);
  // Per node: whether it depends on the inner loop.
  std::vector<char> usesInner(nodes.size(), 0);
  std::vector<int> reduces;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TNode& n = nodes[i];
    if (n.op == TOp::IterVar)
      usesInner[i] = std::find(inner.iterDims.begin(), inner.iterDims.end(), (int)n.index) != inner.iterDims.end();
    for (int a : n.args) usesInner[i] |= usesInner[a];
    if (n.op == TOp::Reduce && needed[i]) reduces.push_back((int)i);
  }
  // A reduction inside another one's loops: keep the plain order.
  for (int r : reduces) {
    std::vector<int> own(nodes[r].reduceVars.begin(), nodes[r].reduceVars.end());
    std::vector<char> sub(r + 1, 0);
    sub[nodes[r].args[0]] = 1;
    for (int k = nodes[r].args[0]; k >= 0; --k) {
      if (!sub[k]) continue;
      if (nodes[k].op == TOp::ReduceVar && std::find(own.begin(), own.end(), (int)nodes[k].index) == own.end())
        return {};
      if (nodes[k].op == TOp::Reduce) continue;  // another reduction's own loops
      for (int a : nodes[k].args) sub[a] = 1;
    }
  }
  std::vector<int> chosen;
  bool innerContiguous = false, reduceStrided = false;
  for (int r : reduces) {
    if (!usesInner[r]) continue;  // hoisted out of the inner loop anyway
    const TNode& n = nodes[r];
    if (n.reduceVars.empty()) return {};
    for (int v : n.reduceVars)
      if (tg.reduceExtent(v) < 1) return {};
    IndexProbe probe(tg, innerDim, n.reduceVars.back());
    std::vector<char> sub(r + 1, 0);
    sub[n.args[0]] = 1;
    for (int k = n.args[0]; k >= 0; --k) {
      if (!sub[k]) continue;
      if (nodes[k].op == TOp::Reduce) continue;
      for (int a : nodes[k].args) sub[a] = 1;
      if (nodes[k].op != TOp::Load) continue;
      int idx = nodes[k].args[0];
      auto base = probe.at(idx, false, false), di = probe.at(idx, true, false), dr = probe.at(idx, false, true);
      if (!base || !di || !dr) continue;
      if (*dr - *base == 1) return {};  // contiguous along the reduction already
      if (*di - *base == 1) innerContiguous = true;
      if (*dr != *base) reduceStrided = true;
    }
    chosen.push_back(r);
  }
  if (chosen.empty() || !innerContiguous || !reduceStrided) return {};
  int64_t locals = order.back() == splitLoop ? std::min(chunk, inner.extent) : inner.extent;
  if (locals < 2 || locals * (int64_t)chosen.size() > kMaxLocalAccumulators) return {};
  return chosen;
}

}  // namespace stitch
