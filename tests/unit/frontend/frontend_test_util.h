// Helpers for frontend tests: emit a source string, count and find nodes,
// check user errors with their exact location.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "ir/graph.h"
#include "ir/verifier.h"

namespace stitch::testing {

inline std::unique_ptr<Graph> emitSource(const std::string& src, const std::string& fn = "") {
  auto module = SourceModule::parse(src, "test.py");
  std::unique_ptr<Graph> g = module->emit(fn);
  verifyGraph(*g);
  return g;
}

inline void forEachNode(const Block* b, const std::function<void(const Node*)>& f) {
  for (Node* n : *b) {
    f(n);
    for (const Block* sub : n->blocks()) forEachNode(sub, f);
  }
}

// Number of nodes of one kind anywhere in the graph (nested blocks included).
inline int countNodes(const Graph& g, const std::string& kind) {
  int count = 0;
  forEachNode(g.top(), [&](const Node* n) { count += n->kind() == kind; });
  return count;
}

// The nodes of one kind in program order.
inline std::vector<const Node*> findNodes(const Graph& g, const std::string& kind) {
  std::vector<const Node*> out;
  forEachNode(g.top(), [&](const Node* n) {
    if (n->kind() == kind) out.push_back(n);
  });
  return out;
}

// Kinds of the nodes directly in a block, constants left out.
inline std::vector<std::string> blockKinds(const Block* b) {
  std::vector<std::string> out;
  for (Node* n : *b)
    if (!n->is("prim.constant")) out.push_back(n->kind());
  return out;
}

inline const Constant* constantInput(const Node* n, size_t i) { return constantOf(n->input(i)); }

// Expects emission (or parsing) to fail with a message containing `part` at
// line:col.
inline void expectUserError(const std::string& src, int line, int col, const std::string& part) {
  try {
    emitSource(src);
  } catch (const UserError& e) {
    EXPECT_EQ(e.loc().line, line) << e.formatted();
    EXPECT_EQ(e.loc().col, col) << e.formatted();
    EXPECT_NE(e.message().find(part), std::string::npos) << e.formatted();
    EXPECT_EQ(e.loc().file, "test.py");
    return;
  }
  ADD_FAILURE() << "no error for:\n" << src;
}

}  // namespace stitch::testing
