// Access and Assign lowerings (immut.* and *_rev) against the interpreter:
// reads through views, subscript writes (select / slice with steps /
// negative dims), writes through permuted and reshaped views.
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

}  // namespace
}  // namespace stitch::ugraph_test
