// Harness for list specialization, parallel-map marking and unrolling: a
// program is specialized as the driver does (a list input on the join of its
// elements' types, List[f32[?,4]]), functionalized and simplified; then the
// simplified stage's list and loop passes run in the driver's order
// (driver/pipeline.cpp). Results are compared with the interpreter on the
// specialized imperative graph, on fresh random inputs.
#pragma once
#include "passes/canonicalize.h"
#include "passes/constant_folding.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/parallel_map.h"
#include "passes/specialize_lists.h"
#include "passes/unroll.h"
#include "simplify_test_util.h"

namespace stitch::unroll_test {

using functionalize_test::Arg;
using functionalize_test::F;
using functionalize_test::I;
using functionalize_test::Program;
using functionalize_test::T;
using functionalize_test::TL;
using simplify_test::countKind;

// What the driver gives shape inference: a list's elements joined.
inline TypePtr joinedType(const Arg& a) {
  if (a.kind != Arg::TensorListArg) return functionalize_test::typeOf(a);
  TypePtr elem;
  for (const auto& s : a.shapes) {
    TypePtr t = Type::tensor(a.dtype, s);
    elem = elem ? joinTypes(elem, t) : t;
  }
  return Type::list(elem ? elem : Type::tensor(a.dtype));
}

// What the driver gives the pipeline for list inputs: each element's type.
inline ListInputTypes exactListTypes(const Program& p) {
  ListInputTypes lists;
  for (const Arg& a : p.args) {
    if (a.kind != Arg::TensorListArg) {
      lists.push_back(std::nullopt);
      continue;
    }
    std::vector<TypePtr> elems;
    for (const auto& s : a.shapes) elems.push_back(Type::tensor(a.dtype, s));
    lists.push_back(elems);
  }
  return lists;
}

inline std::unique_ptr<Graph> specialized(const Program& p) {
  std::string source = "import torch\nfrom typing import List, Tuple, Optional\n" + p.source;
  auto graph = SourceModule::parse(source, p.name + ".py")->emit(p.fn);
  std::vector<TypePtr> types;
  for (const Arg& a : p.args) types.push_back(joinedType(a));
  inferShapes(*graph, types);
  verifyGraph(*graph);
  return graph;
}

inline void reinferShapes(Graph& g) {
  std::vector<TypePtr> types;
  for (const Value* in : g.inputs()) types.push_back(in->type());
  inferShapes(g, types);
}

inline void simplify(Graph& g) {
  canonicalize(g);
  foldConstants(g);
  eliminateCommonSubexpressions(g);
  eliminateDeadCode(g);
}

// Functionalized and simplified, as stage simplified finds it before the
// list and loop passes.
inline std::unique_ptr<Graph> functionalGraph(const Graph& imperative) {
  std::unique_ptr<Graph> g = imperative.clone();
  functionalize(*g);
  simplify(*g);
  verifyGraph(*g);
  return g;
}

// The list and loop passes of stage simplified, in the driver's order.
inline void specializeAndUnroll(Graph& g, const ListInputTypes& lists) {
  if (specializeListInputs(g, lists)) {
    canonicalize(g);
    reinferShapes(g);
  }
  simplify(g);
  for (int round = 0; round < 3; ++round) {
    markParallelMaps(g);
    if (!unrollParallelMaps(g)) return;
    canonicalize(g);
    reinferShapes(g);
    simplify(g);
  }
}

inline bool allTensorsStatic(const Block* b, std::string& first) {
  for (const Node* n : *b) {
    for (const Value* v : n->outputs()) {
      const TypePtr& t = v->type();
      if (t->isTensor() && !t->fullyKnown() && n->kind() != "list.get") {
        first = n->kind() + " : " + t->str();
        return false;
      }
    }
    for (const Block* sub : n->blocks())
      if (!allTensorsStatic(sub, first)) return false;
  }
  return true;
}

inline std::vector<const Node*> loopsOf(const Block* b) {
  std::vector<const Node*> loops;
  for (const Node* n : *b) {
    if (n->is("prim.loop")) loops.push_back(n);
    for (const Block* sub : n->blocks())
      for (const Node* inner : loopsOf(sub)) loops.push_back(inner);
  }
  return loops;
}

inline bool isMarked(const Node* loop) { return loop->hasAttr(kParallelMapAttr); }

// Verifier, text round trip, and bitwise-equal outputs against `reference`
// on `rounds` fresh random inputs.
inline void expectSameOutputs(const Program& p, const Graph& reference, const Graph& g,
                              int rounds = 3) {
  std::string text = printGraph(g);
  SCOPED_TRACE("graph:\n" + text);
  verifyGraph(g);
  EXPECT_EQ(printGraph(*parseGraph(text)), text);
  for (int round = 0; round < rounds; ++round) {
    IValueList inputs = functionalize_test::randomInputs(p);
    IValueList a, b;
    for (const IValue& v : inputs) {
      a.push_back(functionalize_test::deepCopy(v));
      b.push_back(functionalize_test::deepCopy(v));
    }
    IValueList expected = interpret(reference, a);
    IValueList got = interpret(g, b);
    ASSERT_GE(got.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_TRUE(functionalize_test::sameValue(expected[i], got[i])) << "output " << i;
  }
}

}  // namespace stitch::unroll_test
