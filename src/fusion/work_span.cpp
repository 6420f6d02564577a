#include "fusion/work_span.h"

#include <algorithm>

namespace stitch {

WorkSpan analyzeWorkSpan(const BlockDeps& deps, const std::function<bool(const Node*)>& selected) {
  WorkSpan ws;
  // Users come after their producers in a block, so one backward sweep
  // sees every user's span before the producer's.
  for (auto it = deps.nodes.rbegin(); it != deps.nodes.rend(); ++it) {
    const Node* n = *it;
    int span = 0;
    for (const Node* u : deps.usersOf(n)) span = std::max(span, ws.span.at(u) + 1);
    ws.span[n] = span;
  }
  for (const Node* n : deps.nodes) {
    if (!selected(n)) continue;
    int s = ws.span.at(n);
    if ((int)ws.layers.size() <= s) ws.layers.resize(s + 1);
    ws.layers[s].push_back(n);
    ++ws.work;
  }
  return ws;
}

}  // namespace stitch
