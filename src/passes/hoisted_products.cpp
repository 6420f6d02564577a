#include "passes/hoisted_products.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/dtype.h"
#include "passes/alias_analysis.h"

namespace stitch {

namespace {

std::optional<int64_t> intConstant(const Value* v) {
  const Constant* c = constantOf(v);
  if (!c || !c->isInt()) return std::nullopt;
  return c->toInt();
}

bool definedInside(const Value* v, const Node* loop) {
  for (const Node* n = v->node()->owningNode(); n; n = n->owningNode())
    if (n == loop) return true;
  return false;
}

// `v` = immut.select(source, 0, index) with source from outside the loop.
Value* rowOf(Value* v, const Value* index, const Node* loop) {
  if (v->isBlockParam() || !v->node()->is("immut.select")) return nullptr;
  const Node* n = v->node();
  if (intConstant(n->input(1)) != 0 || (index && n->input(2) != index) || definedInside(n->input(0), loop))
    return nullptr;
  return n->input(0);
}

// One product to hoist: y = x_t @ B, B = W[entry] (a stack) or W itself.
struct Product {
  Node* node;
  Value* rows;  // xs: [T, K] or [T, M, K]
  Value* weights;
  std::optional<int64_t> entry;  // the stack's entry, when W is one
};

std::optional<Product> hoistable(Node* n, const Node* loop, int64_t trips) {
  if (!n->is("matmul") || n->inputs().size() != 2 || !n->output()->hasUses()) return std::nullopt;
  const Value* counter = loop->block(0)->param(0);
  Value* rows = rowOf(n->input(0), counter, loop);
  if (!rows) return std::nullopt;
  Product p{n, rows, n->input(1), std::nullopt};
  if (definedInside(p.weights, loop)) {
    Value* stack = rowOf(p.weights, nullptr, loop);
    std::optional<int64_t> entry = stack ? intConstant(p.weights->node()->input(2)) : std::nullopt;
    if (!entry) return std::nullopt;
    p.weights = stack;
    p.entry = entry;
  }
  auto xs = staticFloatShape(rows);
  auto w = staticFloatShape(p.weights);
  if (!xs || !w || rows->type()->dtype() != p.weights->type()->dtype()) return std::nullopt;
  if ((xs->size() != 2 && (xs->size() != 3 || (*xs)[1] != 1)) || (*xs)[0] != trips || trips < 2)
    return std::nullopt;
  const size_t matrix = p.entry ? 1 : 0;  // where W's [K, N] starts
  if (w->size() != matrix + 2 || (*w)[matrix] != xs->back()) return std::nullopt;
  if (p.entry && (*p.entry < 0 || *p.entry >= (*w)[0])) return std::nullopt;
  // The whole product lives through the loop.
  const int64_t bytes = (p.entry ? (*w)[0] : 1) * trips * (xs->size() == 3 ? (*xs)[1] : 1) * w->back() *
                        (int64_t)dtypeSize(*rows->type()->dtype());
  if (bytes > kMaxHoistedProductBytes) return std::nullopt;
  return p;
}

// The counted loops' trip counts: constant, the body's condition true.
std::optional<int64_t> countedTrips(const Node* loop) {
  const Constant* next = constantOf(loop->block(0)->ret(0));
  if (!next || !next->isBool() || !next->toBool()) return std::nullopt;
  return intConstant(loop->input(0));
}

TypePtr tensorLike(const Value* v, std::vector<int64_t> shape) { return Type::tensor(v->type()->dtype(), shape); }

// The whole product for (rows, weights) before the loop: [G, T*M, N] (a
// stack) or [T*M, N], the rows of a rank-3 xs flattened first.
Value* hoist(Graph& g, Node* loop, Value* rows, Value* weights, bool stack) {
  const std::vector<int64_t> xs = *staticFloatShape(rows), w = *staticFloatShape(weights);
  const int64_t t = xs[0], m = xs.size() == 3 ? xs[1] : 1, k = xs.back(), n = w.back();
  Value* a = rows;
  if (xs.size() == 3)
    a = emitBefore(g, loop, "immut.view", {rows, g.constant(Constant(std::vector<int64_t>{t * m, k}))},
                   tensorLike(rows, {t * m, k}))
            ->output();
  std::vector<int64_t> product = {t * m, n};
  if (stack) product.insert(product.begin(), w[0]);
  return emitBefore(g, loop, "matmul", {a, weights}, tensorLike(rows, product))->output();
}

Value* viewBefore(Graph& g, Node* anchor, const char* op, Value* v, std::vector<Value*> args,
                  std::vector<int64_t> shape) {
  args.insert(args.begin(), v);
  return emitBefore(g, anchor, op, args, tensorLike(v, std::move(shape)))->output();
}

bool rewriteLoop(Graph& g, Node* loop) {
  const std::optional<int64_t> trips = countedTrips(loop);
  if (!trips) return false;
  std::vector<Product> products;
  for (Node* n : loop->block(0)->nodes())
    if (std::optional<Product> p = hoistable(n, loop, *trips)) products.push_back(*p);
  // A stack is worth its whole product when the loop uses half its entries.
  std::map<std::pair<Value*, Value*>, std::set<int64_t>> used;
  for (const Product& p : products)
    if (p.entry) used[{p.rows, p.weights}].insert(*p.entry);
  std::map<std::pair<Value*, Value*>, Value*> hoisted;
  bool changed = false;
  for (const Product& p : products) {
    const std::pair<Value*, Value*> key{p.rows, p.weights};
    if (p.entry && 2 * (int64_t)used[key].size() < (*staticFloatShape(p.weights))[0]) continue;
    Value*& whole = hoisted[key];
    if (!whole) whole = hoist(g, loop, p.rows, p.weights, p.entry.has_value());
    // This step's rows of the product: [M, N] (M = 1), or [N] for rows of rank 2.
    Value* zero = g.constant(Constant((int64_t)0));
    std::vector<int64_t> shape = *staticFloatShape(whole);
    Value* part = whole;
    if (p.entry) {
      shape.erase(shape.begin());
      part = viewBefore(g, p.node, "immut.select", part, {zero, g.constant(Constant(*p.entry))}, shape);
    }
    const int64_t n = shape.back();
    Value* row = viewBefore(g, p.node, "immut.select", part, {zero, loop->block(0)->param(0)}, {n});
    if (staticFloatShape(p.rows)->size() == 3) row = viewBefore(g, p.node, "immut.unsqueeze", row, {zero}, {1, n});
    p.node->output()->replaceAllUsesWith(row);
    changed = true;
  }
  return changed;
}

bool rewriteBlock(Graph& g, Block& block) {
  bool changed = false;
  for (Node* node : block.nodes()) {
    for (Block* sub : node->blocks()) changed |= rewriteBlock(g, *sub);
    if (node->is("prim.loop")) changed |= rewriteLoop(g, node);
  }
  return changed;
}

}  // namespace

bool hoistLoopInvariantProducts(Graph& graph) { return rewriteBlock(graph, *graph.top()); }

}  // namespace stitch
