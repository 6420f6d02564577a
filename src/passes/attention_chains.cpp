#include "passes/attention_chains.h"

#include <optional>

#include "ir/shape_util.h"
#include "passes/alias_analysis.h"
#include "passes/transposed_products.h"

namespace stitch {

namespace {

// The rank of an f32 tensor value of known rank, or -1.
int64_t f32Rank(const Value* v) {
  const TypePtr& t = v->type();
  if (!t || !t->isTensor() || !t->shape() || t->dtype() != DType::f32) return -1;
  return (int64_t)t->shape()->size();
}

const Dims& dimsOf(const Value* v) { return *v->type()->shape(); }

// Whether `user` is the one use of `v`.
bool usedOnceBy(const Value* v, const Node* user) {
  return v->uses().size() == 1 && v->uses().front().user == user;
}

std::optional<int64_t> intConstant(const Value* v) {
  const Constant* c = constantOf(v);
  if (!c || !c->isInt()) return std::nullopt;
  return c->toInt();
}

// Dim d of a rank-r tensor, as a non-negative index.
int64_t wrapped(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }

struct Chain {
  Value* q = nullptr;
  Value* k = nullptr;
  Value* v = nullptr;
  double scale = 1.0;
};

// The scale of `t = s * c`, `c * s` or `s / c` (c a constant number), with s.
std::optional<std::pair<Value*, double>> scaled(Value* t) {
  if (t->isBlockParam()) return std::nullopt;
  Node* n = t->node();
  if (n->is("matmul")) return std::make_pair(t, 1.0);
  if (n->inputs().size() != 2 || !(n->is("mul") || n->is("div"))) return std::nullopt;
  for (int side = 0; side < (n->is("mul") ? 2 : 1); ++side) {
    const Constant* c = constantOf(n->input(1 - side));
    if (!c || !(c->isInt() || c->isFloat())) continue;
    double value = c->toDouble();
    if (n->is("div")) value = 1.0 / value;
    Value* s = n->input(side);
    if (!usedOnceBy(s, n) || s->isBlockParam() || !s->node()->is("matmul")) return std::nullopt;
    return std::make_pair(s, value);
  }
  return std::nullopt;
}

std::optional<Chain> match(Node* out) {
  if (!out->is("matmul") || out->inputs().size() != 2) return std::nullopt;
  Value* p = out->input(0);
  Chain chain;
  chain.v = out->input(1);
  const int64_t rank = f32Rank(out->output());
  if (rank < 2 || p->isBlockParam() || !usedOnceBy(p, out) || !p->node()->is("softmax")) return std::nullopt;
  Node* softmax = p->node();
  auto dim = intConstant(softmax->input(1));
  const Constant* dtype = constantOf(softmax->input(2));
  if (!dim || wrapped(*dim, rank) != rank - 1 || !dtype || !dtype->isNone()) return std::nullopt;
  Value* t = softmax->input(0);
  if (!usedOnceBy(t, softmax)) return std::nullopt;
  auto s = scaled(t);
  if (!s) return std::nullopt;
  Node* scores = s->first->node();
  chain.scale = s->second;
  if (scores->inputs().size() != 2) return std::nullopt;
  chain.q = scores->input(0);
  Value* kt = scores->input(1);
  chain.k = lastTwoDimsSwappedFrom(kt);
  if (!chain.k) return std::nullopt;
  for (const Value* x : {chain.q, chain.k, chain.v, p, t, s->first})
    if (f32Rank(x) != rank) return std::nullopt;
  // Same static batch sizes: the products would broadcast otherwise.
  const Dims &q = dimsOf(chain.q), &k = dimsOf(chain.k), &v = dimsOf(chain.v);
  for (int64_t d = 0; d < rank - 2; ++d)
    if (q[d] < 0 || q[d] != k[d] || q[d] != v[d]) return std::nullopt;
  return chain;
}

bool rewriteBlock(Graph& g, Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= rewriteBlock(g, *sub);
    if (node->outputs().size() != 1 || !node->output()->hasUses()) continue;
    std::optional<Chain> chain = match(node);
    if (!chain) continue;
    Value* scale = g.constant(Constant(chain->scale));
    Node* fused = emitBefore(g, node, "fused.attention", {chain->q, chain->k, chain->v, scale}, node->output()->type());
    node->output()->replaceAllUsesWith(fused->output());
    changed = true;
  }
  return changed;
}

}  // namespace

bool formAttentionChains(Graph& graph) { return rewriteBlock(graph, *graph.top()); }

}  // namespace stitch
