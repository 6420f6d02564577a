#include "passes/cse.h"

#include <map>
#include <string>
#include <vector>

#include "ir/op_registry.h"

namespace stitch {

namespace {

// What makes two nodes equal, spelled out: schema, inputs, attributes and
// output types (a constant 1 of type int and of type float differ).
std::string keyOf(const Node* n) {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(&n->schema()));
  for (const Value* v : n->inputs()) key += " %" + std::to_string(v->id());
  for (const auto& [name, value] : n->attrs()) key += " " + name + "=" + value.str();
  for (const Value* v : n->outputs()) key += " :" + (v->type() ? v->type()->str() : "?");
  return key;
}

bool isMergeable(const Node* n) { return n->blocks().empty() && n->schema().isPure(); }

// Scopes of seen nodes: one map per open block, innermost last.
class Merger {
 public:
  bool mergeBlock(Block& block) {
    scopes_.emplace_back();
    bool changed = false;
    for (Node* node : block.nodes()) {
      for (Block* sub : node->blocks()) changed |= mergeBlock(*sub);
      if (!isMergeable(node)) continue;
      std::string key = keyOf(node);
      if (Node* earlier = find(key)) {
        for (size_t i = 0; i < node->outputs().size(); ++i)
          node->output(i)->replaceAllUsesWith(earlier->output(i));
        node->destroy();
        changed = true;
        continue;
      }
      scopes_.back()[key] = node;
    }
    scopes_.pop_back();
    return changed;
  }

 private:
  Node* find(const std::string& key) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(key);
      if (found != it->end()) return found->second;
    }
    return nullptr;
  }

  std::vector<std::map<std::string, Node*>> scopes_;
};

}  // namespace

bool eliminateCommonSubexpressions(Graph& graph) { return Merger().mergeBlock(*graph.top()); }

}  // namespace stitch
