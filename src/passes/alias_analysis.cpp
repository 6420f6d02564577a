#include "passes/alias_analysis.h"

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

Node* emitBefore(Graph& g, Node* anchor, const std::string& op, const std::vector<Value*>& inputs,
                 TypePtr type) {
  Node* n = g.create(op, inputs);
  if (type) n->output()->setType(std::move(type));
  n->setLoc(anchor->loc());
  anchor->owningBlock()->insertBefore(anchor, n);
  return n;
}

}  // namespace stitch
