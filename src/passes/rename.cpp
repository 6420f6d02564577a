#include "passes/rename.h"

#include <map>
#include <set>

#include "common/error.h"

namespace stitch {

namespace {

// `links` maps a name to the version that replaced it; `versions` holds
// every version a marker has introduced in scope.
struct Versions {
  std::map<const Value*, Value*> links;
  std::set<const Value*> versions;
};

Value* current(const Versions& env, Value* v) {
  for (auto it = env.links.find(v); it != env.links.end(); it = env.links.find(v)) v = it->second;
  return v;
}

// The chains stay acyclic because every marker's `newer` is a value no
// earlier marker named (rewrite-mutation makes one per write, block
// propagation one per carried slot or branch output): each link added
// points at a value with no link of its own yet.
void link(Versions& env, Node* update) {
  Value* newer = update->input(0);
  Value* old = update->input(1);
  STITCH_ASSERT(newer != old && !env.links.count(newer) && !env.versions.count(newer),
                "tssa.update names ", newer->debugName(), " as a new version twice");
  Value* now = current(env, old);
  env.links[old] = newer;
  if (now != old) env.links[now] = newer;
  env.versions.insert(newer);
}

void renameBlock(Block* b, Versions env) {
  for (Node* n : *b) {
    if (n->is("tssa.update")) {
      link(env, n);
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
