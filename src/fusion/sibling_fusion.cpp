#include "fusion/sibling_fusion.h"

#include <algorithm>

namespace stitch {

namespace {

bool shareInput(const std::vector<const Value*>& a, const std::vector<const Value*>& b) {
  return std::any_of(a.begin(), a.end(), [&](const Value* v) { return std::find(b.begin(), b.end(), v) != b.end(); });
}

// Whether one group reads a value of the other (then deep fusion decides).
bool linked(const BlockGroups& groups, int a, int b) {
  for (int c : groups.consumersOf(a))
    if (c == b) return true;
  for (int c : groups.consumersOf(b))
    if (c == a) return true;
  return false;
}

bool siblingPass(BlockGroups& groups) {
  bool merged = false;
  std::vector<int> ids = groups.live();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (groups.members(ids[i]).empty()) continue;
    bool next = true;  // the first live group after ids[i]: its kernel runs right after
    for (size_t j = i + 1; j < ids.size(); ++j) {
      int a = ids[i], b = ids[j];
      if (groups.members(b).empty()) continue;
      bool adjacent = next;
      next = false;
      if (linked(groups, a, b)) continue;
      if (!adjacent && !shareInput(groups.inputsOf(a), groups.inputsOf(b))) continue;
      if (!groups.tryMerge({a, b})) continue;
      merged = true;
      // The merged group lives on under the smaller id.
      if (groups.members(a).empty()) break;
      next = true;
    }
  }
  return merged;
}

}  // namespace

bool fuseSiblings(BlockGroups& groups) {
  bool any = false;
  while (siblingPass(groups)) any = true;
  return any;
}

}  // namespace stitch
