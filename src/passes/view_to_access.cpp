#include "passes/view_to_access.h"

#include <algorithm>
#include <numeric>

#include "ir/op_registry.h"
#include "ir/view_shape.h"

namespace stitch {

namespace {

std::optional<int64_t> constInt(const Value* v) {
  const Constant* c = constantOf(v);
  if (c == nullptr || !c->isInt()) return std::nullopt;
  return c->toInt();
}

std::optional<std::vector<int64_t>> knownShape(const Value* v) {
  const TypePtr& t = v->type();
  if (!t->isTensor() || !t->shape()) return std::nullopt;
  for (int64_t d : *t->shape())
    if (d < 0) return std::nullopt;
  return *t->shape();
}

int64_t wrapDim(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }

// Where a slice starts (PyTorch: None is 0, negative counts from the end,
// then clamped to the size); nullopt when known only at run time.
std::optional<int64_t> sliceStart(const Value* start, int64_t size) {
  const Constant* c = constantOf(start);
  if (c != nullptr && c->isNone()) return 0;
  if (c == nullptr || !c->isInt()) return std::nullopt;
  int64_t s = c->toInt() < 0 ? c->toInt() + size : c->toInt();
  return std::clamp<int64_t>(s, 0, size);
}

// l moved to element `index` along dim (a negative index counts from the
// end); a run-time index adds the dim's stride to the offset step.
void moveOffset(StaticLayout& l, int64_t dim, std::optional<int64_t> index) {
  if (!index) {
    l.offsetStep = std::gcd(l.offsetStep, l.strides[dim]);
    return;
  }
  int64_t i = *index < 0 ? *index + l.sizes[dim] : *index;
  l.offset += i * l.strides[dim];
}

[[noreturn]] void unsupported(const Node* n, const std::string& why) {
  throw UserError("functionalization: " + why, n->loc());
}

// chunk/split/unbind pieces, for dynamic list.get on the list.
struct PieceList {
  std::string op;   // chunk, split or unbind
  Value* base;
  Value* dim;
  bool selects;     // unbind
  int64_t uniform;  // piece length for a dynamic index; -1 if pieces differ
  std::vector<Value*> pieces;
};

class ViewConverter {
 public:
  explicit ViewConverter(Graph& g) : g_(g) {}

  AliasTree run() {
    visit(g_.top());
    return std::move(tree_);
  }

 private:
  void visit(Block* b) {
    for (Node* n : b->nodes()) {
      for (Block* sub : n->blocks()) visit(sub);
      convert(n);
    }
  }

  void convert(Node* n) {
    if (n->is("list.get")) return listGet(n);
    if (n->is("prim.list_unpack")) return listUnpack(n);
    if (!n->schema().isView()) return;
    const std::string& k = n->kind();
    if (k == "chunk" || k == "split" || k == "unbind") return pieces(n);
    if (k == "view") requireViewable(n, n->input(0));
    if (k == "select" || k == "slice" || k == "view" || k == "permute" || k == "transpose" ||
        k == "unsqueeze" || k == "expand")
      return replaceWithAccess(n, "immut." + k, n->inputs());
    if (k == "squeeze") {
      Value* dim = n->inputs().size() > 1 ? n->input(1) : g_.constant(Constant());
      return replaceWithAccess(n, "immut.squeeze", {n->input(0), dim});
    }
    if (k == "narrow") return narrow(n);
    if (k == "t") return transposeT(n);
    if (k == "movedim") return movedim(n);
    if (k == "expand_as") return replaceWithAccess(n, "immut.expand", {n->input(0), sizeOf(n, n->input(1))});
    if (k == "view_as") requireViewable(n, n->input(0));
    if (k == "view_as") return replaceWithAccess(n, "immut.view", {n->input(0), sizeOf(n, n->input(1))});
    if (k == "reshape") return reshapeLike(n, n->input(1));
    if (k == "reshape_as") return reshapeLike(n, sizeOf(n, n->input(1)));
    if (k == "flatten") return flatten(n);
    if (k == "contiguous") return contiguous(n);
    unsupported(n, "no immutable Access op for view op '" + k + "'");
  }

  Value* sizeOf(Node* at, Value* t) {
    return emitBefore(g_, at, "size", {t}, Type::list(Type::intT()))->output();
  }

  Value* intConst(int64_t v) {
    auto it = intConsts_.find(v);
    if (it != intConsts_.end()) return it->second;
    return intConsts_[v] = g_.constant(Constant(v));
  }

  // Emits the Access node for a view node, records it, and replaces the view.
  void replaceWithAccess(Node* view, const std::string& op, const std::vector<Value*>& ins) {
    Value* v = emitAccess(view, op, ins, view->output()->type(), true);
    view->output()->replaceAllUsesWith(v);
    v->setDebugName(view->output()->debugName());
    view->destroy();
  }

  Value* emitAccess(Node* at, const std::string& op, const std::vector<Value*>& ins, TypePtr type,
                    bool aliases) {
    Node* a = emitBefore(g_, at, op, ins, std::move(type));
    if (!aliases) return a->output();
    tree_.add(a->output(), AliasKind::TensorView, {ins.front()});
    if (auto l = deriveLayout(a)) tree_.setLayout(a->output(), *l);
    return a->output();
  }

  void replaceWithValue(Node* view, Value* v) {
    view->output()->replaceAllUsesWith(v);
    view->destroy();
  }

  void narrow(Node* n) {
    Value* start = n->input(2);
    std::optional<int64_t> s = constInt(start), len = constInt(n->input(3));
    auto shape = knownShape(n->input(0));
    auto dim = constInt(n->input(1));
    Value* end;
    if (s && len && shape && dim) {
      int64_t size = (*shape)[wrapDim(*dim, (int64_t)shape->size())];
      int64_t first = *s < 0 ? *s + size : *s;
      start = intConst(first);
      end = intConst(first + *len);
    } else {
      end = emitBefore(g_, n, "scalar.add", {start, n->input(3)}, Type::intT())->output();
    }
    replaceWithAccess(n, "immut.slice", {n->input(0), n->input(1), start, end, intConst(1)});
  }

  void transposeT(Node* n) {
    int64_t rank = n->input(0)->type()->rank();
    if (rank < 0) unsupported(n, "t() needs a known rank");
    if (rank < 2) return replaceWithValue(n, n->input(0));
    replaceWithAccess(n, "immut.transpose", {n->input(0), intConst(0), intConst(1)});
  }

  void movedim(Node* n) {
    int64_t rank = n->input(0)->type()->rank();
    auto s = constInt(n->input(1)), d = constInt(n->input(2));
    if (rank < 0 || !s || !d) unsupported(n, "movedim needs a known rank and constant dims");
    Value* perm = g_.constant(Constant(movedimPermutation(*s, *d, rank)));
    replaceWithAccess(n, "immut.permute", {n->input(0), perm});
  }

  // reshape views its input when strides allow, else it copies (a root).
  void reshapeLike(Node* n, Value* size) {
    bool views = viewable(n);
    Value* v = emitAccess(n, "immut.view", {n->input(0), size}, n->output()->type(), views);
    v->setDebugName(n->output()->debugName());
    replaceWithValue(n, v);
  }

  void flatten(Node* n) {
    auto out = knownShape(n->output());
    if (!out) unsupported(n, "flatten needs a static output shape");
    Value* size = g_.constant(Constant(*out));
    reshapeLike(n, size);
  }

  void contiguous(Node* n) {
    Value* base = n->input(0);
    auto l = layoutOf(base);
    bool isContiguous = l ? isContiguousLayout(*l) : !tree_.isAlias(base);
    if (!l && tree_.isAlias(base)) unsupported(n, "contiguous() of a view needs static shapes");
    if (isContiguous) return replaceWithValue(n, base);
    Node* c = emitBefore(g_, n, "clone", {base}, n->output()->type());
    replaceWithValue(n, c->output());
  }

  bool viewable(Node* n) {
    Value* base = n->input(0);
    auto l = layoutOf(base);
    auto out = knownShape(n->output());
    if (l && out) return computeViewStrides(l->sizes, l->strides, *out).has_value();
    if (!tree_.isAlias(base)) return true;  // roots are contiguous
    unsupported(n, "reshape of a view needs static shapes to tell view from copy");
  }

  // view() never copies: PyTorch raises where the strides do not allow a
  // view, and so does the imperative program at run time.
  void requireViewable(Node* n, Value* base) {
    auto l = layoutOf(base);
    auto out = knownShape(n->output());
    if (l && out) {
      if (computeViewStrides(l->sizes, l->strides, *out)) return;
      std::string name = base->debugName().empty() ? "a tensor" : "'" + base->debugName() + "'";
      unsupported(n, "view() of " + name + ", whose strides do not allow that shape without a copy; not supported");
    }
    if (!tree_.isAlias(base) || isInputListElement(base)) return;  // contiguous, as tensor inputs are
    unsupported(n, "view() of a view or list element needs static strides to check it; not supported");
  }

  bool isInputListElement(const Value* v) {
    const AliasInfo* info = tree_.info(v);
    if (info == nullptr || info->kind != AliasKind::ListElement) return false;
    const std::vector<Value*>& inputs = g_.inputs();
    return std::find(inputs.begin(), inputs.end(), info->parents.front()) != inputs.end();
  }

  void pieces(Node* n) {
    Value* base = n->input(0);
    auto shape = knownShape(base);
    auto dimC = constInt(n->kind() == "unbind" ? n->input(1) : n->input(2));
    if (!shape || !dimC) unsupported(n, n->kind() + " needs a static shape and a constant dim");
    int64_t rank = (int64_t)shape->size();
    int64_t dim = wrapDim(*dimC, rank);
    int64_t size = (*shape)[dim];
    PieceList pl{n->kind(), base, intConst(dim), n->is("unbind"), -1, {}};
    std::vector<int64_t> lengths;
    if (n->is("unbind")) {
      lengths.assign(size, 1);
    } else if (n->is("chunk")) {
      lengths = chunkLengths(size, *constInt(n->input(1)));
      pl.uniform = lengths.empty() ? -1 : lengths.front();
    } else if (n->input(1)->type()->kind() == TypeKind::Int) {
      lengths = splitLengths(size, *constInt(n->input(1)));
      pl.uniform = *constInt(n->input(1));
    } else {
      const Constant* c = constantOf(n->input(1));
      if (c == nullptr || !c->isIntList()) unsupported(n, "split sizes must be constant");
      lengths = c->toIntList();
    }
    int64_t start = 0;
    for (int64_t len : lengths) {
      std::vector<int64_t> pieceShape = *shape;
      Value* piece;
      if (pl.selects) {
        pieceShape.erase(pieceShape.begin() + dim);
        piece = emitAccess(n, "immut.select", {base, pl.dim, intConst(start)},
                           Type::tensor(base->type()->dtype(), pieceShape), true);
      } else {
        pieceShape[dim] = len;
        piece = emitAccess(n, "immut.slice", {base, pl.dim, intConst(start), intConst(start + len), intConst(1)},
                           Type::tensor(base->type()->dtype(), pieceShape), true);
      }
      pl.pieces.push_back(piece);
      start += len;
    }
    Node* list = emitBefore(g_, n, "prim.list_construct", pl.pieces, n->output()->type());
    if (!pl.pieces.empty()) tree_.add(list->output(), AliasKind::ListOfViews, pl.pieces);
    pieceLists_[list->output()] = pl;
    replaceWithValue(n, list->output());
  }

  void listGet(Node* n) {
    if (!n->output()->type()->isTensor()) return;
    auto it = pieceLists_.find(n->input(0));
    if (it == pieceLists_.end()) {
      tree_.add(n->output(), AliasKind::ListElement, {n->input(0)});
      return;
    }
    const PieceList& pl = it->second;
    if (auto k = constInt(n->input(1))) {
      int64_t count = (int64_t)pl.pieces.size();
      int64_t idx = *k < 0 ? *k + count : *k;
      if (idx < 0 || idx >= count) return;  // left for run time to report
      return replaceWithValue(n, pl.pieces[idx]);
    }
    if (pl.selects) return replaceWithAccess(n, "immut.select", {pl.base, pl.dim, n->input(1)});
    if (pl.uniform < 0) unsupported(n, "dynamic index into split() with explicit sizes");
    // Python indexing: a negative index counts from the end.
    Value* count = intConst((int64_t)pl.pieces.size());
    Value* index = emitBefore(g_, n, "scalar.mod", {n->input(1), count}, Type::intT())->output();
    Value* start = emitBefore(g_, n, "scalar.mul", {index, intConst(pl.uniform)}, Type::intT())->output();
    Value* end = emitBefore(g_, n, "scalar.add", {start, intConst(pl.uniform)}, Type::intT())->output();
    replaceWithAccess(n, "immut.slice", {pl.base, pl.dim, start, end, intConst(1)});
  }

  void listUnpack(Node* n) {
    Value* list = n->input(0);
    auto it = pieceLists_.find(list);
    if (it != pieceLists_.end() && it->second.pieces.size() != n->outputs().size()) {
      unsupported(n, "unpacking the " + std::to_string(it->second.pieces.size()) + " pieces of " +
                         it->second.op + "() into " + std::to_string(n->outputs().size()) +
                         " names; not supported");
    }
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      Value* out = n->output(i);
      if (!out->type()->isTensor()) continue;
      Value* replacement;
      if (it != pieceLists_.end()) {
        replacement = it->second.pieces[i];
      } else {
        Node* get = emitBefore(g_, n, "list.get", {list, intConst((int64_t)i)}, out->type());
        tree_.add(get->output(), AliasKind::ListElement, {list});
        replacement = get->output();
      }
      out->replaceAllUsesWith(replacement);
    }
    bool used = std::any_of(n->outputs().begin(), n->outputs().end(), [](Value* o) { return o->hasUses(); });
    if (!used) n->destroy();
  }

  std::optional<StaticLayout> layoutOf(Value* v) { return tree_.layoutOf(v); }

  std::optional<StaticLayout> deriveLayout(Node* a);

  Graph& g_;
  AliasTree tree_;
  std::map<const Value*, PieceList> pieceLists_;
  std::map<int64_t, Value*> intConsts_;
};

std::optional<StaticLayout> ViewConverter::deriveLayout(Node* a) {
  auto parent = layoutOf(a->input(0));
  auto out = knownShape(a->output());
  if (!parent || !out) return std::nullopt;
  StaticLayout l = *parent;
  int64_t rank = (int64_t)l.sizes.size();
  const std::string& k = a->kind();
  if (k == "immut.select") {
    auto d = constInt(a->input(1));
    if (!d) return std::nullopt;
    int64_t dim = wrapDim(*d, rank);
    moveOffset(l, dim, constInt(a->input(2)));
    l.strides.erase(l.strides.begin() + dim);
  } else if (k == "immut.slice") {
    auto d = constInt(a->input(1));
    auto step = constInt(a->input(4));
    if (!d || !step) return std::nullopt;
    int64_t dim = wrapDim(*d, rank);
    moveOffset(l, dim, sliceStart(a->input(2), l.sizes[dim]));
    l.strides[dim] *= *step;
  } else if (k == "immut.view") {
    auto s = computeViewStrides(l.sizes, l.strides, *out);
    if (!s) return StaticLayout{*out, contiguousStridesOf(*out)};  // a copy
    l.strides = *s;
  } else if (k == "immut.permute" || k == "immut.transpose") {
    std::vector<int64_t> perm(rank);
    for (int64_t i = 0; i < rank; ++i) perm[i] = i;
    if (k == "immut.transpose") {
      auto d0 = constInt(a->input(1)), d1 = constInt(a->input(2));
      if (!d0 || !d1) return std::nullopt;
      std::swap(perm[wrapDim(*d0, rank)], perm[wrapDim(*d1, rank)]);
    } else {
      const Constant* c = constantOf(a->input(1));
      if (c == nullptr || !c->isIntList()) return std::nullopt;
      perm = c->toIntList();
    }
    std::vector<int64_t> strides;
    for (int64_t p : perm) strides.push_back(l.strides[wrapDim(p, rank)]);
    l.strides = strides;
  } else if (k == "immut.unsqueeze") {
    auto d = constInt(a->input(1));
    if (!d) return std::nullopt;
    int64_t dim = wrapDim(*d, rank + 1);
    int64_t stride = dim < rank ? l.sizes[dim] * l.strides[dim] : 1;
    l.strides.insert(l.strides.begin() + dim, stride);
  } else if (k == "immut.squeeze") {
    auto d = constInt(a->input(1));
    std::vector<int64_t> strides;
    for (int64_t i = 0; i < rank; ++i) {
      bool drop = l.sizes[i] == 1 && (!d || wrapDim(*d, rank) == i);
      if (!drop) strides.push_back(l.strides[i]);
    }
    l.strides = strides;
  } else if (k == "immut.expand") {
    int64_t newRank = (int64_t)out->size();
    std::vector<int64_t> strides(newRank, 0);
    for (int64_t i = 0; i < newRank; ++i) {
      int64_t j = i - (newRank - rank);
      if (j >= 0 && !(l.sizes[j] == 1 && (*out)[i] != 1)) strides[i] = l.strides[j];
    }
    l.strides = strides;
  } else {
    return std::nullopt;
  }
  l.sizes = *out;
  if (l.sizes.size() != l.strides.size()) return std::nullopt;
  return l;
}

}  // namespace

AliasTree convertViewsToAccess(Graph& graph) { return ViewConverter(graph).run(); }

}  // namespace stitch
