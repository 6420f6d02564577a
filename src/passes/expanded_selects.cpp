#include "passes/expanded_selects.h"

#include <optional>
#include <set>

#include "ir/op_registry.h"
#include "passes/writes.h"

namespace stitch {

namespace {

// Every value some write lands in, and the views it lands through.
void collectWrittenViews(const Block* b, std::set<const Value*>& out) {
  for (const Node* n : *b) {
    for (const Block* sub : n->blocks()) collectWrittenViews(sub, out);
    if (!isWrite(n)) continue;
    for (const Value* v = n->input(0);; v = v->node()->input(0)) {
      out.insert(v);
      if (!v->node() || !v->node()->schema().isView() || v->node()->inputs().empty()) break;
    }
  }
}

std::optional<std::vector<int64_t>> staticShape(const Value* v) {
  const TypePtr& t = v->type();
  if (!t->isTensor() || !t->fullyKnown()) return std::nullopt;
  return *t->shape();
}

std::optional<int64_t> constantInt(const Value* v) {
  const Constant* c = constantOf(v);
  if (!c || !c->isInt()) return std::nullopt;
  return c->toInt();
}

Value* emit(Graph& g, Node* before, const std::string& op, const std::vector<Value*>& ins, TypePtr type) {
  Node* n = g.create(op, ins);
  n->output()->setType(std::move(type));
  n->setLoc(before->loc());
  before->owningBlock()->insertBefore(before, n);
  return n->output();
}

// The select again as a view of the expand's input; null when the dim is
// not broadcast or something is not static.
Value* throughExpand(Graph& g, Node* select) {
  const Node* expand = select->input(0)->node();
  if (!expand || (!expand->is("expand") && !expand->is("expand_as"))) return nullptr;
  Value* base = expand->input(0);
  auto full = staticShape(select->input(0));
  auto small = staticShape(base);
  auto dim = constantInt(select->input(1));
  auto index = constantInt(select->input(2));
  if (!full || !small || !dim || !index) return nullptr;
  int64_t rank = (int64_t)full->size();
  int64_t d = *dim < 0 ? *dim + rank : *dim;
  if (d < 0 || d >= rank || *index < -(*full)[d] || *index >= (*full)[d]) return nullptr;
  int64_t leading = rank - (int64_t)small->size();
  std::vector<int64_t> rest = *full;
  rest.erase(rest.begin() + d);
  DType dtype = *select->output()->type()->dtype();
  Value* source = base;
  if (d >= leading) {
    int64_t inner = d - leading;
    if ((*small)[inner] != 1) return nullptr;
    std::vector<int64_t> picked = *small;
    picked.erase(picked.begin() + inner);
    Value* zero = g.constant(Constant((int64_t)0));
    source = emit(g, select, "select", {base, g.constant(Constant(inner)), zero}, Type::tensor(dtype, picked));
  }
  if (*source->type()->shape() == rest) return source;  // nothing left to broadcast
  return emit(g, select, "expand", {source, g.constant(Constant(rest))}, Type::tensor(dtype, rest));
}

bool visit(Graph& g, Block* b, const std::set<const Value*>& written) {
  bool changed = false;
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) changed |= visit(g, sub, written);
    if (!n->is("select") || !written.count(n->output())) continue;
    Value* view = throughExpand(g, n);
    if (!view) continue;
    n->output()->replaceAllUsesWith(view);
    n->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace

bool selectThroughExpands(Graph& graph) {
  std::set<const Value*> written;
  collectWrittenViews(graph.top(), written);
  return visit(graph, graph.top(), written);
}

}  // namespace stitch
