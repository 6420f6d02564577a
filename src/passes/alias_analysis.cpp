#include "passes/alias_analysis.h"

#include <algorithm>
#include <numeric>

namespace stitch {

void AliasTree::add(Value* v, AliasKind kind, std::vector<Value*> parents) {
  STITCH_ASSERT(!parents.empty(), "alias without parent");
  infos_[v] = AliasInfo{kind, std::move(parents)};
  byRoot_[rootOf(v)].push_back(v);
}

const AliasInfo* AliasTree::info(const Value* v) const {
  auto it = infos_.find(v);
  return it == infos_.end() ? nullptr : &it->second;
}

Value* AliasTree::rootOf(Value* v) const {
  while (const AliasInfo* i = info(v)) v = i->parents.front();
  return v;
}

std::vector<Value*> AliasTree::aliasesOf(Value* root) const {
  auto it = byRoot_.find(root);
  return it == byRoot_.end() ? std::vector<Value*>{} : it->second;
}

Value* AliasTree::tensorBaseOf(Value* v) const {
  while (const AliasInfo* i = info(v)) {
    if (i->kind != AliasKind::TensorView) break;
    v = i->parents.front();
  }
  return v;
}

std::optional<StaticLayout> AliasTree::layoutOf(const Value* v) const {
  auto it = layouts_.find(v);
  if (it != layouts_.end()) return it->second;
  const TypePtr& t = v->type();
  if (isAlias(v) || !t->isTensor() || !t->shape()) return std::nullopt;
  for (int64_t d : *t->shape())
    if (d < 0) return std::nullopt;
  return StaticLayout{*t->shape(), contiguousStridesOf(*t->shape())};
}

std::vector<int64_t> contiguousStridesOf(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = expected;
    expected *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

bool isContiguousLayout(const StaticLayout& l) {
  int64_t expected = 1;
  for (size_t i = l.sizes.size(); i-- > 0;) {
    if (l.sizes[i] == 0) return true;
    if (l.sizes[i] == 1) continue;
    if (l.strides[i] != expected) return false;
    expected *= l.sizes[i];
  }
  return true;
}

bool hasInternalOverlap(const StaticLayout& l) {
  for (size_t d = 0; d < l.sizes.size(); ++d)
    if (l.sizes[d] > 1 && l.strides[d] == 0) return true;
  return false;
}

namespace {

int64_t numelOf(const StaticLayout& l) {
  return std::accumulate(l.sizes.begin(), l.sizes.end(), (int64_t)1, std::multiplies<int64_t>());
}

// The dims of size > 1, ordered by stride, form one contiguous block.
bool isNonOverlappingAndDense(const StaticLayout& l) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < l.sizes.size(); ++d)
    if (l.sizes[d] != 1) dims.push_back(d);
  std::sort(dims.begin(), dims.end(), [&](size_t a, size_t b) { return l.strides[a] < l.strides[b]; });
  int64_t expected = 1;
  for (size_t d : dims) {
    if (l.strides[d] != expected) return false;
    expected *= l.sizes[d];
  }
  return true;
}

// Equal sizes and strides; a size-1 dim's stride never reaches another
// element, so it may differ.
bool sameGeometry(const StaticLayout& a, const StaticLayout& b) {
  if (a.sizes != b.sizes) return false;
  for (size_t d = 0; d < a.sizes.size(); ++d)
    if (a.sizes[d] != 1 && a.strides[d] != b.strides[d]) return false;
  return true;
}

}  // namespace

LayoutOverlap layoutOverlap(const StaticLayout& a, const StaticLayout& b) {
  int64_t na = numelOf(a), nb = numelOf(b);
  if (na == 0 || nb == 0) return LayoutOverlap::Disjoint;
  bool sameShape = sameGeometry(a, b);
  int64_t step = std::gcd(a.offsetStep, b.offsetStep);
  int64_t diff = a.offset - b.offset;  // a's offset less b's, up to multiples of step
  if (step == 0 && diff == 0 && sameShape) return LayoutOverlap::SameView;
  if (!isNonOverlappingAndDense(a) || !isNonOverlappingAndDense(b)) return LayoutOverlap::Undecidable;
  // Dense ranges [oa, oa + na) and [ob, ob + nb) meet iff -na < oa - ob < nb.
  if (step == 0) return -na < diff && diff < nb ? LayoutOverlap::Overlapping : LayoutOverlap::Disjoint;
  int64_t r = ((diff + na) % step + step) % step;
  for (int64_t d = -na + (r == 0 ? step : r); d < nb; d += step)  // each d > -na congruent to diff
    if (d != 0 || !sameShape) return LayoutOverlap::Overlapping;
  return LayoutOverlap::Disjoint;  // or the same view, depending on the indices
}

std::optional<std::vector<int64_t>> staticFloatShape(const Value* v) {
  const TypePtr& t = v->type();
  if (!t || !t->isTensor() || !t->fullyKnown() || !t->dtype() || !isFloating(*t->dtype())) return std::nullopt;
  return *t->shape();
}

Node* emitBefore(Graph& g, Node* anchor, const std::string& op, const std::vector<Value*>& inputs,
                 TypePtr type) {
  Node* n = g.create(op, inputs);
  if (type) n->output()->setType(std::move(type));
  n->setLoc(anchor->loc());
  anchor->owningBlock()->insertBefore(anchor, n);
  return n;
}

}  // namespace stitch
