// Harness for the simplify passes: a program is specialized and
// functionalized, a clone is rewritten by one pass, both graphs are verified
// and interpreted on copies of the same fresh random inputs; every output
// must agree bitwise.
#pragma once
#include <functional>
#include <optional>

#include "functionalize_test_util.h"

namespace stitch::simplify_test {

using functionalize_test::Program;
using functionalize_test::T;
using functionalize_test::I;
using functionalize_test::F;

inline std::unique_ptr<Graph> functionalGraph(const Program& p) {
  std::unique_ptr<Graph> g = functionalize_test::specialize(p);
  functionalize(*g);
  verifyGraph(*g);
  return g;
}

inline size_t countKind(const Block* b, const std::string& kind) {
  size_t n = 0;
  for (const Node* node : *b) {
    n += node->kind() == kind;
    for (const Block* sub : node->blocks()) n += countKind(sub, kind);
  }
  return n;
}

inline size_t countNodes(const Block* b) {
  size_t n = 0;
  for (const Node* node : *b) {
    ++n;
    for (const Block* sub : node->blocks()) n += countNodes(sub);
  }
  return n;
}

// Runs `pass` on a clone of `before`, checks verifier, text round-trip and
// equal outputs on `rounds` fresh random inputs; returns the rewritten graph.
// expectChange: what the pass must report (nullopt: either).
inline std::unique_ptr<Graph> checkPass(const Program& p, const Graph& before,
                                        const std::function<bool(Graph&)>& pass,
                                        std::optional<bool> expectChange, int rounds = 3) {
  std::unique_ptr<Graph> after = before.clone();
  bool changed = pass(*after);
  std::string text = printGraph(*after);
  SCOPED_TRACE("before:\n" + printGraph(before) + "after:\n" + text);
  if (expectChange) EXPECT_EQ(changed, *expectChange);
  if (!changed) EXPECT_EQ(text, printGraph(before)) << "reported no change but changed the graph";
  verifyGraph(*after);
  EXPECT_EQ(printGraph(*parseGraph(text)), text);
  for (int round = 0; round < rounds; ++round) {
    IValueList inputs = functionalize_test::randomInputs(p);
    IValueList a, b;
    for (const IValue& v : inputs) {
      a.push_back(functionalize_test::deepCopy(v));
      b.push_back(functionalize_test::deepCopy(v));
    }
    IValueList expected = interpret(before, a);
    IValueList got = interpret(*after, b);
    EXPECT_EQ(expected.size(), got.size());
    for (size_t i = 0; i < expected.size() && i < got.size(); ++i)
      EXPECT_TRUE(functionalize_test::sameValue(expected[i], got[i])) << "output " << i;
  }
  return after;
}

}  // namespace stitch::simplify_test
