// Large contractions run as predefined kernels (the library routine), small
// ones as generated loop nests; both agree with the reference interpreter on
// fresh random inputs, inside loops too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiled_program.h"
#include "runtime/contraction_kernel.h"
#include "runtime/host_products.h"

namespace stitch {
namespace {

using namespace rtest;

int kernelsOfKind(const Compiled& c, KernelKind kind) {
  int n = 0;
  for (const Kernel& k : c.exe->kernelGraph().kernels) n += k.kind == kind;
  return n;
}

// The outputs of a run, tuples flattened.
std::vector<Tensor> tensorsOf(const IValueList& outputs) {
  std::vector<Tensor> ts;
  for (const IValue& v : outputs) {
    if (v.isTensor()) {
      ts.push_back(v.toTensor());
    } else {
      for (const IValue& e : v.toList()) ts.push_back(e.toTensor());
    }
  }
  return ts;
}

// "name=f32[d0,d1,...]", a compile spec.
std::string f32Spec(const char* name, const Shape& shape) {
  std::string text = std::string(name) + "=f32[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

// The predefined contraction kernels of a compiled program, made anew for
// `threads` (null where the backend refuses one); there must be `expected`.
std::vector<std::unique_ptr<ContractionKernel>> contractionKernels(const Compiled& c, int threads,
                                                                   size_t expected) {
  std::vector<std::unique_ptr<ContractionKernel>> kernels;
  for (const Kernel& kernel : c.exe->kernelGraph().kernels)
    if (kernel.kind == KernelKind::Contraction) kernels.push_back(ContractionKernel::create(kernel.nodes, threads));
  EXPECT_EQ(kernels.size(), expected) << "contraction kernels";
  return kernels;
}

// Two runs' outputs, element for element the same bits.
void expectSameBits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(std::memcmp(a[i].rawData(), b[i].rawData(), (size_t)a[i].numel() * sizeof(float)), 0)
        << "output " << i;
}

// A run's outputs, checked against the interpreter's within tolerance.
std::vector<Tensor> runChecked(const Compiled& c, const IValueList& in) {
  IValueList got = c.exe->run(cloneInputs(in));
  expectSameOutputs(got, interpret(*c.result.parsed, cloneInputs(in)), 1e-4);
  return tensorsOf(got);
}

// Every run's outputs with the first run's bits.
void expectSameBitsAsTheFirst(const std::vector<std::vector<Tensor>>& runs) {
  for (size_t r = 1; r < runs.size(); ++r) {
    SCOPED_TRACE("run " + std::to_string(r));
    expectSameBits(runs[0], runs[r]);
  }
}

TEST(ContractionKernel, PredefinedAndGeneratedAgreeWithTheInterpreter) {
  useScratchCache();
  Compiled c = compileProgram(R"PY(
def f(a: torch.Tensor, b: torch.Tensor, w: torch.Tensor, n: int) -> Tuple[torch.Tensor, torch.Tensor]:
    h = torch.relu(a @ b)
    for i in range(n):
        h = torch.tanh(torch.nn.functional.linear(h, w)) + h
    return h, h.t() @ h
)PY", "f", {"a=f32[70,90]", "b=f32[90,65]", "w=f32[65,65]", "n=3"});
  EXPECT_GE(kernelsOfKind(c, KernelKind::Contraction), 3);
  IValueList in{randomTensor({70, 90}, DType::f32), randomTensor({90, 65}, DType::f32),
                randomTensor({65, 65}, DType::f32), IValue(int64_t(3))};
  RunStats stats;
  std::vector<Tensor> got = tensorsOf(c.exe->run(cloneInputs(in), &stats));
  std::vector<Tensor> want = tensorsOf(interpret(*c.result.parsed, cloneInputs(in)));
  EXPECT_GT(stats.kernelCalls, 0);
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(want.size(), 2u);
  {
    SCOPED_TRACE("h");
    expectSameValues(IValue(got[0]), IValue(want[0]), 1e-4);
  }
  // h.t() @ h sums 70 products of h's entries (up to ~5). Where they cancel,
  // the f32 rounding of the chunked products (and h's own, carried through)
  // is a fraction of the terms' magnitude, not of the result's: allow 32
  // f32 ulps of sum_k |h_ki| |h_kj| on top (at most ~8 seen in 100 runs).
  const double ulp = std::ldexp(1.0, -23);
  const Tensor& h = want[0];
  const int64_t rows = h.sizes()[0], cols = h.sizes()[1];
  ASSERT_EQ(got[1].sizes(), (Shape{cols, cols}));
  for (int64_t i = 0; i < cols; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double terms = 0;
      for (int64_t k = 0; k < rows; ++k)
        terms += std::abs(h.getDouble(k * cols + i)) * std::abs(h.getDouble(k * cols + j));
      const double x = got[1].getDouble(i * cols + j), y = want[1].getDouble(i * cols + j);
      ASSERT_NEAR(x, y, 1e-4 * (1 + std::abs(y)) + 32 * ulp * terms)
          << "h.t() @ h element (" << i << ", " << j << "), terms " << terms;
    }
}

// Every matmul-family form the tensor-operation backend takes (and f64,
// which it does not: the interpreter's routine runs it), each above the
// predefined-kernel threshold, against the interpreter on fresh inputs.
// linear's W is packed into panels with a narrower last one (n is no
// multiple of 16 or 64), or into one panel narrower than a pass (wn: n =
// 48), and so is B of the two batched products with kMinPackedRows rows
// (pb @ qb, one B per batch entry, and ab @ rb, one A for all); the others
// have too few rows to pay for packing B and read it in place (u @ v has
// too few columns as well). a @ r multiplies one A by every entry of a
// stack (a loop's row products hoisted before it).
TEST(ContractionKernel, BackendFormsAgreeWithTheInterpreter) {
  useScratchCache();
  Compiled c = compileProgram(R"PY(
def f(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor,
      p: torch.Tensor, q: torch.Tensor, d: torch.Tensor, e: torch.Tensor, s: torch.Tensor,
      g: torch.Tensor, u: torch.Tensor, v: torch.Tensor, r: torch.Tensor, pb: torch.Tensor,
      qb: torch.Tensor, ab: torch.Tensor, rb: torch.Tensor, wn: torch.Tensor):
    return (torch.mm(a, b), torch.matmul(x, b), torch.nn.functional.linear(x, w, bias),
            torch.nn.functional.linear(x, w), torch.bmm(p, q), torch.matmul(p, q), d @ e,
            s @ g, u @ v, a @ r, torch.bmm(pb, qb), ab @ rb, torch.nn.functional.linear(u, wn))
)PY", "f", {"a=f32[97,130]", "b=f32[130,75]", "x=f32[3,41,130]", "w=f32[66,130]", "bias=f32[66]",
             "p=f32[5,70,40]", "q=f32[5,40,90]", "d=f64[80,70]", "e=f64[70,60]", "s=f32[8,300]",
             "g=f32[300,200]", "u=f32[200,300]", "v=f32[300,12]", "r=f32[3,130,70]",
             "pb=f32[2,512,24]", "qb=f32[2,24,70]", "ab=f32[512,24]", "rb=f32[2,24,70]",
             "wn=f32[48,300]"});
  EXPECT_EQ(kernelsOfKind(c, KernelKind::Contraction), 13);
  int packed = 0;
  for (const Kernel& kernel : c.exe->kernelGraph().kernels)
    if (kernel.kind == KernelKind::Contraction) {
      std::unique_ptr<ContractionKernel> ck = ContractionKernel::create(kernel.nodes, 1);
      packed += ck && ck->packsB();
    }
  EXPECT_EQ(packed, 5);  // the three linears, pb @ qb and ab @ rb
  IValueList in{randomTensor({97, 130}, DType::f32), randomTensor({130, 75}, DType::f32),
                randomTensor({3, 41, 130}, DType::f32), randomTensor({66, 130}, DType::f32),
                randomTensor({66}, DType::f32), randomTensor({5, 70, 40}, DType::f32),
                randomTensor({5, 40, 90}, DType::f32), randomTensor({80, 70}, DType::f64),
                randomTensor({70, 60}, DType::f64), randomTensor({8, 300}, DType::f32),
                randomTensor({300, 200}, DType::f32), randomTensor({200, 300}, DType::f32),
                randomTensor({300, 12}, DType::f32), randomTensor({3, 130, 70}, DType::f32),
                randomTensor({2, 512, 24}, DType::f32), randomTensor({2, 24, 70}, DType::f32),
                randomTensor({512, 24}, DType::f32), randomTensor({2, 24, 70}, DType::f32),
                randomTensor({48, 300}, DType::f32)};
  IValueList got = c.exe->run(cloneInputs(in));
  IValueList want = interpret(*c.result.parsed, cloneInputs(in));
  expectSameOutputs(got, want, 1e-4);
}

// A contraction's bias and relu run in its kernel, on each tile as it is
// finished (ugraph/contraction_epilogue.h): the bias on either side of the
// add, alone, or absent, after linear's own bias too, and GELU after a
// bias. The groups an epilogue must not take keep a kernel of their own: a
// product read twice, a bias broadcast from neither one row nor C's shape.
// (Each bias is its own tensor: epilogues sharing one are grouped into one
// kernel by fusion, and stay apart from their products.) Against the
// interpreter on fresh inputs, and the same bits on 1 and 3 threads.
TEST(ContractionKernel, BiasAndReluRunInTheContractionsKernel) {
  useScratchCache();
  const std::string source = R"PY(
def f(x: torch.Tensor, w1: torch.Tensor, w2: torch.Tensor, w3: torch.Tensor, w4: torch.Tensor,
      w5: torch.Tensor, w6: torch.Tensor, w7: torch.Tensor, b: torch.Tensor, wl: torch.Tensor,
      bl: torch.Tensor, m: torch.Tensor, b2: torch.Tensor, b6: torch.Tensor):
    y1 = torch.relu(x @ w1 + b)
    y2 = torch.relu(b2 + x @ w2)
    y3 = torch.relu(x @ w3)
    y4 = torch.relu(torch.nn.functional.linear(x, wl, bl))
    y5 = x @ w4 + b6
    y6 = torch.nn.functional.gelu(x @ w5 + bl)
    z = x @ w6
    y7 = torch.relu(z)
    y8 = torch.relu(x @ w7 + m)
    return y1, y2, y3, y4, y5, y6, y7, z, y8
)PY";
  const int64_t rows = 64 + randIn(0, 40), k = 130 + randIn(0, 70), n = 64 + randIn(0, 60);
  std::vector<std::string> specs{f32Spec("x", {rows, k})};
  for (const char* w : {"w1", "w2", "w3", "w4", "w5", "w6", "w7"}) specs.push_back(f32Spec(w, {k, n}));
  for (const std::string& s : {f32Spec("b", {n}), f32Spec("wl", {n, k}), f32Spec("bl", {n}),
                               f32Spec("m", {rows, 1}), f32Spec("b2", {n}), f32Spec("b6", {n})})
    specs.push_back(s);
  IValueList in{randomTensor({rows, k}, DType::f32)};
  for (int i = 0; i < 7; ++i) in.push_back(randomTensor({k, n}, DType::f32));
  in.push_back(randomTensor({n}, DType::f32));
  in.push_back(randomTensor({n, k}, DType::f32));
  in.push_back(randomTensor({n}, DType::f32));
  in.push_back(randomTensor({rows, 1}, DType::f32));
  in.push_back(randomTensor({n}, DType::f32));
  in.push_back(randomTensor({n}, DType::f32));
  std::vector<IValueList> runs;
  for (int threads : {1, 3}) {
    Compiled c = compileProgram(source, "f", specs, threads);
    int withEpilogue = 0;
    for (const Kernel& kernel : c.exe->kernelGraph().kernels)
      withEpilogue += kernel.kind == KernelKind::Contraction && kernel.nodes.size() > 1;
    EXPECT_EQ(withEpilogue, 6) << "y1 .. y6 take their epilogues; z and y8's products do not";
    EXPECT_EQ(kernelsOfKind(c, KernelKind::Contraction), 8);
    IValueList got = c.exe->run(cloneInputs(in));
    expectSameOutputs(got, interpret(*c.result.parsed, cloneInputs(in)), 1e-4);
    runs.push_back(got);
  }
  expectSameBits(tensorsOf(runs[0]), tensorsOf(runs[1]));
}

// Each activation an epilogue applies besides relu (GELU in both forms,
// sigmoid, tanh, SiLU) runs on each finished tile in a function of the
// program's compiled C: the same bits as the bias and activation run as a
// kernel of their own (the product returned too, so the group cannot merge),
// on one thread (row tiles) and two (the threads share the columns), and
// the interpreter's values within tolerance.
TEST(ContractionKernel, ActivationsRunOnEachTileAsTheirOwnKernelComputesThem) {
  useScratchCache();
  const std::vector<std::string> activations = {"torch.nn.functional.gelu(y)",
                                                "torch.nn.functional.gelu(y, approximate='tanh')",
                                                "torch.sigmoid(y)", "torch.tanh(y)", "torch.nn.functional.silu(y)"};
  const int64_t rows = 64 + randIn(0, 40), k = 100 + randIn(0, 60), n = 300 + randIn(0, 80);
  const std::vector<std::string> specs{f32Spec("x", {rows, k}), f32Spec("w", {k, n}), f32Spec("b", {n})};
  const IValueList in{randomTensor({rows, k}, DType::f32), randomTensor({k, n}, DType::f32),
                      randomTensor({n}, DType::f32)};
  for (const std::string& act : activations) {
    SCOPED_TRACE(act);
    const std::string merged = "def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):\n"
                               "    y = x @ w + b\n"
                               "    return " + act + "\n";
    const std::string apart = "def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):\n"
                              "    p = x @ w\n"
                              "    y = p + b\n"
                              "    return " + act + ", p\n";
    for (int threads : {1, 2}) {
      SCOPED_TRACE(threads);
      Compiled fused = compileProgram(merged, "f", specs, threads);
      ASSERT_EQ(fused.exe->kernelGraph().kernels.size(), 1u) << "the product and its epilogue, one kernel";
      Compiled own = compileProgram(apart, "f", specs, threads);
      EXPECT_EQ(kernelsOfKind(own, KernelKind::GraphDefined), 1) << "the bias and activation, a kernel of its own";
      IValueList got = fused.exe->run(cloneInputs(in));
      expectSameOutputs(got, interpret(*fused.result.parsed, cloneInputs(in)), 1e-4);
      IValueList reference = own.exe->run(cloneInputs(in));
      expectSameBits(tensorsOf(got), {reference.at(0).toTensor()});
    }
  }
}

// Steps after the bias combine the tile with tensors of C's shape: a
// residual added (before or after an activation), SwiGLU's silu(g) * p,
// an operand through tanh, up to a bias and three steps, after linear's
// bias too. Each runs in the contraction's kernel with the same bits as
// the group run as a kernel of its own (the product returned too, so the
// group cannot merge), on one thread (row tiles, or dot products for
// linear of 8 rows) and two (parts of C's columns for 8 and 16 rows), and
// the interpreter's values within tolerance. An operand the group computes
// and returns keeps the group a kernel of its own.
TEST(ContractionKernel, EpilogueStepsCombineTensorsOfTheProductsShape) {
  useScratchCache();
  const std::vector<std::string> chains = {
      "p + r",
      "torch.relu(p + b) + r",
      "torch.relu(p + r)",
      "torch.nn.functional.silu(g) * p",
      "r * torch.sigmoid(p)",
      "(p + b) * torch.tanh(g) + r",
      "torch.nn.functional.gelu(p * g)",
  };
  const int64_t k = 130 + randIn(0, 60), n = 300 + randIn(0, 60);
  for (const int64_t m : {int64_t(8), int64_t(16), int64_t(200)}) {
    const std::vector<std::string> specs{f32Spec("x", {m, k}), f32Spec("w", {k, n}), f32Spec("wl", {n, k}),
                                         f32Spec("b", {n}), f32Spec("r", {m, n}), f32Spec("g", {m, n})};
    const IValueList in{randomTensor({m, k}, DType::f32), randomTensor({k, n}, DType::f32),
                        randomTensor({n, k}, DType::f32), randomTensor({n}, DType::f32),
                        randomTensor({m, n}, DType::f32), randomTensor({m, n}, DType::f32)};
    for (const std::string& chain : chains) {
      for (const char* product : {"x @ w", "torch.nn.functional.linear(x, wl, b)"}) {
        const std::string params =
            "(x: torch.Tensor, w: torch.Tensor, wl: torch.Tensor, b: torch.Tensor, r: torch.Tensor, g: torch.Tensor):\n";
        const std::string merged = "def f" + params + "    p = " + product + "\n    return " + chain + "\n";
        const std::string apart = "def f" + params + "    p = " + product + "\n    return " + chain + ", p\n";
        for (int threads : {1, 2}) {
          SCOPED_TRACE(std::to_string(m) + " rows, " + product + ": " + chain + ", threads " + std::to_string(threads));
          Compiled fused = compileProgram(merged, "f", specs, threads);
          ASSERT_EQ(fused.exe->kernelGraph().kernels.size(), 1u) << "the product and its epilogue, one kernel";
          Compiled own = compileProgram(apart, "f", specs, threads);
          EXPECT_EQ(kernelsOfKind(own, KernelKind::GraphDefined), 1) << "the steps, a kernel of their own";
          for (const auto& ck : contractionKernels(fused, threads, 1)) {
            ASSERT_TRUE(ck);
            EXPECT_EQ(ck->columnParts() > 0, threads == 2 && m <= 16 && !ck->form().transposedB);
            EXPECT_EQ(ck->runsDots(), ck->form().transposedB && m <= kFewRows);
          }
          IValueList got = fused.exe->run(cloneInputs(in));
          expectSameOutputs(got, interpret(*fused.result.parsed, cloneInputs(in)), 1e-4);
          IValueList reference = own.exe->run(cloneInputs(in));
          expectSameBits(tensorsOf(got), {reference.at(0).toTensor()});
        }
      }
    }
  }
  // The operand's activation is returned too: it stays a tensor of its own.
  Compiled c = compileProgram(R"PY(
def f(x: torch.Tensor, w: torch.Tensor, g: torch.Tensor):
    t = torch.tanh(g)
    return (x @ w) * t, t
)PY",
                              "f", {f32Spec("x", {16, k}), f32Spec("w", {k, n}), f32Spec("g", {16, n})}, 2);
  for (const Kernel& kernel : c.exe->kernelGraph().kernels)
    EXPECT_FALSE(kernel.kind == KernelKind::Contraction && kernel.nodes.size() > 1) << "no epilogue merged";
}

// SwiGLU's two products of one A, silu(x wg) * (x wu), either way round,
// and through linear: the gate product is the up product's sibling, one
// kernel computes both, the gate's part by part with the up product's
// where the threads take parts of C's columns (kept by the thread that
// reads it), else whole first. The same bits as the two products planned
// apart (the gate product returned too, so it stays a kernel of its own),
// on 1, 2 and 3 threads, on 8 and 16 rows (parts), 200 (row tiles) and
// 520 (B packed), and the interpreter's values within tolerance.
TEST(ContractionKernel, SiblingProductsOfOneARunInOneKernel) {
  useScratchCache();
  const std::vector<std::pair<std::string, std::string>> forms = {
      {"x @ wg", "x @ wu"}, {"torch.nn.functional.linear(x, lg)", "torch.nn.functional.linear(x, lu)"}};
  // Enough multiply-adds (2^18) for the predefined kernel on 8 rows, and
  // columns for a part of at least 128 a thread on 3 threads.
  const int64_t k = 120 + randIn(0, 20), n = 400 + randIn(0, 40);
  for (const int64_t m : {int64_t(8), int64_t(16), int64_t(200), ContractionKernel::kMinPackedRows + 8}) {
    const std::vector<std::string> specs{f32Spec("x", {m, k}), f32Spec("wg", {k, n}), f32Spec("wu", {k, n}),
                                         f32Spec("lg", {n, k}), f32Spec("lu", {n, k})};
    const IValueList in{randomTensor({m, k}, DType::f32), randomTensor({k, n}, DType::f32),
                        randomTensor({k, n}, DType::f32), randomTensor({n, k}, DType::f32),
                        randomTensor({n, k}, DType::f32)};
    const std::string params = "(x: torch.Tensor, wg: torch.Tensor, wu: torch.Tensor, lg: torch.Tensor, lu: torch.Tensor):\n";
    for (const auto& [gate, up] : forms) {
      for (const bool gateFirst : {true, false}) {
        const std::string g = "    g = " + gate + "\n", u = "    u = " + up + "\n";
        const std::string body = gateFirst ? g + u : u + g;
        const std::string merged = "def f" + params + body + "    return torch.nn.functional.silu(g) * u\n";
        const std::string apart = "def f" + params + body + "    return torch.nn.functional.silu(g) * u, g\n";
        for (int threads : {1, 2, 3}) {
          SCOPED_TRACE(std::to_string(m) + " rows, " + up + (gateFirst ? ", gate first" : ", up first") +
                       ", threads " + std::to_string(threads));
          Compiled fused = compileProgram(merged, "f", specs, threads);
          ASSERT_EQ(fused.exe->kernelGraph().kernels.size(), 1u) << "both products and the epilogue, one kernel";
          EXPECT_EQ(fused.exe->kernelGraph().kernels[0].nodes.size(), 4u);
          Compiled own = compileProgram(apart, "f", specs, threads);
          EXPECT_EQ(kernelsOfKind(own, KernelKind::Contraction), 2) << "the gate product, a kernel of its own";
          for (const auto& ck : contractionKernels(fused, threads, 1)) {
            ASSERT_TRUE(ck);
            ASSERT_TRUE(ck->sibling());
            EXPECT_EQ(ck->siblingByParts(), threads > 1 && m <= 16 && !ck->form().transposedB);
          }
          IValueList got = fused.exe->run(cloneInputs(in));
          expectSameOutputs(got, interpret(*fused.result.parsed, cloneInputs(in)), 1e-4);
          IValueList reference = own.exe->run(cloneInputs(in));
          expectSameBits(tensorsOf(got), {reference.at(0).toTensor()});
        }
      }
    }
  }
}

// A wide C with one B: the threads share its columns, each packing and
// multiplying the chunks of B's panels it takes (the last chunk fewer
// panels, its last panel narrower), where there are two chunks a thread;
// otherwise its row tiles. Both ways, with linear's bias and an
// epilogue's bias and relu on each chunk's columns, every element is the
// same f32 sum in the same order: the same bits on 1, 2, 3, 4 and 7
// threads, and the interpreter's values within tolerance.
TEST(ContractionKernel, ThreadsSharingColumnsOrRowTilesGiveTheSameBits) {
  useScratchCache();
  const std::string source = R"PY(
def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, wl: torch.Tensor, bl: torch.Tensor):
    return torch.relu(x @ w + b), torch.nn.functional.linear(x, wl, bl)
)PY";
  const int64_t rows = ContractionKernel::kMinPackedRows + randIn(0, 60), k = 40 + randIn(0, 60),
                n = 832 - randIn(1, 38);
  const std::vector<std::string> specs{f32Spec("x", {rows, k}), f32Spec("w", {k, n}), f32Spec("b", {n}),
                                       f32Spec("wl", {n, k}), f32Spec("bl", {n})};
  const IValueList in{randomTensor({rows, k}, DType::f32), randomTensor({k, n}, DType::f32),
                      randomTensor({n}, DType::f32), randomTensor({n, k}, DType::f32),
                      randomTensor({n}, DType::f32)};
  std::vector<std::vector<Tensor>> runs;
  for (int threads : {1, 2, 3, 4, 7}) {
    SCOPED_TRACE(threads);
    Compiled c = compileProgram(source, "f", specs, threads);
    for (const auto& ck : contractionKernels(c, threads, 2)) {
      ASSERT_TRUE(ck);
      // 13 panels of 64 columns: 7 chunks of 2 (the last of 1) on 2
      // threads, 13 chunks of 1 on 3 and 4; on 7, 13 chunks are under two
      // a thread.
      EXPECT_EQ(ck->sharesColumns(), threads == 2 || threads == 3 || threads == 4);
    }
    runs.push_back(runChecked(c, in));
  }
  expectSameBitsAsTheFirst(runs);
}

// A few rows with B read in place: no more row tiles than threads, so each
// thread takes one part of C's columns for every tile and reads only its
// part of B (the last part narrower), with an epilogue's bias and relu or
// sigmoid on each part's columns. Every element is the same f32 sum in the
// same order: the same bits on 1, 2 and 3 threads, and the interpreter's
// values within tolerance.
TEST(ContractionKernel, FewRowsShareColumnsPerThread) {
  useScratchCache();
  const std::string source = R"PY(
def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, v: torch.Tensor):
    return torch.relu(x @ w + b), torch.sigmoid(x @ v)
)PY";
  // Enough multiply-adds (2^18) for the predefined kernel; 100 rows are
  // two tiles of 50 on one and two threads, three of 34 on three.
  const int64_t k = 130 + randIn(0, 60), n = 400 + randIn(0, 60);
  for (const int64_t m : {int64_t(8), int64_t(16), int64_t(100)}) {
    SCOPED_TRACE(m);
    const std::vector<std::string> specs{f32Spec("x", {m, k}), f32Spec("w", {k, n}), f32Spec("b", {n}),
                                         f32Spec("v", {k, n})};
    const IValueList in{randomTensor({m, k}, DType::f32), randomTensor({k, n}, DType::f32),
                        randomTensor({n}, DType::f32), randomTensor({k, n}, DType::f32)};
    std::vector<std::vector<Tensor>> runs;
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(threads);
      Compiled c = compileProgram(source, "f", specs, threads);
      for (const auto& ck : contractionKernels(c, threads, 2)) {
        ASSERT_TRUE(ck);
        EXPECT_FALSE(ck->packsB());
        EXPECT_EQ(ck->columnParts(), threads == 1 ? 0 : threads);
      }
      runs.push_back(runChecked(c, in));
    }
    expectSameBitsAsTheFirst(runs);
  }
}

// B as given is copied into panels only for a product of kMinPackedRows
// rows or more; one row fewer reads it in place (linear's W, which must be
// copied to be read at all, is always packed). Either way every element is
// the same f32 sum in the same order: the rows the two products share have
// the same bits, and both agree with the interpreter.
TEST(ContractionKernel, BIsPackedOnlyWhereEnoughRowsReuseIt) {
  useScratchCache();
  const std::string source = R"PY(
def f(x: torch.Tensor, w: torch.Tensor, wl: torch.Tensor):
    return x @ w, torch.nn.functional.linear(x, wl)
)PY";
  const int64_t rows = ContractionKernel::kMinPackedRows, k = 20 + randIn(0, 40), n = 200 - randIn(0, 30);
  const Tensor x = randomTensor({rows, k}, DType::f32), w = randomTensor({k, n}, DType::f32),
               wl = randomTensor({n, k}, DType::f32);
  const Tensor fewer = randomTensor({rows - 1, k}, DType::f32);
  for (int64_t i = 0; i < (rows - 1) * k; ++i) fewer.setDouble(i, x.getDouble(i));
  std::vector<std::vector<Tensor>> runs;
  for (const int64_t m : {rows - 1, rows}) {
    SCOPED_TRACE(m);
    Compiled c = compileProgram(source, "f", {f32Spec("x", {m, k}), f32Spec("w", {k, n}), f32Spec("wl", {n, k})}, 2);
    int contractions = 0;
    for (const Kernel& kernel : c.exe->kernelGraph().kernels) {
      if (kernel.kind != KernelKind::Contraction) continue;
      ++contractions;
      std::unique_ptr<ContractionKernel> ck = ContractionKernel::create(kernel.nodes, 2);
      ASSERT_TRUE(ck);
      EXPECT_EQ(ck->packsB(), ck->form().transposedB || m == rows) << kernel.name;
    }
    EXPECT_EQ(contractions, 2);
    const IValueList in{m == rows ? x : fewer, w, wl};
    IValueList got = c.exe->run(cloneInputs(in));
    expectSameOutputs(got, interpret(*c.result.parsed, cloneInputs(in)), 1e-4);
    runs.push_back(tensorsOf(got));
  }
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(std::memcmp(runs[0][i].rawData(), runs[1][i].rawData(), size_t((rows - 1) * n) * sizeof(float)), 0)
        << "output " << i;
}

// linear of at most kFewRows rows runs as dot products of x and W rows,
// both read in place along k (one row more packs W as before), with
// linear's bias and an epilogue's bias and GELU on each run of columns.
// Every output is the same f32 sum on 1, 2 and 3 threads, and agrees with
// the interpreter.
TEST(ContractionKernel, LinearOfFewRowsRunsDotProductsOfRows) {
  useScratchCache();
  const std::string source = R"PY(
def f(x: torch.Tensor, w: torch.Tensor, bl: torch.Tensor, b: torch.Tensor):
    return torch.nn.functional.gelu(torch.nn.functional.linear(x, w, bl) + b)
)PY";
  const int64_t k = 600 + randIn(0, 50), n = 450 + randIn(0, 60);
  for (const int64_t m : {int64_t(1), kFewRows, kFewRows + 1}) {
    SCOPED_TRACE(m);
    const std::vector<std::string> specs{f32Spec("x", {m, k}), f32Spec("w", {n, k}), f32Spec("bl", {n}),
                                         f32Spec("b", {n})};
    const IValueList in{randomTensor({m, k}, DType::f32), randomTensor({n, k}, DType::f32),
                        randomTensor({n}, DType::f32), randomTensor({n}, DType::f32)};
    std::vector<std::vector<Tensor>> runs;
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(threads);
      Compiled c = compileProgram(source, "f", specs, threads);
      ASSERT_EQ(kernelsOfKind(c, KernelKind::Contraction), 1);
      for (const Kernel& kernel : c.exe->kernelGraph().kernels) {
        if (kernel.kind != KernelKind::Contraction) continue;
        EXPECT_EQ(kernel.nodes.size(), 3u) << "the bias and GELU merged as the epilogue";
        std::unique_ptr<ContractionKernel> ck = ContractionKernel::create(kernel.nodes, threads);
        ASSERT_TRUE(ck);
        EXPECT_EQ(ck->runsDots(), m <= kFewRows);
        EXPECT_EQ(ck->packsB(), m > kFewRows);
      }
      IValueList got = c.exe->run(cloneInputs(in));
      expectSameOutputs(got, interpret(*c.result.parsed, cloneInputs(in)), 1e-4);
      runs.push_back(tensorsOf(got));
    }
    for (size_t r = 1; r < runs.size(); ++r) expectSameBits(runs[0], runs[r]);
  }
}

}  // namespace
}  // namespace stitch
