// Differential harness for functionalize: a program is parsed, specialized on
// concrete input types, functionalized on a clone, verified, checked to hold
// no view/in-place op, and both graphs are interpreted on copies of the same
// fresh random inputs. Outputs must agree bitwise, and the imperative run's
// writes into its inputs must equal the functional graph's extra outputs.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "interp/interpreter.h"
#include "ir/ir_parser.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/canonicalize.h"
#include "passes/constant_folding.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/functionalize.h"
#include "passes/remove_inplace.h"
#include "passes/shape_inference.h"

namespace stitch::functionalize_test {

inline std::mt19937& rng() {
  static std::mt19937 gen(std::random_device{}());
  return gen;
}

// One argument: a tensor (dtype + shape), a list of tensors, or a scalar.
struct Arg {
  enum Kind { TensorArg, TensorListArg, IntArg, FloatArg, BoolArg } kind;
  DType dtype = DType::f32;
  std::vector<std::vector<int64_t>> shapes;  // one for a tensor, n for a list
  double scalar = 0;
};

inline Arg T(std::vector<int64_t> shape, DType dtype = DType::f32) {
  return Arg{Arg::TensorArg, dtype, {std::move(shape)}, 0};
}
inline Arg TL(std::vector<std::vector<int64_t>> shapes) {
  return Arg{Arg::TensorListArg, DType::f32, std::move(shapes), 0};
}
inline Arg I(int64_t v) { return Arg{Arg::IntArg, DType::i64, {}, (double)v}; }
inline Arg F(double v) { return Arg{Arg::FloatArg, DType::f64, {}, v}; }

struct Program {
  std::string name;
  std::string source;  // `import torch` etc. are prepended
  std::vector<Arg> args;
  std::string fn = {};  // the function to run; empty: the last one
};

// Keeps test listings short: a parameterized test shows its program's name.
inline void PrintTo(const Program& p, std::ostream* os) { *os << p.name; }

inline TypePtr typeOf(const Arg& a) {
  switch (a.kind) {
    case Arg::TensorArg: return Type::tensor(a.dtype, a.shapes[0]);
    case Arg::TensorListArg: return Type::list(Type::tensor(a.dtype, a.shapes[0]));
    case Arg::IntArg: return Type::intT();
    case Arg::FloatArg: return Type::floatT();
    case Arg::BoolArg: return Type::boolT();
  }
  return nullptr;
}

inline Tensor randomTensor(const std::vector<int64_t>& shape, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(0, 9);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloating(dtype)) t.setDouble(i, real(rng()));
    else t.setInt(i, dtype == DType::b8 ? integer(rng()) % 2 : integer(rng()));
  }
  return t;
}

inline IValue randomValue(const Arg& a) {
  switch (a.kind) {
    case Arg::TensorArg: return IValue(randomTensor(a.shapes[0], a.dtype));
    case Arg::TensorListArg: {
      IValueList elems;
      for (const auto& s : a.shapes) elems.push_back(IValue(randomTensor(s, a.dtype)));
      return IValue::list(std::move(elems));
    }
    case Arg::IntArg: return IValue((int64_t)a.scalar);
    case Arg::FloatArg: return IValue(a.scalar);
    case Arg::BoolArg: return IValue(a.scalar != 0);
  }
  return IValue();
}

// A copy sharing no tensor storage with v.
inline IValue deepCopy(const IValue& v) {
  if (v.isTensor()) return IValue(v.toTensor().clone());
  if (!v.isList() && !v.isTuple()) return v;
  IValueList elems;
  for (const IValue& e : v.toList()) elems.push_back(deepCopy(e));
  return v.isList() ? IValue::list(std::move(elems)) : IValue::tuple(std::move(elems));
}

inline std::string bytesOf(const Tensor& t) {
  Tensor c = t.clone();
  return std::string(static_cast<const char*>(c.rawData()), c.numel() * dtypeSize(c.dtype()));
}

// Bitwise equality of values (tensors: dtype, shape and bytes).
inline ::testing::AssertionResult sameValue(const IValue& a, const IValue& b) {
  if (a.isTensor() != b.isTensor()) return ::testing::AssertionFailure() << "tensor vs non-tensor";
  if (a.isTensor()) {
    const Tensor &x = a.toTensor(), &y = b.toTensor();
    if (x.dtype() != y.dtype()) return ::testing::AssertionFailure() << "dtypes differ";
    if (x.sizes() != y.sizes()) return ::testing::AssertionFailure() << "shapes " << x.shapeStr() << " vs " << y.shapeStr();
    if (bytesOf(x) != bytesOf(y)) return ::testing::AssertionFailure() << "values differ";
    return ::testing::AssertionSuccess();
  }
  if (a.isList() || a.isTuple()) {
    const IValueList &x = a.toList(), &y = b.toList();
    if (x.size() != y.size()) return ::testing::AssertionFailure() << "list lengths differ";
    for (size_t i = 0; i < x.size(); ++i) {
      auto r = sameValue(x[i], y[i]);
      if (!r) return r << " (element " << i << ")";
    }
    return ::testing::AssertionSuccess();
  }
  if (a.isDouble() || b.isDouble()) {
    if (a.toDouble() == b.toDouble()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << a.toDouble() << " vs " << b.toDouble();
  }
  if (a.isInt() || a.isBool()) {
    if (a.toInt() == b.toInt()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << a.toInt() << " vs " << b.toInt();
  }
  return ::testing::AssertionSuccess();
}

// Names of ops that must not survive functionalization.
inline void collectImpureOps(const Block* b, std::vector<std::string>& out) {
  for (const Node* n : *b) {
    for (const Block* sub : n->blocks()) collectImpureOps(sub, out);
    const OpSchema& s = n->schema();
    if (s.isView() || s.isInPlace() || n->is("tssa.update")) out.push_back(n->kind());
  }
}

inline IValueList randomInputs(const Program& p) {
  IValueList out;
  for (const Arg& a : p.args) out.push_back(randomValue(a));
  return out;
}

inline std::unique_ptr<Graph> specialize(const Program& p) {
  std::string source = "import torch\nfrom typing import List, Tuple, Optional\n" + p.source;
  auto graph = SourceModule::parse(source, p.name + ".py")->emit(p.fn);
  std::vector<TypePtr> types;
  for (const Arg& a : p.args) types.push_back(typeOf(a));
  inferShapes(*graph, types);
  verifyGraph(*graph);
  return graph;
}

// Specialized, functionalized and simplified as the pipeline does: the pure
// graph fusion and kernel planning start from.
inline std::unique_ptr<Graph> simplifiedGraph(const Program& p) {
  std::unique_ptr<Graph> g = specialize(p);
  functionalize(*g);
  canonicalize(*g);
  foldConstants(*g);
  eliminateCommonSubexpressions(*g);
  eliminateDeadCode(*g);
  verifyGraph(*g);
  return g;
}

// One round on given inputs: imperative, remove-inplace only, and functional
// graphs on separate copies.
inline void checkOn(const Graph& imperativeGraph, const Graph& functionalGraph,
                    const Graph& copyOnlyGraph, const FunctionalizeResult& result, const IValueList& original) {
  IValueList forImperative, forFunctional, forCopyOnly;
  for (const IValue& v : original) {
    forImperative.push_back(deepCopy(v));
    forFunctional.push_back(deepCopy(v));
    forCopyOnly.push_back(deepCopy(v));
  }
  IValueList expected = interpret(imperativeGraph, forImperative);
  IValueList copyOnlyOut = interpret(copyOnlyGraph, forCopyOnly);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(sameValue(expected[i], copyOnlyOut[i])) << "after remove-inplace, output " << i;
  for (size_t i = 0; i < original.size(); ++i)
    EXPECT_TRUE(sameValue(forImperative[i], forCopyOnly[i])) << "after remove-inplace, input " << i;
  IValueList got = interpret(functionalGraph, forFunctional);
  ASSERT_EQ(got.size(), functionalGraph.outputs().size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(sameValue(expected[i], got[i])) << "output " << i;
  for (size_t i = 0; i < original.size(); ++i) {
    EXPECT_TRUE(sameValue(original[i], forFunctional[i])) << "functional graph wrote input " << i;
    auto at = std::find(result.writtenBackInputs.begin(), result.writtenBackInputs.end(), i);
    if (at == result.writtenBackInputs.end()) {
      EXPECT_TRUE(sameValue(original[i], forImperative[i])) << "input " << i << " written but not returned";
      continue;
    }
    size_t extra = result.originalOutputs + (at - result.writtenBackInputs.begin());
    EXPECT_TRUE(sameValue(forImperative[i], got[extra])) << "written-back input " << i;
  }
}

// Whether the imperative graph runs on (a copy of) inputs: some programs
// fail at run time on some data (integer division by zero, ...).
inline bool runsOn(const Graph& g, const IValueList& inputs) {
  IValueList copy;
  for (const IValue& v : inputs) copy.push_back(deepCopy(v));
  try {
    interpret(g, copy);
    return true;
  } catch (const UserError&) {
    return false;
  } catch (const RuntimeFailure&) {
    return false;
  }
}

// The whole check; `rounds` fresh random inputs.
inline void checkProgram(const Program& p, int rounds = 2, bool skipFailingInputs = false) {
  std::unique_ptr<Graph> imperative = specialize(p);
  std::unique_ptr<Graph> functional = imperative->clone();
  std::unique_ptr<Graph> copyOnly = imperative->clone();  // remove-inplace alone
  removeInplace(*copyOnly);
  verifyGraph(*copyOnly);
  FunctionalizeResult result = functionalize(*functional);
  std::string text = printGraph(*functional);
  SCOPED_TRACE("functional graph:\n" + text);
  if (std::getenv("STITCH_DUMP_FUNCTIONAL")) std::cerr << printGraph(*imperative) << "\n" << text;
  verifyGraph(*functional);
  EXPECT_EQ(printGraph(*parseGraph(text)), text) << "the functional graph's text does not read back";
  std::vector<std::string> impure;
  collectImpureOps(functional->top(), impure);
  EXPECT_TRUE(impure.empty()) << "left: " << (impure.empty() ? "" : impure.front());
  ASSERT_EQ(result.originalOutputs, imperative->outputs().size());
  ASSERT_EQ(functional->outputs().size(), result.originalOutputs + result.writtenBackInputs.size());

  for (int round = 0; round < rounds; ++round) {
    IValueList inputs = randomInputs(p);
    if (skipFailingInputs && !runsOn(*imperative, inputs)) continue;
    checkOn(*imperative, *functional, *copyOnly, result, inputs);
  }
}

}  // namespace stitch::functionalize_test
