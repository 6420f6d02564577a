// End to end: source programs parsed, emitted and interpreted, checked
// against values computed here on fresh random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frontend/frontend.h"
#include "interp/interpreter.h"
#include "ir/verifier.h"

namespace stitch {
namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

int64_t randInt(int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng());
}

Tensor randomTensor(const Shape& shape) {
  Tensor t = Tensor::empty(shape, DType::f32);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, dist(rng()));
  return t;
}

IValueList run(const std::string& src, const IValueList& inputs, const std::string& fn = "") {
  auto module = SourceModule::parse(src, "prog.py");
  std::unique_ptr<Graph> g = module->emit(fn);
  verifyGraph(*g);
  return interpret(*g, inputs);
}

// Flat index of [i, j, k] in a contiguous [*, b, c] tensor.
int64_t at3(const Shape& s, int64_t i, int64_t j, int64_t k) { return (i * s[1] + j) * s[2] + k; }

void expectNear(const Tensor& t, const std::vector<double>& expected, double tol = 1e-5) {
  ASSERT_EQ(t.numel(), (int64_t)expected.size());
  for (int64_t i = 0; i < t.numel(); ++i)
    ASSERT_NEAR(t.getDouble(i), expected[(size_t)i], tol * (1 + std::fabs(expected[(size_t)i])))
        << "element " << i;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v((size_t)t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) v[(size_t)i] = t.getDouble(i);
  return v;
}

TEST(FrontendPrograms, SeedLoopUpdatesRowsThroughSelect) {
  const char* src =
      "import torch\n"
      "def func(a: torch.Tensor, b: torch.Tensor, n: int):\n"
      "    a = a.clone()\n"
      "    b = b.clone()\n"
      "    for i in range(n):\n"
      "        b[i] = b[i] + 1\n"
      "    return b\n";
  Shape shape{randInt(2, 6), randInt(1, 5)};
  int64_t n = randInt(0, shape[0]);
  Tensor a = randomTensor(shape), b = randomTensor(shape);
  std::vector<double> before = values(b);
  IValueList out = run(src, {a, b, n});
  std::vector<double> expected = before;
  for (int64_t i = 0; i < n * shape[1]; ++i) expected[(size_t)i] += 1;
  expectNear(out.at(0).toTensor(), expected);
  expectNear(b, before, 0);  // the input itself was cloned, not written
}

TEST(FrontendPrograms, NormalizeSwapsChannelsThenScales) {
  const char* src =
      "import torch\n"
      "def normalize(src: torch.Tensor, mean: float, scale: float) -> torch.Tensor:\n"
      "    src = src.clone()\n"
      "    dup = src.clone()\n"
      "    dup[..., 0] = src[..., 2]\n"
      "    dup[..., 2] = src[..., 0]\n"
      "    return (dup - mean) * scale\n";
  Shape s{randInt(1, 4), randInt(1, 5), 3};
  Tensor x = randomTensor(s);
  double mean = std::uniform_real_distribution<double>(-1, 1)(rng());
  double scale = std::uniform_real_distribution<double>(0.5, 2)(rng());
  IValueList out = run(src, {x, mean, scale});
  std::vector<double> in = values(x), expected(in.size());
  const int64_t from[3] = {2, 1, 0};
  for (int64_t i = 0; i < s[0]; ++i)
    for (int64_t j = 0; j < s[1]; ++j)
      for (int64_t c = 0; c < 3; ++c)
        expected[(size_t)at3(s, i, j, c)] =
            ((double)(float)in[(size_t)at3(s, i, j, from[c])] - mean) * scale;
  expectNear(out.at(0).toTensor(), expected, 1e-5);
}

TEST(FrontendPrograms, WhileWithBreakAndContinue) {
  const char* src =
      "def f(x, n: int, stop: int):\n"
      "    i = 0\n"
      "    acc = x * 0\n"
      "    while i < n:\n"
      "        i += 1\n"
      "        if i == stop:\n"
      "            break\n"
      "        if i % 2 == 0:\n"
      "            continue\n"
      "        acc = acc + x * i\n"
      "    return acc, i\n";
  int64_t n = randInt(0, 9), stop = randInt(1, 10);
  Tensor x = randomTensor({randInt(1, 4)});
  IValueList out = run(src, {x, n, stop});
  int64_t i = 0, factor = 0;
  while (i < n) {
    ++i;
    if (i == stop) break;
    if (i % 2 == 0) continue;
    factor += i;
  }
  std::vector<double> expected = values(x);
  for (double& v : expected) v = (double)(float)v * factor;
  expectNear(out.at(0).toTensor(), expected);
  EXPECT_EQ(out.at(1).toInt(), i);
}

TEST(FrontendPrograms, ListsZipEnumerateAndInlinedAppend) {
  const char* src =
      "import torch\n"
      "from typing import List\n"
      "def push(l: List[torch.Tensor], t: torch.Tensor):\n"
      "    l.append(t)\n"
      "def f(xs: List[torch.Tensor], ws: List[float]) -> torch.Tensor:\n"
      "    outs = []\n"
      "    alias = outs\n"
      "    for i, (x, w) in enumerate(zip(xs, ws)):\n"
      "        push(alias, x * w + i)\n"
      "    outs[0] = outs[0] * 2\n"
      "    return torch.stack(outs)\n";
  int64_t count = randInt(1, 4), len = randInt(1, 5);
  IValueList xs, ws;
  std::vector<std::vector<double>> xv;
  std::vector<double> wv;
  for (int64_t i = 0; i < count; ++i) {
    Tensor t = randomTensor({len});
    xs.push_back(t);
    xv.push_back(values(t));
    wv.push_back(std::uniform_real_distribution<double>(-2, 2)(rng()));
    ws.push_back(wv.back());
  }
  // One extra weight: zip stops at the shorter list.
  ws.push_back(1.0);
  IValueList out = run(src, {IValue::list(xs), IValue::list(ws)});
  std::vector<double> expected;
  for (int64_t i = 0; i < count; ++i)
    for (int64_t j = 0; j < len; ++j) expected.push_back((xv[i][j] * wv[i] + i) * (i == 0 ? 2 : 1));
  expectNear(out.at(0).toTensor(), expected, 1e-5);
}

TEST(FrontendPrograms, InPlaceUpdatesThroughViewsReachTheBase) {
  const char* src =
      "def f(x, z, k: int):\n"
      "    y = x.clone()\n"
      "    y[:, k] += z\n"
      "    row = y[0]\n"
      "    row *= 2\n"
      "    y[-1, ...] = 0.5\n"
      "    return y\n";
  Shape s{randInt(2, 4), randInt(2, 5)};
  int64_t k = randInt(-s[1], s[1] - 1);
  Tensor x = randomTensor(s), z = randomTensor({s[0]});
  IValueList out = run(src, {x, z, k});
  std::vector<double> e = values(x), zv = values(z);
  int64_t col = k < 0 ? k + s[1] : k;
  for (int64_t i = 0; i < s[0]; ++i)
    e[(size_t)(i * s[1] + col)] =
        (float)((float)e[(size_t)(i * s[1] + col)] + (float)zv[(size_t)i]);
  for (int64_t j = 0; j < s[1]; ++j) e[(size_t)j] *= 2;
  for (int64_t j = 0; j < s[1]; ++j) e[(size_t)((s[0] - 1) * s[1] + j)] = 0.5;
  expectNear(out.at(0).toTensor(), e, 1e-5);
}

TEST(FrontendPrograms, EarlyReturnsAndScalarMath) {
  const char* src =
      "import math\n"
      "def g(n: int, x: float) -> float:\n"
      "    if n < 0:\n"
      "        return -x\n"
      "    elif n == 0:\n"
      "        return math.sqrt(x * x)\n"
      "    y = x\n"
      "    for k in range(1, n + 1, 2):\n"
      "        y = y * 2.0 + k // 2 - max(k, 3)\n"
      "    return y\n";
  int64_t n = randInt(-2, 7);
  double x = std::uniform_real_distribution<double>(-3, 3)(rng());
  IValueList out = run(src, {n, x});
  double expected;
  if (n < 0) {
    expected = -x;
  } else if (n == 0) {
    expected = std::fabs(x);
  } else {
    expected = x;
    for (int64_t k = 1; k < n + 1; k += 2)
      expected = expected * 2.0 + (double)(k / 2) - (double)std::max<int64_t>(k, 3);
  }
  EXPECT_NEAR(out.at(0).toDouble(), expected, 1e-9 * (1 + std::fabs(expected)));
}

TEST(FrontendPrograms, ChunkedRecurrentCellOverLayers) {
  const char* src =
      "import torch\n"
      "from typing import List, Tuple\n"
      "def cell(x: torch.Tensor, h: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:\n"
      "    a, b = torch.cat([x, h], dim=1).chunk(2, 1)\n"
      "    return torch.tanh(a + b), a * b\n"
      "def f(inp: torch.Tensor, layers: int) -> List[torch.Tensor]:\n"
      "    state = []\n"
      "    for j in range(layers):\n"
      "        state.append(torch.zeros(inp.shape[1], inp.size(2)))\n"
      "    for t in range(inp.shape[0]):\n"
      "        x = inp[t]\n"
      "        for j in range(layers):\n"
      "            h, c = cell(x, state[j])\n"
      "            state[j] = c\n"
      "            x = h\n"
      "    return state\n";
  int64_t T = randInt(1, 4), B = randInt(1, 3), H = randInt(1, 4), L = randInt(1, 3);
  Tensor inp = randomTensor({T, B, H});
  IValueList out = run(src, {inp, L});
  std::vector<double> iv = values(inp);
  std::vector<std::vector<double>> state((size_t)L, std::vector<double>((size_t)(B * H), 0.0));
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> x(iv.begin() + t * B * H, iv.begin() + (t + 1) * B * H);
    for (int64_t j = 0; j < L; ++j) {
      std::vector<double> h(x.size()), c(x.size());
      for (size_t e = 0; e < x.size(); ++e) {
        float a = (float)x[e], b = (float)state[(size_t)j][e];
        h[e] = std::tanh((double)(a + b));
        c[e] = (double)(a * b);
      }
      state[(size_t)j] = c;
      x = h;
    }
  }
  const IValueList& result = out.at(0).toList();
  ASSERT_EQ((int64_t)result.size(), L);
  for (int64_t j = 0; j < L; ++j) expectNear(result[(size_t)j].toTensor(), state[(size_t)j], 1e-4);
}

}  // namespace
}  // namespace stitch
