#include "passes/transposed_products.h"

#include <optional>

#include "passes/alias_analysis.h"

namespace stitch {

namespace {

bool rewrite(Graph& g, Node* n) {
  if (!(n->is("matmul") || n->is("bmm") || n->is("mm")) || n->inputs().size() != 2) return false;
  Value* a = n->input(0);
  Value* source = lastTwoDimsSwappedFrom(n->input(1));
  auto as = staticFloatShape(a);
  auto bs = source ? staticFloatShape(source) : std::nullopt;
  if (!as || !bs || as->size() != bs->size() || (as->size() != 2 && as->size() != 3)) return false;
  if (a->type()->dtype() != source->type()->dtype()) return false;
  const size_t rank = as->size();
  if ((*as)[rank - 1] != (*bs)[rank - 1] || (rank == 3 && (*as)[0] != (*bs)[0])) return false;
  if ((*as)[rank - 2] > kMaxTransposedProductRows) return false;
  Value* equation = g.constant(Constant(std::string(rank == 2 ? "ik,jk->ij" : "bik,bjk->bij")));
  TypePtr element = joinTypes(a->type(), source->type());
  Value* operands = emitBefore(g, n, "prim.list_construct", {a, source}, Type::list(element))->output();
  Value* product = emitBefore(g, n, "einsum", {equation, operands}, n->output()->type())->output();
  n->output()->replaceAllUsesWith(product);
  return true;
}

bool rewriteBlock(Graph& g, Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= rewriteBlock(g, *sub);
    if (node->outputs().size() == 1 && node->output()->hasUses() && rewrite(g, node)) changed = true;
  }
  return changed;
}

}  // namespace

Value* lastTwoDimsSwappedFrom(const Value* v) {
  if (v->isBlockParam()) return nullptr;
  const Node* n = v->node();
  if (!(n->is("immut.transpose") || n->is("immut.permute"))) return nullptr;
  const TypePtr& t = n->input(0)->type();
  if (!t || !t->isTensor() || !t->shape() || t->shape()->size() < 2) return nullptr;
  const int64_t rank = (int64_t)t->shape()->size();
  auto normalized = [&](int64_t d) { return d < 0 ? d + rank : d; };
  if (n->is("immut.transpose")) {
    const Constant* d0 = constantOf(n->input(1));
    const Constant* d1 = constantOf(n->input(2));
    if (!d0 || !d1 || !d0->isInt() || !d1->isInt()) return nullptr;
    int64_t a = normalized(d0->toInt()), b = normalized(d1->toInt());
    bool lastTwo = (a == rank - 2 && b == rank - 1) || (a == rank - 1 && b == rank - 2);
    return lastTwo ? n->input(0) : nullptr;
  }
  const Constant* p = constantOf(n->input(1));
  if (!p || !p->isIntList() || (int64_t)p->toIntList().size() != rank) return nullptr;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t want = d == rank - 2 ? rank - 1 : d == rank - 1 ? rank - 2 : d;
    if (normalized(p->toIntList()[d]) != want) return nullptr;
  }
  return n->input(0);
}

bool readTransposedOperandsInPlace(Graph& graph) { return rewriteBlock(graph, *graph.top()); }

}  // namespace stitch
