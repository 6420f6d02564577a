// Harness for the kernel planner: a program is specialized, functionalized
// and simplified as the driver does; planKernels runs on it; the graph is
// then run with every kernel computed by the ThreadGraph evaluator (host ops
// by the interpreter's kernels) and compared with the reference interpreter
// on fresh random inputs.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "../passes/functionalize_test_util.h"
#include "fusion/fusion.h"
#include "host_ops.h"
#include "interp/tolerance.h"
#include "passes/canonicalize.h"
#include "passes/constant_folding.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "ugraph/block_graph_builder.h"
#include "ugraph/kernel_graph_printer.h"
#include "ugraph/kernel_planner.h"
#include "ugraph/thread_graph_eval.h"

namespace stitch::ugraph_test {

using functionalize_test::F;
using functionalize_test::I;
using functionalize_test::Program;
using functionalize_test::T;

using functionalize_test::simplifiedGraph;

inline HostBuffer bufferOf(const Tensor& t) {
  return HostBuffer{t.rawData(), t.dtype(), t.numel()};
}

// Runs one kernel with the evaluator on the env's values.
inline void runKernel(const Kernel& k, std::map<const Value*, IValue>& env) {
  if (k.kind != KernelKind::GraphDefined) {
    // A predefined kernel (a contraction with its epilogue, attention):
    // its nodes in order, by the interpreter's kernels, as the runtime
    // does where its routine cannot run them.
    for (const Node* n : k.nodes) {
      IValueList args;
      for (const Value* v : n->inputs()) args.push_back(env.at(v));
      IValueList outs = runHostNode(*n, args);
      for (size_t i = 0; i < outs.size(); ++i) env[n->output(i)] = outs[i];
    }
    return;
  }
  std::vector<Tensor> keep;
  std::vector<HostBuffer> ins, outs;
  for (const Value* v : k.inputs) {
    Tensor t = env.at(v).toTensor().contiguous();
    keep.push_back(t);
    ins.push_back(bufferOf(t));
  }
  std::vector<Tensor> results;
  for (const Value* v : k.outputs) {
    Tensor t = Tensor::empty(*v->type()->shape(), *v->type()->dtype());
    results.push_back(t);
    outs.push_back(bufferOf(t));
  }
  std::vector<HostScalar> params;
  for (const Value* v : k.params) {
    const IValue& s = env.at(v);
    params.push_back(s.isDouble() ? HostScalar{0, s.toDouble()} : HostScalar{s.toInt(), 0});
  }
  evaluateThreadGraph(k, outs, ins, params);
  for (size_t i = 0; i < k.outputs.size(); ++i) env[k.outputs[i]] = IValue(results[i]);
}

// Runs a block with kernels computed by the evaluator and every other node
// by the interpreter's kernels; prim.loop / prim.if as the interpreter does.
inline IValueList runPlannedBlock(const Block* block, const KernelGraph& kg, const IValueList& params,
                                  std::map<const Value*, IValue>& env) {
  for (size_t i = 0; i < params.size(); ++i) env[block->params()[i]] = params[i];
  for (const Node* n : *block) {
    auto at = kg.kernelAt.find(n);
    if (at != kg.kernelAt.end()) {
      runKernel(kg.kernels[at->second], env);
      continue;
    }
    if (kg.inKernel.count(n)) continue;
    IValueList outs;
    if (n->is("prim.loop")) {
      int64_t maxTrip = env.at(n->input(0)).toInt();
      bool cond = env.at(n->input(1)).toBool();
      for (size_t i = 2; i < n->inputs().size(); ++i) outs.push_back(env.at(n->input(i)));
      for (int64_t iter = 0; iter < maxTrip && cond; ++iter) {
        IValueList ps{IValue(iter)};
        ps.insert(ps.end(), outs.begin(), outs.end());
        IValueList rets = runPlannedBlock(n->block(0), kg, ps, env);
        cond = rets[0].toBool();
        outs.assign(rets.begin() + 1, rets.end());
      }
    } else if (n->is("prim.if")) {
      outs = runPlannedBlock(n->block(env.at(n->input(0)).toBool() ? 0 : 1), kg, {}, env);
    } else {
      IValueList args;
      for (const Value* v : n->inputs()) args.push_back(env.at(v));
      outs = runHostNode(*n, args);
    }
    for (size_t i = 0; i < outs.size(); ++i) env[n->output(i)] = outs[i];
  }
  IValueList out;
  for (const Value* v : block->returns()) out.push_back(env.at(v));
  return out;
}

inline IValueList runPlanned(const Graph& g, const KernelGraph& kg, const IValueList& inputs) {
  std::map<const Value*, IValue> env;
  return runPlannedBlock(g.top(), kg, inputs, env);
}

// Equal dtype and shape; elements equal up to float rounding (NaN == NaN).
// Kernels against the interpreter: the project's tolerance rule
// (interp/tolerance.h) at this rtol and PyTorch's atol for the dtype,
// through lists and tuples.
inline ::testing::AssertionResult closeValue(const IValue& a, const IValue& b, double rtol) {
  Tolerance tol = pytorchTolerance(a.isTensor() ? a.toTensor().dtype() : DType::f64);
  tol.rtol = rtol;
  if (a.isTensor() != b.isTensor()) return ::testing::AssertionFailure() << "tensor vs non-tensor";
  if ((a.isList() || a.isTuple()) && (b.isList() || b.isTuple())) {
    const IValueList &x = a.toList(), &y = b.toList();
    if (x.size() != y.size()) return ::testing::AssertionFailure() << "list lengths differ";
    for (size_t i = 0; i < x.size(); ++i) {
      auto r = closeValue(x[i], y[i], rtol);
      if (!r) return r << " (element " << i << ")";
    }
    return ::testing::AssertionSuccess();
  }
  if (a.isDouble() && b.isDouble()) {
    if (closeScalar(a.toDouble(), b.toDouble(), tol)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << a.toDouble() << " vs " << b.toDouble();
  }
  if (!a.isTensor()) return functionalize_test::sameValue(a, b);
  const Tensor &x = a.toTensor(), &y = b.toTensor();
  if (x.dtype() != y.dtype()) return ::testing::AssertionFailure() << "dtypes differ";
  if (x.sizes() != y.sizes()) return ::testing::AssertionFailure() << "shapes " << x.shapeStr() << " vs " << y.shapeStr();
  TensorComparison c = compareTensorValues(x, y, tol);
  if (c.close) return ::testing::AssertionSuccess();
  const int64_t i = c.firstMismatch;
  if (!isFloating(x.dtype()))
    return ::testing::AssertionFailure() << "element " << i << ": " << x.getInt(i) << " vs " << y.getInt(i);
  return ::testing::AssertionFailure() << "element " << i << ": " << x.getDouble(i) << " vs " << y.getDouble(i);
}

struct Checked {
  std::unique_ptr<Graph> graph;
  KernelGraph kernels;
};

// Plans p and compares kernel evaluation with the interpreter `rounds` times.
// fused: kernels from the compiler's fusion plan (fusion/fusion.h) rather
// than the planner's own simple groups.
inline Checked checkLowering(const Program& p, int rounds = 2, double rtol = 1e-6,
                             const PlanOptions& options = {}, bool fused = false) {
  Checked c;
  c.graph = simplifiedGraph(p);
  FusionPlan plan;
  PlanOptions planOptions = options;
  if (fused) {
    FusionOptions fusionOptions;
    fusionOptions.kernelOp = canRunInKernel;
    plan = fuseGraph(*c.graph, fusionOptions);
    planOptions.fusion = &plan;
  }
  c.kernels = planKernels(*c.graph, planOptions);
  SCOPED_TRACE("graph:\n" + printGraph(*c.graph) + "kernels:\n" + printKernelGraph(c.kernels));
  if (std::getenv("STITCH_DUMP_UGRAPH")) std::cerr << printGraph(*c.graph) << printKernelGraph(c.kernels);
  for (int round = 0; round < rounds; ++round) {
    IValueList inputs = functionalize_test::randomInputs(p);
    IValueList a, b;
    for (const IValue& v : inputs) {
      a.push_back(functionalize_test::deepCopy(v));
      b.push_back(functionalize_test::deepCopy(v));
    }
    IValueList expected = interpret(*c.graph, a);
    IValueList got = runPlanned(*c.graph, c.kernels, b);
    EXPECT_EQ(expected.size(), got.size());
    for (size_t i = 0; i < expected.size() && i < got.size(); ++i)
      EXPECT_TRUE(closeValue(expected[i], got[i], rtol)) << "output " << i;
  }
  return c;
}

// How many nodes of op `kind` were lowered into kernels / stayed host ops.
inline int countLowered(const Checked& c, const std::string& kind, bool lowered = true) {
  int n = 0;
  std::function<void(const Block*)> walk = [&](const Block* b) {
    for (const Node* node : *b) {
      for (const Block* sub : node->blocks()) walk(sub);
      if (node->kind() == kind && (c.kernels.inKernel.count(node) != 0) == lowered) ++n;
    }
  };
  walk(c.graph->top());
  return n;
}

// Whether every node of op `kind` went into a kernel, and there was one.
inline ::testing::AssertionResult allLowered(const Checked& c, const std::string& kind) {
  int lowered = countLowered(c, kind), host = countLowered(c, kind, false);
  if (lowered > 0 && host == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << kind << ": " << lowered << " in kernels, " << host << " on the host";
}

// The block graph of an IR text that must plan to exactly one kernel.
inline BlockGraph onlyBlock(const std::string& ir) {
  auto g = parseGraph(ir);
  KernelGraph kg = planKernels(*g);
  EXPECT_EQ(kg.kernels.size(), 1u);
  if (kg.kernels.empty()) return {};
  return kg.kernels[0].block;
}

// One group of every kernel op of the top block, roots = values used by
// other nodes or returned, under `schedule`.
inline FusionPlan oneGroup(const Graph& g, Schedule schedule = {}) {
  FusedGroup group;
  for (const Node* n : *g.top())
    if (canRunInKernel(n)) group.nodes.push_back(n);
  std::unordered_set<const Node*> members(group.nodes.begin(), group.nodes.end());
  for (const Node* n : group.nodes) {
    bool outside = std::find(g.outputs().begin(), g.outputs().end(), n->output()) != g.outputs().end();
    for (const Use& u : n->output()->uses()) outside |= !members.count(u.user);
    if (outside) group.roots.push_back(n->output());
  }
  group.schedule = schedule;
  group.candidates = {schedule};
  FusionPlan plan;
  for (const Node* n : group.nodes) plan.groupOf[n] = 0;
  plan.groups.push_back(std::move(group));
  return plan;
}

// The kernel of oneGroup(g, schedule) with `buffered` values in its
// shared-memory plan.
inline Kernel oneGroupKernel(const Graph& g, const std::vector<const Value*>& buffered, Schedule schedule = {}) {
  FusionPlan plan = oneGroup(g, schedule);
  SharedMemoryPlan smem;
  for (const Value* v : buffered) smem.buffers.push_back(SharedBuffer{v, BufferReason::MultiUse, 0, 0, 0});
  Kernel k;
  k.name = "k0";
  k.nodes = plan.groups[0].nodes;
  k.outputs = plan.groups[0].roots;
  buildBlockGraph(k, &plan.groups[0], &smem);
  return k;
}

}  // namespace stitch::ugraph_test
