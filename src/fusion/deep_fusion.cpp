#include "fusion/deep_fusion.h"

namespace stitch {

namespace {

// One walk over the layers; whether anything merged.
bool deepPass(BlockGroups& groups, const WorkSpan& layers) {
  bool merged = false;
  for (const std::vector<const Node*>& layer : layers.layers) {
    for (auto it = layer.rbegin(); it != layer.rend(); ++it) {
      int g = groups.groupOf(*it);
      if (g < 0) continue;
      for (int consumer : groups.consumersOf(g)) {
        if (!groups.tryMerge({consumer, g})) continue;
        merged = true;
        break;
      }
    }
  }
  return merged;
}

}  // namespace

bool fuseDeep(BlockGroups& groups, const WorkSpan& layers) {
  bool any = false;
  while (deepPass(groups, layers)) any = true;
  return any;
}

}  // namespace stitch
