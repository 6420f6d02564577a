#include "fusion/fusion_groups.h"

#include <functional>

#include <algorithm>
#include <map>

#include "fusion/fusion_rules.h"
#include "fusion/schedule_propagation.h"
#include "fusion/schedule_tuning.h"

namespace stitch {

namespace {

// Below this many root elements a group is too small for losing its
// parallel schedule to matter (one block finishes it in microseconds).
constexpr int64_t kParallelElements = int64_t(1) << 15;

const std::vector<int64_t>& shapeOf(const Value* v) {
  static const std::vector<int64_t> kUnknown{-1};
  const TypePtr& t = v->type();
  return t->isTensor() && t->shape() ? *t->shape() : kUnknown;
}

int64_t elementsOf(const Value* v) {
  int64_t n = 1;
  for (int64_t d : shapeOf(v)) n *= std::max<int64_t>(d, 0);
  return n;
}

}  // namespace

std::vector<const Value*> groupRoots(const std::vector<const Node*>& members,
                                     const std::unordered_set<const Node*>& inGroup, const BlockDeps& deps) {
  std::vector<const Value*> roots;
  for (const Node* n : members) {
    const auto& users = deps.usersOf(n);
    bool outside = deps.isReturned(n) ||
                   std::any_of(users.begin(), users.end(), [&](const Node* u) { return !inGroup.count(u); });
    if (outside) roots.push_back(n->output());
  }
  if (roots.empty() && !members.empty()) roots.push_back(members.back()->output());
  return roots;
}

BlockGroups::BlockGroups(const BlockDeps& deps, const FusionOptions& options) : deps_(deps), options_(options) {
  for (const Node* n : deps.nodes) {
    if (!options.kernelOp || !options.kernelOp(n)) continue;
    groupOf_[n] = (int)groups_.size();
    groups_.push_back(Group{{n}, 0, false, std::nullopt, elementsOf(n->output())});
  }
}

int BlockGroups::groupOf(const Node* n) const {
  auto it = groupOf_.find(n);
  return it == groupOf_.end() ? -1 : it->second;
}

std::vector<int> BlockGroups::live() const {
  std::vector<int> ids;
  for (size_t g = 0; g < groups_.size(); ++g)
    if (!groups_[g].nodes.empty()) ids.push_back((int)g);
  std::sort(ids.begin(), ids.end(), [&](int a, int b) {
    return deps_.pos(groups_[a].nodes.back()) < deps_.pos(groups_[b].nodes.back());
  });
  return ids;
}

std::vector<int> BlockGroups::consumersOf(int g) const {
  std::map<int, int> uses;
  for (const Node* n : members(g))
    for (const Node* u : deps_.usersOf(n)) {
      int c = groupOf(u);
      if (c >= 0 && c != g) ++uses[c];
    }
  std::vector<int> ids;
  for (const auto& [c, count] : uses) ids.push_back(c);
  std::sort(ids.begin(), ids.end(), [&](int a, int b) {
    if (uses[a] != uses[b]) return uses[a] > uses[b];
    return deps_.pos(groups_[a].nodes.back()) < deps_.pos(groups_[b].nodes.back());
  });
  return ids;
}

std::vector<const Value*> BlockGroups::inputsOf(int g) const {
  std::vector<const Value*> ins;
  for (const Node* n : members(g))
    for (const Value* v : n->inputs()) {
      if (!v->type()->isTensor() || groupOf(v->node()) == g) continue;
      if (std::find(ins.begin(), ins.end(), v) == ins.end()) ins.push_back(v);
    }
  return ins;
}

std::optional<Schedule> BlockGroups::parallelOf(const std::vector<const Node*>& nodes,
                                                const std::vector<const Value*>& roots) const {
  for (const Schedule& s : rankSchedules(nodes, roots, TuningOptions{options_.threads}))
    if (s.sword > 1) return s;
  return std::nullopt;
}

const std::optional<Schedule>& BlockGroups::parallelOf(int g) {
  Group& group = groups_.at(g);
  if (!group.parallelKnown) {
    std::unordered_set<const Node*> in(group.nodes.begin(), group.nodes.end());
    std::vector<const Value*> roots = groupRoots(group.nodes, in, deps_);
    group.parallel = parallelOf(group.nodes, roots);
    group.rootElements = elementsOf(roots.back());
    group.parallelKnown = true;
  }
  return group.parallel;
}

// Ranking every schedule of a large group at every merge would make fusion
// quadratic with a large constant, so a merge first tries the parallel
// schedules its parts already had, and ranks only when none of them holds.
const char* BlockGroups::check(const std::vector<const Node*>& nodes, const std::vector<int>& parts,
                               std::optional<Schedule>& parallel, int64_t& rootElements) {
  std::unordered_set<const Node*> in(nodes.begin(), nodes.end());
  if (const char* why = neverFuseReason(nodes, in, deps_, options_)) return why;
  int last = deps_.pos(nodes.back());
  for (const Node* n : nodes)
    for (const auto& [user, site] : deps_.useSitesOf(n))
      if (!in.count(user) && site < last) return "a value is used outside before the kernel runs";
  std::vector<const Value*> roots = groupRoots(nodes, in, deps_);
  for (const Value* r : roots)
    if (shapeOf(r) != shapeOf(roots.back())) return "roots of different shapes";
  rootElements = elementsOf(roots.back());
  // A schedule some part ran in parallel may still hold for the whole.
  bool needParallel = false;
  for (int g : parts) {
    const std::optional<Schedule>& p = parallelOf(g);
    if (!p) continue;
    needParallel |= groups_[g].rootElements >= kParallelElements;
    if (!parallel && propagateSchedule(nodes, roots.back(), *p)) parallel = *p;
  }
  if (parallel) return nullptr;
  if (!propagateSchedule(nodes, roots.back(), Schedule{})) return "no legal schedule";
  if (options_.threads <= 1 || !needParallel) return nullptr;
  parallel = parallelOf(nodes, roots);
  if (!parallel) return "the merge loses a parallel schedule";
  return nullptr;
}

std::vector<int> BlockGroups::sandwichedBy(const std::vector<int>& parts) const {
  std::set<int> in(parts.begin(), parts.end());
  // Groups downstream of the parts (outside them), in discovery order.
  std::vector<int> down;
  std::set<int> seen(in);
  for (size_t i = 0; i < parts.size() + down.size(); ++i) {
    int g = i < parts.size() ? parts[i] : down[i - parts.size()];
    for (int c : consumersOf(g))
      if (seen.insert(c).second) down.push_back(c);
  }
  // Those of them from which a part is reachable (through other groups).
  std::map<int, bool> reaches;
  std::function<bool(int)> reachesParts = [&](int g) {
    auto it = reaches.find(g);
    if (it != reaches.end()) return it->second;
    reaches[g] = false;  // cut cycles through non-kernel nodes' groups
    bool r = false;
    for (int c : consumersOf(g)) r = r || in.count(c) || reachesParts(c);
    return reaches[g] = r;
  };
  std::vector<int> out;
  for (int h : down)
    if (reachesParts(h)) out.push_back(h);
  return out;
}

bool BlockGroups::tryMerge(const std::vector<int>& ids) {
  std::vector<int> parts;
  for (int g : ids)
    if (std::find(parts.begin(), parts.end(), g) == parts.end() && !members(g).empty()) parts.push_back(g);
  if (parts.size() < 2) return false;
  // An Assign op brings the group making its base, and a group on a path
  // between two parts comes along (else it would have to run both before
  // and after the merged kernel): until nothing more joins.
  for (size_t before = 0; before != parts.size();) {
    before = parts.size();
    for (size_t i = 0; i < parts.size(); ++i)
      for (const Node* n : members(parts[i])) {
        if (!isAssignOp(n)) continue;
        int base = groupOf(n->input(0)->node());
        if (base >= 0 && std::find(parts.begin(), parts.end(), base) == parts.end()) parts.push_back(base);
      }
    for (int h : sandwichedBy(parts)) parts.push_back(h);
  }
  std::sort(parts.begin(), parts.end());
  std::vector<std::pair<int, int>> key;
  for (int g : parts) key.emplace_back(g, groups_[g].version);
  if (refused_.count(key)) return false;
  std::vector<const Node*> nodes;
  for (int g : parts) nodes.insert(nodes.end(), members(g).begin(), members(g).end());
  std::sort(nodes.begin(), nodes.end(), [&](const Node* a, const Node* b) { return deps_.pos(a) < deps_.pos(b); });
  std::optional<Schedule> parallel;
  int64_t rootElements = 0;
  const char* why = check(nodes, parts, parallel, rootElements);
  if (why) {
    refused_.insert(key);
    return false;
  }
  int into = parts.front();
  for (int g : parts) {
    if (g == into) continue;
    groups_[g].nodes.clear();
    ++groups_[g].version;
  }
  Group& merged = groups_[into];
  merged.nodes = std::move(nodes);
  ++merged.version;
  // Unknown when no part was parallel: ranked on demand (parallelOf).
  merged.parallelKnown = parallel.has_value();
  merged.parallel = parallel;
  merged.rootElements = rootElements;
  for (const Node* n : merged.nodes) groupOf_[n] = into;
  return true;
}

}  // namespace stitch
