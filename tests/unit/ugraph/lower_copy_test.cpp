// Copy-op lowerings (cat, stack, flip, repeat, tril, triu) and the
// index-producing and two-pass reductions (argmax / argmin, var / std)
// against the interpreter.
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

TEST(LowerCopy, CatAndStack) {
  Program p{"catstack", R"(
def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, d: torch.Tensor):
    return torch.cat([a, b, a], 0), torch.cat([a, c], 1), torch.cat([a, d], -1), torch.stack([a, a * 2.0, b[0:2]], 1), torch.stack([c, c], 0)
)", {T({2, 3}), T({4, 3}), T({2, 5}, DType::i64), T({2, 1}, DType::f64)}};
  Checked c = checkLowering(p);
  EXPECT_EQ(countLowered(c, "cat", false), 0);
  EXPECT_EQ(countLowered(c, "cat"), 3);
  EXPECT_EQ(countLowered(c, "stack"), 2);
}

TEST(LowerCopy, FlipRepeatTriangles) {
  Program p{"rearrange", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    return torch.flip(x, [0, 2]), x.repeat(2, 1, 3), y.repeat(3), torch.tril(x), torch.triu(x, 1), torch.tril(x, -1)
)", {T({3, 4, 5}), T({4})}};
  Checked c = checkLowering(p);
  for (const char* op : {"flip", "repeat", "tril", "triu"}) EXPECT_TRUE(allLowered(c, op));
}

TEST(LowerCopy, ArgExtremaFirstIndexOnTies) {
  Program p{"argmax", R"(
def f(x: torch.Tensor, k: torch.Tensor):
    r = torch.round(x * 2.0)
    return torch.argmax(r, 1), torch.argmin(r, 0, keepdim=True), torch.argmax(r), torch.argmax(k, -1), torch.argmin(k)
)", {T({5, 9}), T({4, 6}, DType::i64)}};
  Checked c = checkLowering(p, 3);
  EXPECT_EQ(countLowered(c, "argmax", false), 0);
  EXPECT_EQ(countLowered(c, "argmax"), 3);
}

TEST(LowerCopy, ArgmaxPrefersNan) {
  Program p{"argnan", R"(
def f(x: torch.Tensor):
    y = torch.log(x)
    return torch.argmax(y, 1), torch.argmin(y, 1)
)", {T({6, 8})}};
  checkLowering(p, 3);
}

TEST(LowerCopy, VarianceAndStd) {
  Program p{"var", R"(
def f(x: torch.Tensor, z: torch.Tensor):
    return x.var(), x.std(1), torch.var(x, [0], unbiased=False, keepdim=True), z.std(0)
)", {T({6, 7}), T({5, 3}, DType::f64)}};
  Checked c = checkLowering(p, 2, 1e-5);
  EXPECT_EQ(countLowered(c, "var", false), 0);
  EXPECT_EQ(countLowered(c, "std", false), 0);
}

}  // namespace
}  // namespace stitch::ugraph_test
