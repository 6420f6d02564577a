#include "passes/rename.h"

#include <map>

namespace stitch {

namespace {

using Versions = std::map<const Value*, Value*>;

Value* current(const Versions& env, Value* v) {
  for (auto it = env.find(v); it != env.end() && it->second != v; it = env.find(v)) v = it->second;
  return v;
}

void renameBlock(Block* b, Versions env) {
  for (Node* n : *b) {
    if (n->is("tssa.update")) {
      Value* newer = n->input(0);
      Value* old = n->input(1);
      Value* now = current(env, old);
      env[old] = newer;
      if (now != newer) env[now] = newer;
      continue;
    }
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      Value* v = current(env, n->input(i));
      if (v != n->input(i)) n->replaceInput(i, v);
    }
    for (Block* sub : n->blocks()) renameBlock(sub, env);
  }
  for (size_t i = 0; i < b->returns().size(); ++i) {
    Value* v = current(env, b->ret(i));
    if (v != b->ret(i)) b->replaceReturn(i, v);
  }
}

}  // namespace

void renameVersions(Graph& graph) { renameBlock(graph.top(), {}); }

}  // namespace stitch
