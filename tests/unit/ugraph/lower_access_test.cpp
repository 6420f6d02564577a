// Access and Assign lowerings (immut.* and *_rev) against the interpreter:
// reads through views, subscript writes (select / slice with steps /
// negative dims), writes through permuted and reshaped views.
#include "../common/random.h"
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

TEST(LowerAccess, ReadsThroughViews) {
  Program p{"reads", R"(
def f(x: torch.Tensor):
    a = x[1] + 0.0
    b = x[:, 1:6:2] * 2.0
    c = x.view(4, 15) - 1.0
    d = x.permute(2, 0, 1) * 3.0
    e = x.transpose(0, -1) + 1.0
    g = x.unsqueeze(1) + 1.0
    h = x[:, :, -1:].squeeze(-1) + 1.0
    k = x[0:1].expand(3, 4, 5) + 1.0
    m = x[-1, 2:, 3]
    return a, b, c, d, e, g, h, k, m
)", {T({3, 4, 5})}};
  Checked c = checkLowering(p);
  for (const char* op : {"immut.select", "immut.slice", "immut.view", "immut.permute", "immut.transpose",
                         "immut.unsqueeze", "immut.squeeze", "immut.expand"})
    EXPECT_TRUE(allLowered(c, op));
}

TEST(LowerAccess, SubscriptWrites) {
  Program p{"writes", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    z = x.clone()
    z[1] = y[0]
    z[:, 1:6:2] = y[:, 0:3] * 2.0
    z[..., -1] = z[..., 0]
    z[0, 0] += 1.0
    return z
)", {T({3, 7}), T({3, 7})}};
  Checked c = checkLowering(p);
  EXPECT_GE(countLowered(c, "immut.select_rev", true), 1);
  EXPECT_GE(countLowered(c, "immut.slice_rev", true), 1);
  EXPECT_TRUE(allLowered(c, "immut.select_rev"));
  EXPECT_TRUE(allLowered(c, "immut.slice_rev"));
}

TEST(LowerAccess, WritesThroughPermutedAndReshapedViews) {
  Program p{"viewwrites", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    z = x.clone()
    t = z.t()
    t[0] = y
    v = z.view(20)
    v[3:9] = 7.0
    u = z.unsqueeze(0)
    u[0, 1] = y[:4] + 1.0
    return z
)", {T({5, 4}), T({5})}};
  checkLowering(p);
}

// A shape over the given prime factors in random groups, with size-1 dims
// here and there.
std::vector<int64_t> randomFactoring(const std::vector<int64_t>& primes) {
  std::vector<int64_t> shape;
  size_t k = 0;
  while (k < primes.size()) {
    if (testing::randInt(0, 3) == 0) shape.push_back(1);
    int64_t d = 1;
    for (int64_t n = testing::randInt(1, 2); n > 0 && k < primes.size(); --n) d *= primes[k++];
    shape.push_back(d);
  }
  if (testing::randInt(0, 3) == 0) shape.push_back(1);
  return shape;
}

std::string shapeList(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return s;
}

// Reshapes of values computed in the kernel, read and written through, are
// indexed group by group (lowering.h): random factorings of one element
// count, against the interpreter.
TEST(LowerAccess, ReshapesBetweenRandomFactorings) {
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<int64_t> primes;
    for (int64_t n = testing::randInt(2, 5); n > 0; --n) primes.push_back(std::vector<int64_t>{2, 3, 5}[testing::randInt(0, 2)]);
    std::vector<int64_t> from = randomFactoring(primes), to = randomFactoring(primes);
    SCOPED_TRACE("[" + shapeList(from) + "] -> [" + shapeList(to) + "]");
    Program p{"reshape", "def f(x: torch.Tensor):\n"
                         "    y = (x * 2.0).view(" + shapeList(to) + ") + 1.0\n"
                         "    z = x.clone()\n"
                         "    v = z.view(" + shapeList(to) + ")\n"
                         "    v[0] = 3.0\n"
                         "    return y, z\n",
              {T(from)}};
    Checked c = checkLowering(p, 2, 1e-6, {}, /*fused=*/true);
    if (from != to) EXPECT_TRUE(allLowered(c, "immut.view"));  // else simplification drops the view
  }
}

TEST(LowerAccess, NormalizeExample) {
  Program p{"normalize", R"(
def normalize(src: torch.Tensor, mean: float, scale: float) -> torch.Tensor:
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
)", {T({8, 13, 3}), F(0.5), F(2.0)}};
  Checked c = checkLowering(p);
  for (const Kernel& k : c.kernels.kernels) EXPECT_EQ(k.kind, KernelKind::GraphDefined);
  EXPECT_TRUE(allLowered(c, "mul"));
}

TEST(LowerAccess, DtypeConvertingAssign) {
  Program p{"convert", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    z = x.clone()
    z[:, 1] = y[:, 0]
    return z
)", {T({4, 3}, DType::f64), T({4, 2}, DType::i64)}};
  checkLowering(p);
}

TEST(LowerAccess, LoopCounterIndexesWithinBounds) {
  Program p{"counter", R"(
def f(x: torch.Tensor, s: torch.Tensor):
    s = s.clone()
    acc = torch.zeros([4])
    for t in range(6):
        acc = acc + x[t] * 2.0
        s[t] = acc
    return acc, s
)", {T({6, 4}), T({6, 4})}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "immut.select"));
  EXPECT_EQ(countLowered(c, "immut.select_rev", false), 0);
}

TEST(LowerAccess, LoopCounterThatMayLeaveTheDimStaysHost) {
  Program p{"counter_oob", R"(
def f(x: torch.Tensor, n: int):
    acc = torch.zeros([4])
    for t in range(n):
        acc = acc + x[t]
    for u in range(7):
        if u < 6:
            acc = acc + x[u]
    return acc
)", {T({6, 4}), I(3)}};
  Checked c = checkLowering(p);
  EXPECT_EQ(countLowered(c, "immut.select", true), 0);
}

// A counter plus or minus a constant (a stacked RNN's `w[l + 1]` once the
// first layer is peeled off) has static bounds too: in range, the select
// runs in the kernel; one that may leave the dim stays a host op, which
// raises the interpreter's error.
TEST(LowerAccess, CounterPlusConstantIndexes) {
  Program p{"shifted", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    y = x
    for l in range(3):
        y = torch.tanh(y * w[l + 1] + w[3 - l])
    return y
)", {T({4, 5}), T({4, 4, 5})}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "immut.select"));

  Program out{"shifted_oob", R"(
def f(x: torch.Tensor, w: torch.Tensor):
    y = x
    for l in range(3):
        if l < 2:
            y = torch.tanh(y * w[l + 3])
    return y
)", {T({4, 5}), T({5, 4, 5})}};
  Checked o = checkLowering(out);
  EXPECT_EQ(countLowered(o, "immut.select", true), 0);
}

}  // namespace
}  // namespace stitch::ugraph_test
