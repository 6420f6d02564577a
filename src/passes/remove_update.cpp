#include "passes/remove_update.h"

namespace stitch {

namespace {

void removeMarkers(Block* b) {
  for (Node* n : b->nodes()) {
    for (Block* sub : n->blocks()) removeMarkers(sub);
    if (n->is("tssa.update")) n->destroy();
  }
}

// Nodes functionalization introduces and that are dead once unread.
bool isFunctionalHelper(const Node* n) {
  const std::string& k = n->kind();
  return k.rfind("immut.", 0) == 0 || k == "prim.list_construct" || k == "list.get" ||
         k == "list.set" || k == "size";
}

bool unused(const Node* n) {
  for (const Value* o : n->outputs())
    if (o->hasUses()) return false;
  return true;
}

// Walks backwards so a chain of dead helpers goes in one sweep.
bool removeDeadHelpers(Block* b) {
  bool changed = false;
  std::vector<Node*> nodes = b->nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node* n = *it;
    for (Block* sub : n->blocks()) changed |= removeDeadHelpers(sub);
    if (isFunctionalHelper(n) && unused(n)) {
      n->destroy();
      changed = true;
    }
  }
  return changed;
}

}  // namespace

void removeUpdates(Graph& graph) {
  removeMarkers(graph.top());
  while (removeDeadHelpers(graph.top())) {
  }
}

}  // namespace stitch
