// Contraction lowerings (mm, bmm, matmul's 1-d and broadcast cases, linear)
// and creation ops against the interpreter.
#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

TEST(LowerContraction, MatrixProducts) {
  Program p{"products", R"(
def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, v: torch.Tensor):
    return torch.mm(a, b), torch.bmm(c, c.transpose(1, 2)), a @ b, a @ v, v @ b, v @ v, c @ b, b.t() @ c.transpose(1, 2)
)", {T({5, 7}), T({7, 4}), T({3, 5, 7}), T({7})}};
  Checked c = checkLowering(p, 2, 1e-6);
  EXPECT_TRUE(allLowered(c, "mm"));
  EXPECT_TRUE(allLowered(c, "bmm"));
  EXPECT_TRUE(allLowered(c, "matmul"));
}

TEST(LowerContraction, BroadcastBatchesAndDoubles) {
  Program p{"batches", R"(
def f(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor, y: torch.Tensor):
    return torch.matmul(a, b), x @ y
)", {T({2, 1, 3, 4}), T({5, 4, 6}), T({3, 4}, DType::f64), T({4, 2}, DType::f64)}};
  checkLowering(p, 2, 1e-12);
}

TEST(LowerContraction, IntegerProducts) {
  Program p{"intmm", R"(
def f(a: torch.Tensor, b: torch.Tensor):
    return a @ b
)", {T({3, 4}, DType::i64), T({4, 5}, DType::i64)}};
  checkLowering(p);
}

TEST(LowerContraction, Linear) {
  Program p{"linear", R"(
def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, v: torch.Tensor):
    return torch.nn.functional.linear(x, w, b), torch.nn.functional.linear(x, w), torch.nn.functional.linear(x, v)
)", {T({2, 3, 6}), T({4, 6}), T({4}), T({6})}};
  Checked c = checkLowering(p, 2, 1e-6);
  EXPECT_TRUE(allLowered(c, "linear"));
}

TEST(LowerCreation, FillsAndRanges) {
  Program p{"creation", R"(
def f(x: torch.Tensor, s: float):
    a = torch.zeros([3, 4]) + x
    b = torch.ones([3, 4], dtype=torch.int64) * 2
    c = torch.full([3, 4], s) + x
    d = torch.full([2], 7)
    e = torch.arange(10)
    g = torch.arange(1.5, 4.0, 0.5)
    h = torch.arange(2, 20, 3, dtype=torch.float64)
    k = torch.zeros_like(x) + torch.ones_like(x) + torch.full_like(x, 2.5)
    return a, b, c, d, e, g, h, k
)", {T({3, 4}), F(0.25)}};
  Checked c = checkLowering(p);
  EXPECT_TRUE(allLowered(c, "arange"));
  EXPECT_TRUE(allLowered(c, "full"));
  EXPECT_TRUE(allLowered(c, "zeros_like"));
  for (const Kernel& k : c.kernels.kernels) {
    if (k.nodes.size() == 1 && k.nodes[0]->kind() == "arange") {
      EXPECT_TRUE(k.inputs.empty());
    }
  }
}

TEST(LowerContraction, Einsum) {
  Program p{"einsum", R"(
def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor):
    return torch.einsum("ij,jk->ik", a, b), torch.einsum("bij,bjk->bik", c, c), torch.einsum("ij,ij->", a, a), torch.einsum("i,j->ij", a[0], b[1]), torch.einsum("ij,kj", a, b.t())
)", {T({3, 4}), T({4, 5}), T({2, 4, 4})}};
  Checked c = checkLowering(p, 2, 1e-6);
  EXPECT_EQ(countLowered(c, "einsum", false), 0);
  EXPECT_EQ(countLowered(c, "einsum"), 5);
}

}  // namespace
}  // namespace stitch::ugraph_test
