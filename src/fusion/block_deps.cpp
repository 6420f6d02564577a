#include "fusion/block_deps.h"

#include <algorithm>

namespace stitch {

namespace {

const std::vector<const Node*> kNone;

// The node of `block` that holds `n` (n itself, or the loop / if around it);
// null when n is not nested in block.
const Node* ancestorIn(const Node* n, const Block* block) {
  while (n && n->owningBlock() != block) n = n->owningNode();
  return n;
}

// A list built for exactly one kernel op of its own block.
bool absorbable(const Node* n, const Block* block, const std::function<bool(const Node*)>& kernelOp) {
  if (!n->is("prim.list_construct") || n->outputs().size() != 1) return false;
  const std::vector<Use>& uses = n->output()->uses();
  if (uses.size() != 1) return false;
  const Node* user = uses.front().user;
  return user->owningBlock() == block && user != block->returnNode() && kernelOp && kernelOp(user);
}

void addUnique(std::vector<const Node*>& list, const Node* n) {
  if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
}

}  // namespace

const std::vector<const Node*>& BlockDeps::usersOf(const Node* n) const {
  auto it = users.find(n);
  return it == users.end() ? kNone : it->second;
}

const std::vector<std::pair<const Node*, int>>& BlockDeps::useSitesOf(const Node* n) const {
  static const std::vector<std::pair<const Node*, int>> kNoSites;
  auto it = useSites.find(n);
  return it == useSites.end() ? kNoSites : it->second;
}

const std::vector<const Node*>& BlockDeps::producersOf(const Node* n) const {
  auto it = producers.find(n);
  return it == producers.end() ? kNone : it->second;
}

BlockDeps analyzeBlockDeps(const Block* block, const std::function<bool(const Node*)>& kernelOp) {
  BlockDeps d;
  d.block = block;
  for (const Node* n : *block) {
    d.position[n] = (int)d.nodes.size();
    d.nodes.push_back(n);
    if (absorbable(n, block, kernelOp)) d.absorbedLists.insert(n);
  }
  for (const Node* n : d.nodes) {
    std::vector<const Node*>& users = d.users[n];
    for (const Value* v : n->outputs()) {
      for (const Use& u : v->uses()) {
        const Node* user = ancestorIn(u.user, block);
        STITCH_ASSERT(user != nullptr, "a use of a value outside its block's scope");
        if (user == block->returnNode()) {
          d.returned.insert(n);
          continue;
        }
        int site = d.pos(user);
        if (d.absorbedLists.count(user)) user = user->output()->uses().front().user;
        addUnique(users, user);
        d.useSites[n].emplace_back(user, site);
      }
    }
    std::sort(users.begin(), users.end(), [&](const Node* a, const Node* b) { return d.pos(a) < d.pos(b); });
  }
  for (const Node* n : d.nodes)
    for (const Node* u : d.users[n]) addUnique(d.producers[u], n);
  for (auto& [n, list] : d.producers)
    std::sort(list.begin(), list.end(), [&](const Node* a, const Node* b) { return d.pos(a) < d.pos(b); });
  return d;
}

}  // namespace stitch
