// Loop kernels (ugraph/loop_kernels.h, runtime/loop_kernel.h) built by the
// real pipeline: recurrent cells, nested loops, carried values of every
// kind (produced by a kernel, passed through, swapped, scalars, appended
// rows, a KV cache written in place and read through views of a growing
// length), against the reference interpreter on fresh random inputs; the
// whole loop is one kernel call, its results do not depend on the thread
// count, and loops that need the host stay there.
#include <gtest/gtest.h>

#include "compiled_program.h"
#include "ugraph/kernel_graph_printer.h"

namespace stitch {
namespace {

using namespace rtest;

class LoopKernels : public ::testing::Test {
 protected:
  void SetUp() override { useScratchCache(); }
};

const char* kCell = R"PY(
def cell(xs: torch.Tensor, h: torch.Tensor, c: torch.Tensor, w: torch.Tensor,
         u: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    for t in range(xs.shape[0]):
        h = torch.tanh(xs[t] @ w + h @ u)
        c = c * 0.5 + torch.sigmoid(h)
    return h, c
)PY";

// Kernels the program calls outside its loops (once per run each).
int64_t kernelsOutsideLoops(const Compiled& c) {
  const KernelGraph& kg = c.exe->kernelGraph();
  return std::count_if(kg.kernels.begin(), kg.kernels.end(),
                       [&](const Kernel& k) { return k.nodes.front()->owningBlock() == c.result.graph->top(); });
}

IValueList cellInputs(int64_t steps, int64_t batch, int64_t hidden) {
  return {uniformF32({steps, batch, hidden}), uniformF32({batch, hidden}), uniformF32({batch, hidden}),
          uniformF32({hidden, hidden}, -0.3, 0.3), uniformF32({hidden, hidden}, -0.3, 0.3)};
}

std::vector<std::string> cellSpecs(int64_t steps, int64_t batch, int64_t hidden) {
  auto dims = [](std::vector<int64_t> d) {
    std::string s;
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return "f32[" + s + "]";
  };
  return {"xs=" + dims({steps, batch, hidden}), "h=" + dims({batch, hidden}), "c=" + dims({batch, hidden}),
          "w=" + dims({hidden, hidden}), "u=" + dims({hidden, hidden})};
}

// (A batch of one would have its input product run before the loop:
// InputProjectionsRunBeforeTheLoop.)
TEST_F(LoopKernels, RecurrentCellIsOneCall) {
  const int64_t steps = randIn(2, 12), batch = randIn(2, 3), hidden = randIn(5, 70);
  Compiled c = compileProgram(kCell, "cell", cellSpecs(steps, batch, hidden));
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  // The dump shows the loop with its phases, barriers and carried values.
  const std::string dump = printKernelGraph(c.exe->kernelGraph());
  for (const char* part : {"loop kernel loop0: %h", "  for %t in range(", "    phase k0 grid (", "; barrier",
                           "    carry %h.", "    carry %c."})
    EXPECT_NE(dump.find(part), std::string::npos) << part << " in\n" << dump;
  RunStats stats = expectAgreesWithInterpreter(c, cellInputs(steps, batch, hidden), 1e-5);
  EXPECT_EQ(stats.kernelCalls, 1);
}

// The phases' blocks are shared by however many threads there are; every
// output element is computed by the same code in the same order.
TEST_F(LoopKernels, ResultsDoNotDependOnTheThreadCount) {
  const int64_t steps = randIn(2, 9), batch = randIn(1, 4), hidden = randIn(16, 90);
  const IValueList inputs = cellInputs(steps, batch, hidden);
  IValueList first;
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    Compiled c = compileProgram(kCell, "cell", cellSpecs(steps, batch, hidden), threads);
    IValueList got = c.exe->run(cloneInputs(inputs));
    if (first.empty()) first = got;
    expectSameOutputs(got, first, 0.0);
  }
}

// A trip count that is a run-time parameter: one executable for every
// count, none included (the loop's outputs are then its inputs).
TEST_F(LoopKernels, TripCountIsARunTimeParameter) {
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor, w: torch.Tensor, n: int) -> torch.Tensor:
    h = x
    for i in range(n):
        h = torch.relu(h @ w + 0.25) - 0.5 * h
    return h
)PY",
                              "f", {"x=f32[3,24]", "w=f32[24,24]", "n=4"});
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  for (int64_t n : {(int64_t)0, (int64_t)1, (int64_t)7, (int64_t)-2}) {
    SCOPED_TRACE("n " + std::to_string(n));
    RunStats stats = expectAgreesWithInterpreter(
        c, {uniformF32({3, 24}), uniformF32({24, 24}, -0.2, 0.2), IValue(n)}, 1e-5);
    EXPECT_EQ(stats.kernelCalls, 1);
  }
}

// A while loop whose condition is int arithmetic: every thread computes it
// alike after each iteration; the count it stops at is known only then.
TEST_F(LoopKernels, WhileLoopOnAnIntCondition) {
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor, w: torch.Tensor, n: int) -> Tuple[torch.Tensor, int]:
    h = x
    i = 0
    while i < n:
        h = torch.tanh(h @ w) + 0.5 * h * i
        i += 2
    return h, i
)PY",
                              "f", {"x=f32[2,40]", "w=f32[40,40]", "n=7"});
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  const std::string dump = printKernelGraph(c.exe->kernelGraph());
  EXPECT_NE(dump.find(" at entry, then %"), std::string::npos) << dump;
  for (int64_t n : {(int64_t)0, (int64_t)1, (int64_t)7, (int64_t)8}) {
    SCOPED_TRACE("n " + std::to_string(n));
    RunStats stats =
        expectAgreesWithInterpreter(c, {uniformF32({2, 40}), uniformF32({40, 40}, -0.2, 0.2), IValue(n)}, 1e-5);
    EXPECT_EQ(stats.kernelCalls, 1);
  }
}

// Carried values of every kind: `a, b = b, a + b` (one produced by a
// kernel, one copied from the other's parameter), one passed through
// unchanged, an int counter read by a kernel and returned.
TEST_F(LoopKernels, CarriedValuesOfEveryKind) {
  Compiled c = compileProgram(R"PY(
def f(a: torch.Tensor, b: torch.Tensor, keep: torch.Tensor, n: int) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
    k = 1
    for i in range(n):
        a, b = b, (a + b * k) * 0.5 + keep
        k = k * 3 - i
    return a, b, keep, k
)PY",
                              "f", {"a=f32[4,33]", "b=f32[4,33]", "keep=f32[4,33]", "n=5"});
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  for (int64_t n : {(int64_t)0, (int64_t)1, (int64_t)2, (int64_t)6}) {
    SCOPED_TRACE("n " + std::to_string(n));
    RunStats stats = expectAgreesWithInterpreter(
        c, {uniformF32({4, 33}), uniformF32({4, 33}), uniformF32({4, 33}), IValue(n)}, 1e-5);
    EXPECT_EQ(stats.kernelCalls, 1);
  }
}

// An LSTM over layers and time: the loop over layers is nested in the loop
// over time, the state is written in place, each step's output is appended
// to a list that is stacked after the loop.
TEST_F(LoopKernels, NestedLoopsAndAppendedRows) {
  const int64_t steps = randIn(2, 6), layers = randIn(1, 3), batch = randIn(1, 3), hidden = randIn(3, 20);
  auto f32 = [](std::vector<int64_t> d) {
    std::string s;
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return "f32[" + s + "]";
  };
  Compiled c = compileProgram(R"PY(
def lstm(xs: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b: torch.Tensor, h: torch.Tensor,
         c: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    outputs: List[torch.Tensor] = []
    for t in range(xs.shape[0]):
        inp = xs[t]
        for l in range(h.shape[0]):
            gates = inp @ w_ih[l] + h[l] @ w_hh[l] + b[l]
            i, f, g, o = gates.chunk(4, 1)
            c_new = torch.sigmoid(f) * c[l] + torch.sigmoid(i) * torch.tanh(g)
            h_new = torch.sigmoid(o) * torch.tanh(c_new)
            c[l].copy_(c_new)
            h[l].copy_(h_new)
            inp = h_new
        outputs.append(inp)
    return torch.stack(outputs), h, c
)PY",
                              "lstm",
                              {"xs=" + f32({steps, batch, hidden}), "w_ih=" + f32({layers, hidden, 4 * hidden}),
                               "w_hh=" + f32({layers, hidden, 4 * hidden}), "b=" + f32({layers, 4 * hidden}),
                               "h=" + f32({layers, batch, hidden}), "c=" + f32({layers, batch, hidden})});
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  RunStats stats = expectAgreesWithInterpreter(
      c,
      {uniformF32({steps, batch, hidden}), uniformF32({layers, hidden, 4 * hidden}, -0.4, 0.4),
       uniformF32({layers, hidden, 4 * hidden}, -0.4, 0.4), uniformF32({layers, 4 * hidden}),
       uniformF32({layers, batch, hidden}), uniformF32({layers, batch, hidden})},
      1e-5);
  // The stack of a list of run-time length is a host op. One layer of a
  // batch of one has its input product run before the loop (a kernel of
  // the top block).
  EXPECT_EQ(stats.kernelCalls, 1 + kernelsOutsideLoops(c));
}

// An input read through strides (a transposed view) is read densely.
TEST_F(LoopKernels, StridedInputs) {
  Compiled c = compileProgram(kCell, "cell", cellSpecs(3, 2, 9));
  IValueList inputs = cellInputs(3, 2, 9);
  const Tensor w = uniformF32({9, 9}, -0.3, 0.3);
  inputs[3] = w.asStrided({9, 9}, {1, 9}, 0);
  RunStats stats = expectAgreesWithInterpreter(c, inputs, 1e-5);
  EXPECT_EQ(stats.kernelCalls, 1);
}

// Loops that read a tensor's value on the host, or branch on one, keep
// their host steps; the loops around and beside them still run.
TEST_F(LoopKernels, LoopsThatNeedTheHostStayThere) {
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    h = x
    for i in range(4):
        h = torch.tanh(h @ w)
        if float(h.sum()) > 0.0:
            h = h * 0.5
    for i in range(3):
        h = h + float(int(h.argmax()))
    return h
)PY",
                              "f", {"x=f32[2,16]", "w=f32[16,16]"});
  EXPECT_TRUE(c.exe->kernelGraph().loops.empty());
  expectAgreesWithInterpreter(c, {uniformF32({2, 16}), uniformF32({16, 16}, -0.3, 0.3)}, 1e-5);
}

// A row written per iteration into a large carried tensor: in a kernel the
// write copies the whole tensor each time, on the host it goes in place; a
// small one is copied in the loop kernel.
TEST_F(LoopKernels, RowWritesIntoLargeTensorsStayOnTheHost) {
  const char* source = R"PY(
def f(x: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    for i in range(out.shape[0]):
        out[i] = torch.tanh(x[i] @ w)
    return out
)PY";
  for (int64_t rows : {(int64_t)6, (int64_t)200}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    const std::string r = std::to_string(rows);
    Compiled c = compileProgram(source, "f", {"x=f32[" + r + ",16]", "w=f32[16,128]", "out=f32[" + r + ",128]"});
    EXPECT_EQ(c.exe->kernelGraph().loops.size(), rows == 6 ? 1u : 0u);
    expectAgreesWithInterpreter(c, {uniformF32({rows, 16}), uniformF32({16, 128}), uniformF32({rows, 128})}, 1e-5);
  }
}

// A decode step with a KV cache: the step's key and value rows are written
// into the caches in place, the query attends to the rows written so far (a
// length that grows with the step), the outputs are appended.
const char* kDecode = R"PY(
def decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cache_k: torch.Tensor,
           cache_v: torch.Tensor, start: int) -> Tuple[torch.Tensor, torch.Tensor]:
    outputs: List[torch.Tensor] = []
    for t in range(q.shape[0]):
        pos = start + t
        cache_k[pos] = k[t]
        cache_v[pos] = v[t]
        keys = cache_k[:pos + 1].transpose(0, 1)
        values = cache_v[:pos + 1].transpose(0, 1)
        scores = (q[t].unsqueeze(1) @ keys.transpose(-1, -2)) * 0.25
        outputs.append((torch.softmax(scores, dim=-1) @ values).squeeze(1))
    return torch.stack(outputs), cache_k
)PY";

struct DecodeShape {
  int64_t steps, heads, dim, positions;
};

Compiled compileDecode(const DecodeShape& d, int threads = 0) {
  const std::string rows = std::to_string(d.steps) + "," + std::to_string(d.heads) + "," + std::to_string(d.dim);
  const std::string cache = std::to_string(d.positions) + "," + std::to_string(d.heads) + "," + std::to_string(d.dim);
  return compileProgram(kDecode, "decode",
                        {"q=f32[" + rows + "]", "k=f32[" + rows + "]", "v=f32[" + rows + "]",
                         "cache_k=f32[" + cache + "]", "cache_v=f32[" + cache + "]", "start=0"},
                        threads);
}

IValueList decodeInputs(const DecodeShape& d, int64_t start) {
  return {uniformF32({d.steps, d.heads, d.dim}),     uniformF32({d.steps, d.heads, d.dim}),
          uniformF32({d.steps, d.heads, d.dim}),     uniformF32({d.positions, d.heads, d.dim}),
          uniformF32({d.positions, d.heads, d.dim}), IValue(start)};
}

TEST_F(LoopKernels, KvCacheDecodeIsOneCall) {
  const DecodeShape d{randIn(1, 6), randIn(1, 5), randIn(3, 70), 0};
  const DecodeShape shape{d.steps, d.heads, d.dim, d.steps + randIn(0, 300)};
  Compiled c = compileDecode(shape);
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  const std::string dump = printKernelGraph(c.exe->kernelGraph());
  for (const char* part : {"    view %keys=immut.transpose(%", " in place: %", "    carry %cache_k."})
    EXPECT_NE(dump.find(part), std::string::npos) << part << " in\n" << dump;
  const int64_t start = randIn(0, shape.positions - shape.steps);
  SCOPED_TRACE("start " + std::to_string(start) + " positions " + std::to_string(shape.positions));
  IValueList inputs = decodeInputs(shape, start);
  RunStats stats = expectAgreesWithInterpreter(c, inputs, 1e-5);
  EXPECT_EQ(stats.kernelCalls, 1);
  // The caches are written where they lie: the returned one is the argument.
  IValueList mine = cloneInputs(inputs);
  IValueList got = c.exe->run(mine);
  EXPECT_TRUE(got[1].toTensor().sameStorage(mine[3].toTensor()));
}

// The team splits the heads and the rows written; each output element is
// computed by the same code in the same order on any thread count.
TEST_F(LoopKernels, KvCacheDecodeDoesNotDependOnTheThreadCount) {
  const DecodeShape shape{randIn(2, 5), randIn(2, 8), 64, 0};
  const DecodeShape d{shape.steps, shape.heads, shape.dim, shape.steps + randIn(200, 700)};
  const IValueList inputs = decodeInputs(d, randIn(0, d.positions - d.steps));
  IValueList first;
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    Compiled c = compileDecode(d, threads);
    IValueList got = c.exe->run(cloneInputs(inputs));
    if (first.empty()) first = got;
    expectSameOutputs(got, first, 0.0);
  }
}

// A cache that shares its memory with another argument (k is a view of
// cache_k's first rows, which the writes overwrite) is written in a copy:
// the program sees the arguments as they were passed.
TEST_F(LoopKernels, KvCacheSharingAnArgumentsMemoryIsCopied) {
  const DecodeShape d{4, 3, 8, 9};
  Compiled c = compileDecode(d);
  IValueList in = decodeInputs(d, 1);
  const Tensor& cacheK = in[3].toTensor();
  in[1] = IValue(cacheK.asStrided({d.steps, d.heads, d.dim}, {d.heads * d.dim, d.dim, 1}, 0));
  IValueList reference = {in[0], IValue(in[1].toTensor().clone()), in[2], IValue(cacheK.clone()), in[4], in[5]};
  RunStats stats;
  IValueList got = c.exe->run(in, &stats);
  EXPECT_EQ(stats.kernelCalls, 1);
  expectSameOutputs(got, interpret(*c.result.graph, cloneInputs(reference)), 1e-5);
}

// A step index past the cache raises the interpreter's error at the write,
// with its location, on any thread count.
TEST_F(LoopKernels, KvCacheIndexOutOfRangeIsTheInterpretersError) {
  const DecodeShape d{3, 2, 8, 5};
  for (int threads : {1, 2}) {
    Compiled c = compileDecode(d, threads);
    IValueList in = decodeInputs(d, 3);  // the last step writes row 5 of 5
    std::string got = "no failure", want = "no failure";
    try {
      c.exe->run(cloneInputs(in));
    } catch (const RuntimeFailure& e) {
      got = e.formatted();
    }
    try {
      interpret(*c.result.parsed, cloneInputs(in));
    } catch (const RuntimeFailure& e) {
      want = e.formatted();
    }
    EXPECT_NE(want.find("index 5 is out of bounds for dimension 0 with size 5"), std::string::npos) << want;
    EXPECT_EQ(got, want);
  }
}

// The cache's old row copied before the write (`old` keeps the row's old
// value): the copy is a kernel reading a view of the parameter, so the loop
// stays on the host, and the results are the interpreter's. (The rule that
// a value read before its write is not written in place is checked on a
// graph that can express it: KernelPlanner.LoopKernelWritesInPlaceOnlyOverDeadValues.)
TEST_F(LoopKernels, KvCacheReadBeforeItsWriteStaysOnTheHost) {
  Compiled c = compileProgram(R"PY(
def f(q: torch.Tensor, k: torch.Tensor, cache_k: torch.Tensor, start: int) -> torch.Tensor:
    outputs: List[torch.Tensor] = []
    for t in range(k.shape[0]):
        pos = start + t
        old = cache_k[pos].clone()
        cache_k[pos] = k[t]
        keys = cache_k[:pos + 1].transpose(0, 1)
        scores = (old.unsqueeze(1) @ keys.transpose(-1, -2)) * 0.5
        outputs.append((torch.softmax(scores, dim=-1) @ keys).squeeze(1))
    return torch.stack(outputs)
)PY",
                              "f", {"q=f32[3,2,8]", "k=f32[3,2,8]", "cache_k=f32[6,2,8]", "start=1"});
  EXPECT_TRUE(c.exe->kernelGraph().loops.empty());
  expectAgreesWithInterpreter(
      c, {uniformF32({3, 2, 8}), uniformF32({3, 2, 8}), uniformF32({6, 2, 8}), IValue((int64_t)2)}, 1e-5);
}

// An RNN's input projections (x_t by fixed weights, entries of a stack)
// run as one product over every step before the loop kernel: two calls,
// the loop streaming only the recurrent weights.
TEST_F(LoopKernels, InputProjectionsRunBeforeTheLoop) {
  const int64_t steps = randIn(2, 8), hidden = randIn(40, 90);
  const std::string h = std::to_string(hidden), s = std::to_string(steps);
  Compiled c = compileProgram(R"PY(
def f(xs: torch.Tensor, h: torch.Tensor, w_x: torch.Tensor, w_h: torch.Tensor) -> torch.Tensor:
    for t in range(xs.shape[0]):
        x = xs[t]
        h = torch.tanh(x @ w_x[0] + h @ w_h[0]) * torch.sigmoid(x @ w_x[1] + h @ w_h[1])
    return h
)PY",
                              "f", {"xs=f32[" + s + ",1," + h + "]", "h=f32[1," + h + "]",
                                    "w_x=f32[2," + h + "," + h + "]", "w_h=f32[2," + h + "," + h + "]"});
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  RunStats stats = expectAgreesWithInterpreter(
      c, {uniformF32({steps, 1, hidden}), uniformF32({1, hidden}), uniformF32({2, hidden, hidden}, -0.2, 0.2),
          uniformF32({2, hidden, hidden}, -0.2, 0.2)},
      1e-5);
  EXPECT_EQ(stats.kernelCalls, 2);
}

// Keys the step's kernel computes, read by the attention through a view:
// the team meets between the two (a view's memory is not a value the
// phases' conflict check compares), so no phase here runs without a
// barrier after it.
TEST_F(LoopKernels, AttentionWaitsForTheKernelItsViewsRead) {
  Compiled c = compileProgram(R"PY(
def f(q: torch.Tensor, k: torch.Tensor, n: int) -> torch.Tensor:
    outputs: List[torch.Tensor] = []
    for t in range(n):
        kv = torch.tanh(k + t)
        keys = kv[:, :t + 1]
        scores = (q[t].unsqueeze(1) @ keys.transpose(-1, -2)) * 0.5
        outputs.append((torch.softmax(scores, dim=-1) @ keys).squeeze(1))
    return torch.stack(outputs)
)PY",
                              "f", {"q=f32[6,4,32]", "k=f32[4,300,32]", "n=6"}, 2);
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  const std::string dump = printKernelGraph(c.exe->kernelGraph());
  size_t phases = 0;
  for (size_t at = dump.find("    phase "); at != std::string::npos; at = dump.find("    phase ", at + 1)) {
    const std::string line = dump.substr(at, dump.find('\n', at) - at);
    EXPECT_NE(line.find("; barrier"), std::string::npos) << line << " in\n" << dump;
    ++phases;
  }
  EXPECT_EQ(phases, 2u) << dump;
  RunStats stats = expectAgreesWithInterpreter(c, {uniformF32({6, 4, 32}), uniformF32({4, 300, 32}), IValue((int64_t)6)}, 1e-5);
  EXPECT_EQ(stats.kernelCalls, 1);
}

// Rows appended by a loop kernel may have any rank (a view, which is
// copied by its layout, has at most kMaxLoopRank dims; a kernel's output
// any number).
TEST_F(LoopKernels, AppendedRowsOfHighRank) {
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor, n: int) -> torch.Tensor:
    outs: List[torch.Tensor] = []
    h = x
    for t in range(n):
        h = torch.tanh(h + x)
        outs.append(h)
    return torch.stack(outs)
)PY",
                              "f", {"x=f32[2,1,3,1,1,1,1,1,1,2]", "n=3"});
  ASSERT_EQ(c.exe->kernelGraph().loops.size(), 1u);
  RunStats stats = expectAgreesWithInterpreter(c, {uniformF32({2, 1, 3, 1, 1, 1, 1, 1, 1, 2}), IValue((int64_t)4)}, 1e-5);
  EXPECT_EQ(stats.kernelCalls, 1);
}

}  // namespace
}  // namespace stitch
