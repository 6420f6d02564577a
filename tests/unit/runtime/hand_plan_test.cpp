// The runtime's walker on kernel plans written by hand (kernels in C over
// the calling convention of codegen/kernel_abi.h), so these tests pin the
// runtime alone: kernels mixed with host ops, loops, branches, copy
// kernels, strided inputs, buffer reuse and values that escape. Every
// result is compared with the reference interpreter on fresh random inputs.
#include <gtest/gtest.h>

#include <functional>

#include "runtime_test_util.h"

namespace stitch {
namespace {

using namespace rtest;

class HandPlan : public ::testing::Test {
 protected:
  void SetUp() override { useScratchCache(); }
};

// A plan of one kernel, k0: the graph's only abs node, over n floats.
CodePlan absPlan(const Graph& g, int64_t n) {
  const Node* abs = nodeOfKind(g, "abs");
  return handPlan({handKernel("k0", KernelKind::GraphDefined, {abs}, {abs->output()}, {abs->input(0)})},
                  R"C(
void k0(void* const* bufs, const stitch_scalar* params, int64_t threads) {
  float* out = (float*)bufs[0];
  const float* v = (const float*)bufs[1];
  for (int64_t i = 0; i < )C" + std::to_string(n) + R"C(; ++i) out[i] = v[i] < 0 ? -v[i] : v[i];
}
)C");
}

// Runs `exe` and the interpreter on copies of `in`, expects the same
// outputs, and returns how many kernels the run launched.
int64_t kernelCallsOfCheckedRun(Executable& exe, const Graph& g, const IValueList& in, double tol = 1e-6) {
  RunStats stats;
  IValueList got = exe.run(cloneInputs(in), &stats);
  expectSameOutputs(got, interpret(g, cloneInputs(in)), tol);
  return stats.kernelCalls;
}

// x + y (alpha 1) then * s, fused into one kernel, then a host op.
TEST_F(HandPlan, KernelWithParamThenHostOp) {
  auto g = parseGraph(
      "graph(%x : f32[4,5], %y : f32[4,5], %s : float):\n"
      "  %0 : int = prim.constant[value=1]()\n"
      "  %a : f32[4,5] = add(%x, %y, %0)\n"
      "  %b : f32[4,5] = mul(%a, %s)\n"
      "  %c : f32[4,5] = neg(%b)\n"
      "  return (%b, %c)\n");
  const Node* add = nodeOfKind(*g, "add");
  const Node* mul = nodeOfKind(*g, "mul");
  std::vector<Kernel> ks = {handKernel("k0", KernelKind::GraphDefined, {add, mul}, {mul->output()},
                                       {add->input(0), add->input(1)}, {mul->input(1)})};
  CodePlan plan = handPlan(std::move(ks), R"C(
void k0(void* const* bufs, const stitch_scalar* params, int64_t threads) {
  float* out = (float*)bufs[0];
  const float* x = (const float*)bufs[1];
  const float* y = (const float*)bufs[2];
  float s = (float)params[0].f;
  for (int64_t i = 0; i < 20; ++i) out[i] = (x[i] + y[i]) * s;
}
)C");
  auto exe = Executable::build(*g, std::move(plan), {});
  for (int round = 0; round < 3; ++round) {
    IValueList in = {randomTensor({4, 5}, DType::f32), randomTensor({4, 5}, DType::f32),
                     IValue(std::uniform_real_distribution<double>(-3, 3)(rng()))};
    EXPECT_EQ(kernelCallsOfCheckedRun(*exe, *g, in), 1);
  }
}

// A kernel inside a loop body, fed by the loop-carried value each trip.
TEST_F(HandPlan, KernelInsideLoop) {
  auto g = parseGraph(
      "graph(%x : f32[8], %n : int):\n"
      "  %t : bool = prim.constant[value=true]()\n"
      "  %r : f32[8] = prim.loop(%n, %t, %x)\n"
      "    block0(%i : int, %v : f32[8]):\n"
      "      %w : f32[8] = abs(%v)\n"
      "      %u : f32[8] = neg(%w)\n"
      "      -> (%t, %u)\n"
      "  return (%r)\n");
  auto exe = Executable::build(*g, absPlan(*g, 8), {});
  for (int64_t n : {(int64_t)0, (int64_t)1, 2 + (int64_t)(rng()() % 5)}) {
    IValueList in = {randomTensor({8}, DType::f32), IValue(n)};
    EXPECT_EQ(kernelCallsOfCheckedRun(*exe, *g, in), n);
  }
}

// A kernel in one branch, a host op in the other.
TEST_F(HandPlan, KernelInsideBranch) {
  auto g = parseGraph(
      "graph(%x : f32[3,4], %c : bool):\n"
      "  %r : f32[3,4] = prim.if(%c)\n"
      "    block0():\n"
      "      %a : f32[3,4] = abs(%x)\n"
      "      -> (%a)\n"
      "    block1():\n"
      "      %b : f32[3,4] = neg(%x)\n"
      "      -> (%b)\n"
      "  return (%r)\n");
  auto exe = Executable::build(*g, absPlan(*g, 12), {});
  for (bool c : {true, false}) {
    // Often a transposed view: the kernel must get a dense copy.
    IValueList in = {randomTensor({3, 4}, DType::f32), IValue(c)};
    EXPECT_EQ(kernelCallsOfCheckedRun(*exe, *g, in), c ? 1 : 0);
  }
}

// Copy kernels: cat of a list built inside the kernel, stack of a list
// built outside, clone of a strided view.
TEST_F(HandPlan, CopyKernels) {
  auto g = parseGraph(
      "graph(%x : f32[2,3], %y : f32[4,3]):\n"
      "  %0 : int = prim.constant[value=0]()\n"
      "  %m : int = prim.constant[value=-1]()\n"
      "  %l : List[Tensor] = prim.list_construct(%x, %y)\n"
      "  %c : f32[6,3] = cat(%l, %0)\n"
      "  %t : f32[3,2] = t(%x)\n"
      "  %d : f32[3,2] = clone(%t)\n"
      "  %l2 : List[Tensor] = prim.list_construct(%x, %x)\n"
      "  %s : f32[2,3,2] = stack(%l2, %m)\n"
      "  return (%c, %d, %s)\n");
  std::vector<const Node*> lists = nodesOfKind(g->top(), "prim.list_construct");
  const Node* cat = nodeOfKind(*g, "cat");
  const Node* clone = nodeOfKind(*g, "clone");
  const Node* stack = nodeOfKind(*g, "stack");
  std::vector<Kernel> ks = {
      handKernel("c0", KernelKind::Copy, {lists[0], cat}, {cat->output()}, {cat->input(0)}),
      handKernel("c1", KernelKind::Copy, {clone}, {clone->output()}, {clone->input(0)}),
      handKernel("c2", KernelKind::Copy, {stack}, {stack->output()}, {})};
  auto exe = Executable::build(*g, handPlan(std::move(ks), ""), {});
  EXPECT_FALSE(exe->loadedCode());  // no generated kernel: nothing compiled
  for (int round = 0; round < 3; ++round) {
    IValueList in = {randomTensor({2, 3}, DType::f32), randomTensor({4, 3}, DType::f32)};
    EXPECT_EQ(kernelCallsOfCheckedRun(*exe, *g, in, 0), 3);
  }
}

const char* const kChainC = R"C(
void k0(void* const* bufs, const stitch_scalar* params, int64_t threads) {
  float* out = (float*)bufs[0];
  const float* x = (const float*)bufs[1];
  const float* y = (const float*)bufs[2];
  for (int64_t i = 0; i < 64; ++i) out[i] = x[i] + y[i];
}
void k1(void* const* bufs, const stitch_scalar* params, int64_t threads) {
  float* out = (float*)bufs[0];
  const float* a = (const float*)bufs[1];
  for (int64_t i = 0; i < 64; ++i) out[i] = a[i] < 0 ? -a[i] : a[i];
}
void k2(void* const* bufs, const stitch_scalar* params, int64_t threads) {
  float* out = (float*)bufs[0];
  const float* b = (const float*)bufs[1];
  for (int64_t i = 0; i < 64; ++i) out[i] = -b[i];
}
)C";

std::unique_ptr<Graph> chainGraph() {
  return parseGraph(
      "graph(%x : f32[8,8], %y : f32[8,8]):\n"
      "  %0 : int = prim.constant[value=1]()\n"
      "  %a : f32[8,8] = add(%x, %y, %0)\n"
      "  %b : f32[8,8] = abs(%a)\n"
      "  %c : f32[8,8] = neg(%b)\n"
      "  %d : f32[8,8] = abs(%c)\n"
      "  return (%d)\n");
}

CodePlan chainPlan(const Graph& g) {
  const Node* add = nodeOfKind(g, "add");
  std::vector<const Node*> abs = nodesOfKind(g.top(), "abs");
  const Node* neg = nodeOfKind(g, "neg");
  return handPlan({handKernel("k0", KernelKind::GraphDefined, {add}, {add->output()},
                              {add->input(0), add->input(1)}),
                   handKernel("k1", KernelKind::GraphDefined, {abs[0]}, {abs[0]->output()},
                              {abs[0]->input(0)}),
                   handKernel("k2", KernelKind::GraphDefined, {neg}, {neg->output()}, {neg->input(0)}),
                   handKernel("k1", KernelKind::GraphDefined, {abs[1]}, {abs[1]->output()},
                              {abs[1]->input(0)})},
                  kChainC);
}

// Dead intermediates give their buffers to later kernels; the outputs of
// one run stay intact through the next.
TEST_F(HandPlan, BuffersAreReusedAndOutputsSurviveTheNextRun) {
  auto g = chainGraph();
  auto exe = Executable::build(*g, chainPlan(*g), {});
  // Dense inputs: a strided one would take a pooled buffer for its copy.
  IValueList in1 = {randomTensor({8, 8}, DType::f32).clone(), randomTensor({8, 8}, DType::f32).clone()};
  RunStats stats;
  IValueList out1 = exe->run(cloneInputs(in1), &stats);
  EXPECT_EQ(stats.kernelCalls, 4);
  // %a dies once %b exists, so %c takes its buffer, and %d takes %b's.
  EXPECT_EQ(stats.buffersReused, 2);
  Tensor saved = out1[0].toTensor().clone();
  IValueList in2 = {randomTensor({8, 8}, DType::f32).clone(), randomTensor({8, 8}, DType::f32).clone()};
  IValueList out2 = exe->run(cloneInputs(in2), &stats);
  expectSameOutputs(out1, {IValue(saved)}, 0);
  expectSameOutputs(out1, interpret(*g, cloneInputs(in1)), 0);
  expectSameOutputs(out2, interpret(*g, cloneInputs(in2)), 0);
  EXPECT_FALSE(out1[0].toTensor().sameStorage(out2[0].toTensor()));
  // Once the caller drops run 1's outputs, a later run may reuse them all.
  out1.clear();
  out2.clear();
  exe->run(cloneInputs(in2), &stats);
  EXPECT_EQ(stats.buffersReused, 4);
}

// A view a host op makes of a kernel output keeps that buffer out of reuse
// even after the kernel output itself is dead.
TEST_F(HandPlan, ViewOfAKernelOutputKeepsItsBuffer) {
  auto g = parseGraph(
      "graph(%x : f32[8,8], %y : f32[8,8]):\n"
      "  %0 : int = prim.constant[value=1]()\n"
      "  %a : f32[8,8] = add(%x, %y, %0)\n"
      "  %v : f32[8,8] = t(%a)\n"
      "  %b : f32[8,8] = abs(%x)\n"
      "  %l : List[Tensor] = prim.list_construct(%v, %b)\n"
      "  return (%l)\n");
  const Node* add = nodeOfKind(*g, "add");
  const Node* abs = nodeOfKind(*g, "abs");
  CodePlan plan = handPlan({handKernel("k0", KernelKind::GraphDefined, {add}, {add->output()},
                                       {add->input(0), add->input(1)}),
                            handKernel("k1", KernelKind::GraphDefined, {abs}, {abs->output()},
                                       {abs->input(0)})},
                           kChainC);
  auto exe = Executable::build(*g, std::move(plan), {});
  for (int round = 0; round < 3; ++round) {
    IValueList in = {randomTensor({8, 8}, DType::f32), randomTensor({8, 8}, DType::f32)};
    IValueList got = exe->run(cloneInputs(in));
    expectSameOutputs(got, interpret(*g, cloneInputs(in)), 0);
  }
}

// An input whose run-time shape differs from the static type (as for a
// data-dependent shape) runs the kernel's ops on the host instead.
TEST_F(HandPlan, UnexpectedShapeFallsBackToHost) {
  auto g = chainGraph();
  auto exe = Executable::build(*g, chainPlan(*g), {});
  IValueList in = {randomTensor({3, 5}, DType::f32), randomTensor({3, 5}, DType::f32)};
  expectSameOutputs(exe->run(cloneInputs(in)), interpret(*g, cloneInputs(in)), 0);
}

// In an imperative graph `contiguous` of a contiguous tensor is that tensor,
// and a later in-place write through it shows in the input: the copy kernel
// must leave it to the host there.
TEST_F(HandPlan, ImperativeContiguousKeepsAliasing) {
  auto g = parseGraph(
      "graph(%x : f32[6]):\n"
      "  %one : float = prim.constant[value=1.5]()\n"
      "  %al : int = prim.constant[value=1]()\n"
      "  %y : f32[6] = contiguous(%x)\n"
      "  %z : f32[6] = add_(%y, %one, %al)\n"
      "  return (%x)\n");
  const Node* contiguous = nodeOfKind(*g, "contiguous");
  ExecutableOptions options;
  options.pureGraph = false;
  auto exe = Executable::build(
      *g,
      handPlan({handKernel("c0", KernelKind::Copy, {contiguous}, {contiguous->output()},
                           {contiguous->input(0)})},
               ""),
      options);
  IValueList in = {randomTensor({6}, DType::f32)};
  IValueList mine = cloneInputs(in), theirs = cloneInputs(in);
  expectSameOutputs(exe->run(mine), interpret(*g, theirs), 0);
  expectSameOutputs(mine, theirs, 0);
  EXPECT_NE(mine[0].toTensor().getDouble(0), in[0].toTensor().getDouble(0));  // written
}

// What a failing run reports, as the CLI prints it.
std::string failureOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const UserError& e) {
    return "user: " + e.formatted();
  } catch (const RuntimeFailure& e) {
    return "runtime: " + e.formatted();
  }
  return "no failure";
}

// A host op failing after a kernel reports what the interpreter reports,
// with the failing node's location.
TEST_F(HandPlan, HostOpErrorsCarryTheNodeLocation) {
  auto g = parseGraph(
      "graph(%x : f32[3,4]):\n"
      "  %a : f32[3,4] = abs(%x)\n"
      "  %f : float = item.float(%a)  # prog.py:7:9\n"
      "  return (%f)\n");
  auto exe = Executable::build(*g, absPlan(*g, 12), {});
  IValueList in = {randomTensor({3, 4}, DType::f32)};
  std::string mine = failureOf([&] { exe->run(cloneInputs(in)); });
  std::string theirs = failureOf([&] { interpret(*g, cloneInputs(in)); });
  EXPECT_NE(mine, "no failure");
  EXPECT_NE(mine.find("prog.py:7:9: error: "), std::string::npos) << mine;
  EXPECT_EQ(mine, theirs);
}

// list.append grows its list where it lies only when nothing reads the
// list after it and no other value holds it; otherwise it copies, and the
// older list keeps its elements.
RunStats checkedListRun(Executable& exe, const Graph& g, const IValueList& in) {
  RunStats stats;
  IValueList got = exe.run(cloneInputs(in), &stats);
  expectSameOutputs(got, interpret(g, cloneInputs(in)));
  return stats;
}

TEST_F(HandPlan, AppendGrowsACarriedListInPlace) {
  auto g = parseGraph(
      "graph(%n : int, %m : int):\n"
      "  %t : bool = prim.constant[value=true]()\n"
      "  %l0 : List[int] = prim.list_construct(%m)\n"
      "  %r : List[int] = prim.loop(%n, %t, %l0)\n"
      "    block0(%i : int, %l : List[int]):\n"
      "      %l1 : List[int] = list.append(%l, %i)\n"
      "      -> (%t, %l1)\n"
      "  return (%r)\n");
  auto exe = Executable::build(*g, handPlan({}, ""), {});
  const int64_t n = 3 + (int64_t)(rng()() % 20);
  RunStats stats = checkedListRun(*exe, *g, {IValue(n), IValue((int64_t)(rng()() % 100))});
  EXPECT_EQ(stats.inPlaceAppends, n);
}

TEST_F(HandPlan, AppendCopiesAListReadAfterIt) {
  auto g = parseGraph(
      "graph(%n : int, %m : int):\n"
      "  %l0 : List[int] = prim.list_construct(%n)\n"
      "  %l1 : List[int] = list.append(%l0, %m)\n"
      "  %k : int = list.len(%l0)\n"
      "  %l2 : List[int] = list.append(%l1, %k)\n"
      "  return (%l0, %l2, %k)\n");
  auto exe = Executable::build(*g, handPlan({}, ""), {});
  RunStats stats = checkedListRun(*exe, *g, {IValue((int64_t)(rng()() % 100)), IValue((int64_t)(rng()() % 100))});
  EXPECT_EQ(stats.inPlaceAppends, 1);  // the second: %l1's last reader
}

// The list lives outside the loop: every iteration appends to the same
// one-element list, so each %l1 has two elements.
TEST_F(HandPlan, AppendInALoopKeepsTheOuterList) {
  auto g = parseGraph(
      "graph(%n : int, %m : int):\n"
      "  %t : bool = prim.constant[value=true]()\n"
      "  %l0 : List[int] = prim.list_construct(%m)\n"
      "  %r : int = prim.loop(%n, %t, %m)\n"
      "    block0(%i : int, %k : int):\n"
      "      %l1 : List[int] = list.append(%l0, %i)\n"
      "      %k1 : int = list.len(%l1)\n"
      "      -> (%t, %k1)\n"
      "  return (%r)\n");
  auto exe = Executable::build(*g, handPlan({}, ""), {});
  const int64_t n = 2 + (int64_t)(rng()() % 5);
  RunStats stats = checkedListRun(*exe, *g, {IValue(n), IValue((int64_t)(rng()() % 100))});
  EXPECT_EQ(stats.inPlaceAppends, 0);
}

TEST_F(HandPlan, WrongInputCountIsAUserError) {
  auto g = chainGraph();
  auto exe = Executable::build(*g, chainPlan(*g), {});
  EXPECT_THROW(exe->run({IValue(randomTensor({8, 8}, DType::f32))}), UserError);
}

}  // namespace
}  // namespace stitch
