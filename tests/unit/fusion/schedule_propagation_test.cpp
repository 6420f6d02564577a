// The schedule-propagation table, one op kind per test (legal and illegal
// rows), then whole groups: the propagated partitions, and on fresh random
// inputs that every block's part of the root depends only on the parts of
// the inputs the map gives it.
#include "schedule_test_util.h"

namespace stitch::schedule_test {
namespace {

Program prog(const std::string& name, const std::string& body, std::vector<functionalize_test::Arg> args) {
  return Program{name, body, std::move(args)};
}

TEST(SchedulePropagation, ElementwiseAndBroadcast) {
  auto g = simplifiedGraph(prog("ew", R"(
def f(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor):
    return (x * y) + z
)", {T({8, 6}), T({6}), T({8, 1})}));
  const Node* mul = findOp(*g, "mul");
  const Node* add = findOp(*g, "add");
  EXPECT_EQ(row(mul, P(0, 2)), "(dim 0, 2, Row), whole");
  EXPECT_EQ(row(mul, P(1, 3)), "(dim 1, 3, Row), (dim 0, 3, Row)");
  EXPECT_EQ(row(add, P(0, 4)), "(dim 0, 4, Row), (dim 0, 4, Row), whole");
  EXPECT_EQ(row(add, P(1, 2)), "(dim 1, 2, Row), whole, whole");
  EXPECT_EQ(row(add, P(0, 1)), "whole, whole, whole");
  EXPECT_EQ(row(add, P(0, 3)), "illegal");  // 3 does not divide 8
  EXPECT_EQ(row(add, P(2, 2)), "illegal");  // no dim 2
}

TEST(SchedulePropagation, WhereClampMaskedFillTo) {
  auto g = simplifiedGraph(prog("sel", R"(
def f(c: torch.Tensor, x: torch.Tensor, y: torch.Tensor):
    w = torch.where(c > 0, x, y)
    w = torch.clamp(w, -0.5, 0.5)
    w = w.masked_fill(c > 0.5, 2.0)
    return w.to(torch.float64)
)", {T({8, 1}), T({8, 6}), T({6})}));
  EXPECT_EQ(row(findOp(*g, "where"), P(1, 2)), "whole, (dim 1, 2, Row), (dim 0, 2, Row)");
  EXPECT_EQ(row(findOp(*g, "where"), P(0, 4)), "(dim 0, 4, Row), (dim 0, 4, Row), whole");
  EXPECT_EQ(row(findOp(*g, "clamp"), P(1, 3)), "(dim 1, 3, Row), whole, whole");
  EXPECT_EQ(row(findOp(*g, "masked_fill"), P(1, 2)), "(dim 1, 2, Row), whole, whole");
  EXPECT_EQ(row(findOp(*g, "to"), P(0, 8)), "(dim 0, 8, Row), whole");
}

TEST(SchedulePropagation, ReduceRowAndColumn) {
  auto g = simplifiedGraph(prog("red", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    a = x.sum(1, keepdim=True)
    b = y.amax(1)
    return a, b
)", {T({8, 6}), T({4, 6, 10})}));
  const Node* sum = findOp(*g, "sum");
  const Node* amax = findOp(*g, "amax");
  EXPECT_EQ(row(sum, P(0, 4)), "(dim 0, 4, Row), whole, whole, whole");
  EXPECT_EQ(row(sum, P(1, 1)), "whole, whole, whole, whole");
  EXPECT_EQ(row(sum, P(1, 2)), "illegal");  // the reduced dim, kept with size 1
  EXPECT_EQ(row(amax, P(0, 2)), "(dim 0, 2, Row), whole, whole");
  EXPECT_EQ(row(amax, P(1, 5)), "(dim 2, 5, Row), whole, whole");  // dim 1 is reduced away
  // Column: the split runs along a reduced input dim.
  EXPECT_EQ(row(sum, Partition{1, 3, SchedType::Column}), "(dim 1, 3, Row), whole, whole, whole");
  EXPECT_EQ(row(amax, Partition{1, 2, SchedType::Column}), "(dim 1, 2, Row), whole, whole");
  EXPECT_EQ(row(amax, Partition{0, 2, SchedType::Column}), "illegal");  // dim 0 is kept
  EXPECT_EQ(row(amax, Partition{1, 4, SchedType::Column}), "illegal");  // 4 does not divide 6
}

TEST(SchedulePropagation, SoftmaxAlongItsDim) {
  auto g = simplifiedGraph(prog("sm", R"(
def f(x: torch.Tensor):
    return torch.softmax(x, -1)
)", {T({8, 6})}));
  const Node* sm = findOp(*g, "softmax");
  EXPECT_EQ(row(sm, P(0, 8)), "(dim 0, 8, Row), whole, whole");
  EXPECT_EQ(row(sm, P(1, 2)), "illegal");
}

TEST(SchedulePropagation, PermuteTransposeUnsqueezeSqueeze) {
  auto g = simplifiedGraph(prog("perm", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    a = x.permute(2, 0, 1).clone()
    b = y.transpose(0, 1).clone()
    c = y.unsqueeze(1).clone()
    d = c.squeeze(1).clone()
    return a, b, c, d
)", {T({2, 4, 6}), T({4, 6})}));
  const Node* perm = findOp(*g, "immut.permute");
  EXPECT_EQ(row(perm, P(0, 3)), "(dim 2, 3, Row), whole");
  EXPECT_EQ(row(perm, P(2, 4)), "(dim 1, 4, Row), whole");
  const Node* tr = findOp(*g, "immut.transpose");
  EXPECT_EQ(row(tr, P(0, 6)), "(dim 1, 6, Row), whole, whole");
  const Node* un = findOp(*g, "immut.unsqueeze");
  EXPECT_EQ(row(un, P(2, 2)), "(dim 1, 2, Row), whole");
  EXPECT_EQ(row(un, P(1, 2)), "illegal");  // the new dim has size 1
  const Node* sq = findOp(*g, "immut.squeeze");
  EXPECT_EQ(row(sq, P(1, 3)), "(dim 2, 3, Row), whole");
}

TEST(SchedulePropagation, ReshapeAtDimGroupBoundaries) {
  auto g = simplifiedGraph(prog("view", R"(
def f(x: torch.Tensor):
    a = x.view(24).clone()
    b = x.reshape(2, 2, 6).clone()
    return a, b
)", {T({4, 6})}));
  const Node* flat = findOp(*g, "immut.view", 0);
  const Node* split = findOp(*g, "immut.view", 1);
  EXPECT_EQ(row(flat, P(0, 4)), "(dim 0, 4, Row), whole");
  EXPECT_EQ(row(flat, P(0, 2)), "(dim 0, 2, Row), whole");
  EXPECT_EQ(row(flat, P(0, 8)), "illegal");  // 8 blocks would cut rows of x
  EXPECT_EQ(row(split, P(0, 2)), "(dim 0, 2, Row), whole");
  EXPECT_EQ(row(split, P(2, 3)), "(dim 1, 3, Row), whole");
  EXPECT_EQ(row(split, P(1, 2)), "illegal");  // splits inside x's dim 0 in the middle
}

TEST(SchedulePropagation, SelectSliceAndTheirAssignForms) {
  auto g = simplifiedGraph(prog("assign", R"(
def f(src: torch.Tensor, z: torch.Tensor):
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[:, 2:4, :] = z
    return dup[:, 1:5, :] * 2
)", {T({8, 6, 3}), T({8, 1, 3})}));
  const Node* sel = findOp(*g, "immut.select");
  EXPECT_EQ(row(sel, P(0, 4)), "(dim 0, 4, Row), whole, whole");
  EXPECT_EQ(row(sel, P(1, 6)), "(dim 1, 6, Row), whole, whole");
  const Node* selRev = findOp(*g, "immut.select_rev");
  EXPECT_EQ(row(selRev, P(0, 4)), "(dim 0, 4, Row), (dim 0, 4, Row), whole, whole");
  EXPECT_EQ(row(selRev, P(1, 2)), "(dim 1, 2, Row), (dim 1, 2, Row), whole, whole");
  EXPECT_EQ(row(selRev, P(2, 3)), "(dim 2, 3, Row), whole, whole, whole");  // the selected dim
  const Node* sliceRev = findOp(*g, "immut.slice_rev");
  EXPECT_EQ(row(sliceRev, P(0, 8)), "(dim 0, 8, Row), (dim 0, 8, Row), whole, whole, whole, whole");
  EXPECT_EQ(row(sliceRev, P(1, 3)), "(dim 1, 3, Row), whole, whole, whole, whole, whole");
  EXPECT_EQ(row(sliceRev, P(2, 3)), "(dim 2, 3, Row), (dim 2, 3, Row), whole, whole, whole, whole");
  const Node* slice = findOp(*g, "immut.slice");
  EXPECT_EQ(row(slice, P(0, 2)), "(dim 0, 2, Row), whole, whole, whole, whole");
  EXPECT_EQ(row(slice, P(1, 2)), "whole, whole, whole, whole, whole");  // a part of dim 1
}

TEST(SchedulePropagation, Expand) {
  auto g = simplifiedGraph(prog("expand", R"(
def f(x: torch.Tensor):
    return x.expand(6, 4) * 2
)", {T({6, 1})}));
  const Node* ex = findOp(*g, "immut.expand");
  EXPECT_EQ(row(ex, P(0, 3)), "(dim 0, 3, Row), whole");
  EXPECT_EQ(row(ex, P(1, 2)), "whole, whole");
}

TEST(SchedulePropagation, CatAndStackSplitTheirPieces) {
  auto g = simplifiedGraph(prog("cat", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    a = torch.cat([x, y], 1)
    b = torch.stack([x, x], 1)
    return a, b
)", {T({8, 2}), T({8, 4})}));
  const Node* cat = findOp(*g, "cat");
  EXPECT_EQ(row(cat, P(0, 4)), "whole, whole");  // the list; its tensors below
  auto pieces = listElementPartitions(*cat, P(0, 4));
  ASSERT_TRUE(pieces);
  EXPECT_EQ(partitionStr((*pieces)[0]) + " " + partitionStr((*pieces)[1]), "(dim 0, 4, Row) (dim 0, 4, Row)");
  // Along the split dim each piece gives the rows its blocks cover: the
  // output's block b is rows [3b, 3b+3); y starts at row 2.
  pieces = listElementPartitions(*cat, P(1, 2));
  ASSERT_TRUE(pieces);
  EXPECT_EQ(partitionStr((*pieces)[0]) + " " + partitionStr((*pieces)[1]),
            "(dim 1, 2, rows [3b, 3b+3), Row) (dim 1, 2, rows [3b-2, 3b+1), Row)");
  EXPECT_EQ((*pieces)[1].blockElements({8, 4}), 8 * 3);
  const Node* stack = findOp(*g, "stack");
  pieces = listElementPartitions(*stack, P(2, 2));
  ASSERT_TRUE(pieces);
  EXPECT_EQ(partitionStr((*pieces)[0]), "(dim 1, 2, Row)");
  pieces = listElementPartitions(*stack, P(1, 2));
  ASSERT_TRUE(pieces);
  EXPECT_EQ(partitionStr((*pieces)[0]), "whole");
}

TEST(SchedulePropagation, BatchDotNeverSplitsK) {
  auto g = simplifiedGraph(prog("dot", R"(
def f(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor):
    p = torch.bmm(a, b)
    q = torch.nn.functional.linear(x, w, bias)
    r = torch.matmul(x, w.t())
    s = torch.einsum("bij,bjk->bik", a, b)
    return p, q, r, s
)", {T({4, 8, 16}), T({4, 16, 6}), T({8, 16}), T({4, 16}), T({4})}));
  const Node* bmm = findOp(*g, "bmm");
  EXPECT_EQ(row(bmm, P(0, 2)), "(dim 0, 2, Row), (dim 0, 2, Row)");
  EXPECT_EQ(row(bmm, P(1, 4)), "(dim 1, 4, Row), whole");
  EXPECT_EQ(row(bmm, P(2, 3)), "whole, (dim 2, 3, Row)");
  const Node* lin = findOp(*g, "linear");
  EXPECT_EQ(row(lin, P(0, 8)), "(dim 0, 8, Row), whole, whole");
  EXPECT_EQ(row(lin, P(1, 2)), "whole, (dim 0, 2, Row), (dim 0, 2, Row)");
  const Node* mm = findOp(*g, "matmul");
  EXPECT_EQ(row(mm, P(0, 4)), "(dim 0, 4, Row), whole");
  EXPECT_EQ(row(mm, P(1, 4)), "whole, (dim 1, 4, Row)");
  const Node* es = findOp(*g, "einsum");
  auto ops = listElementPartitions(*es, P(2, 2));
  ASSERT_TRUE(ops);
  EXPECT_EQ(partitionStr((*ops)[0]) + " " + partitionStr((*ops)[1]), "whole (dim 2, 2, Row)");
  ops = listElementPartitions(*es, P(0, 4));
  ASSERT_TRUE(ops);
  EXPECT_EQ(partitionStr((*ops)[0]) + " " + partitionStr((*ops)[1]), "(dim 0, 4, Row) (dim 0, 4, Row)");
}

TEST(SchedulePropagation, MatmulBroadcastsBatchDims) {
  auto g = simplifiedGraph(prog("bdot", R"(
def f(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor, w: torch.Tensor):
    return torch.matmul(a, b), torch.mm(x, w)
)", {T({4, 1, 8, 16}), T({3, 16, 6}), T({8, 16}), T({16, 4})}));
  const Node* mm = findOp(*g, "matmul");
  EXPECT_EQ(row(mm, P(0, 2)), "(dim 0, 2, Row), whole");
  EXPECT_EQ(row(mm, P(1, 3)), "whole, (dim 0, 3, Row)");
  EXPECT_EQ(row(mm, P(2, 8)), "(dim 2, 8, Row), whole");
  EXPECT_EQ(row(mm, P(3, 2)), "whole, (dim 2, 2, Row)");
  const Node* mm2 = findOp(*g, "mm");
  EXPECT_EQ(row(mm2, P(0, 4)), "(dim 0, 4, Row), whole");
  EXPECT_EQ(row(mm2, P(1, 4)), "whole, (dim 1, 4, Row)");
}

TEST(SchedulePropagation, CreationAndUnknownOps) {
  auto g = simplifiedGraph(prog("make", R"(
def f(x: torch.Tensor, i: torch.Tensor):
    z = torch.zeros(8, 6) + x
    return z, torch.index_select(x, 0, i)
)", {T({8, 6}), T({3}, DType::i64)}));
  const Node* zeros = findOp(*g, "zeros");
  if (zeros) {
    auto ins = propagateThrough(*zeros, P(0, 2));
    ASSERT_TRUE(ins);
    for (const Partition& p : *ins) EXPECT_EQ(partitionStr(p), "whole");
  }
  const Node* sel = findOp(*g, "index_select");
  EXPECT_EQ(row(sel, P(0, 3)), "illegal");
  EXPECT_EQ(row(sel, P(0, 1)), "whole, whole, whole");
}

// Whole groups.

Program softmaxProgram() {
  return prog("softmax", R"(
def f(x: torch.Tensor):
    m = torch.amax(x, -1, keepdim=True)
    e = torch.exp(x - m)
    return e / torch.sum(e, -1, keepdim=True)
)", {T({64, 100})});
}

TEST(SchedulePropagation, SoftmaxGroupSplitsRowsOnly) {
  Program p = softmaxProgram();
  auto g = simplifiedGraph(p);
  std::vector<const Node*> nodes = tensorOps(*g);
  const Value* root = nodes.back()->output();
  auto map = propagateSchedule(nodes, root, Schedule{0, 8, SchedType::Row});
  ASSERT_TRUE(map) << printGraph(*g);
  EXPECT_EQ(mapText(*g, *map),
            "%x: (dim 0, 8, Row)\n"
            "%m: (dim 0, 8, Row)\n"
            "%4: (dim 0, 8, Row)\n"
            "%e: (dim 0, 8, Row)\n"
            "%5: (dim 0, 8, Row)\n"
            "%6: (dim 0, 8, Row)\n")
      << printGraph(*g);
  for (int round = 0; round < 2; ++round) checkBlocksIndependent(p, *g, Schedule{0, 8, SchedType::Row}, *map);
  // Cutting the reduced dim: %e would be needed whole by the sum and in
  // parts by the division.
  EXPECT_FALSE(propagateSchedule(nodes, root, Schedule{1, 4, SchedType::Row}));
  EXPECT_TRUE(propagateSchedule(nodes, root, Schedule{0, 1, SchedType::Row}));
}

TEST(SchedulePropagation, OutsideTensorAskedTwoWaysIsReadWhole) {
  Program p = prog("twice", R"(
def f(x: torch.Tensor):
    return x + x.t()
)", {T({6, 6})});
  auto g = simplifiedGraph(p);
  std::vector<const Node*> nodes = tensorOps(*g);
  auto map = propagateSchedule(nodes, nodes.back()->output(), Schedule{0, 3, SchedType::Row});
  ASSERT_TRUE(map);
  EXPECT_EQ(partitionStr(map->at(g->inputs()[0])), "whole");
  checkBlocksIndependent(p, *g, Schedule{0, 3, SchedType::Row}, *map);
}

TEST(SchedulePropagation, LayerNormAndNormalizeGroups) {
  Program ln = prog("layernorm", R"(
def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    var = (xc * xc).mean(-1, keepdim=True)
    return xc / torch.sqrt(var + 1e-5) * w + b
)", {T({32, 64}), T({64}), T({64})});
  Program norm = prog("normalize", R"(
def f(src: torch.Tensor, mean: float, scale: float):
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
)", {T({16, 10, 3}), F(0.5), F(2.0)});
  for (const Program* p : {&ln, &norm}) {
    SCOPED_TRACE(p->name);
    auto g = simplifiedGraph(*p);
    std::vector<const Node*> nodes = tensorOps(*g);
    const Value* root = nodes.back()->output();
    for (int64_t s : {2, 4, 8, 16}) {
      auto map = propagateSchedule(nodes, root, Schedule{0, s, SchedType::Row});
      ASSERT_TRUE(map) << printGraph(*g);
      checkBlocksIndependent(*p, *g, Schedule{0, s, SchedType::Row}, *map);
    }
    // The last dim: layernorm reduces it; normalize swaps within it.
    EXPECT_EQ(propagateSchedule(nodes, root, Schedule{1, 2, SchedType::Row}).has_value(), p == &norm);
  }
}

TEST(SchedulePropagation, ColumnScheduleSplitsTheReducedDim) {
  Program p = prog("colsum", R"(
def f(x: torch.Tensor):
    return torch.sum(x * 2.0)
)", {T({64, 32})});
  auto g = simplifiedGraph(p);
  std::vector<const Node*> nodes = tensorOps(*g);
  const Value* root = nodes.back()->output();
  auto map = propagateSchedule(nodes, root, Schedule{0, 8, SchedType::Column});
  ASSERT_TRUE(map) << printGraph(*g);
  EXPECT_EQ(partitionStr(map->at(root)), "(partial, 8, Column)");
  EXPECT_EQ(partitionStr(map->at(g->inputs()[0])), "(dim 0, 8, Row)");
  std::vector<Schedule> space = scheduleSpace(root);
  ASSERT_FALSE(space.empty());
  EXPECT_EQ(scheduleStr(space.front()), "(split_dim=0, sword=1, Row)");
  int columns = 0;
  for (const Schedule& s : space) columns += s.type == SchedType::Column;
  EXPECT_EQ(columns, 6 + 5);  // divisors > 1 of 64 and of 32
}

TEST(SchedulePropagation, ScheduleSpaceListsDivisors) {
  auto g = simplifiedGraph(prog("space", R"(
def f(x: torch.Tensor):
    return x * 2
)", {T({6, 1, 4})}));
  std::string s;
  for (const Schedule& sc : scheduleSpace(tensorOps(*g).back()->output())) s += scheduleStr(sc) + "\n";
  EXPECT_EQ(s,
            "(split_dim=0, sword=1, Row)\n"
            "(split_dim=0, sword=2, Row)\n"
            "(split_dim=0, sword=3, Row)\n"
            "(split_dim=0, sword=6, Row)\n"
            "(split_dim=2, sword=2, Row)\n"
            "(split_dim=2, sword=4, Row)\n");
}

}  // namespace
}  // namespace stitch::schedule_test

namespace stitch::schedule_test {
namespace {

// Every legal schedule of small one-output programs, each op kind of the
// table at least once: blocks depend only on the parts the map names.
class LegalSchedulesAreIndependent : public ::testing::TestWithParam<Program> {};

TEST_P(LegalSchedulesAreIndependent, OnRandomInputs) {
  const Program& p = GetParam();
  auto g = simplifiedGraph(p);
  std::vector<const Node*> nodes = tensorOps(*g);
  const Value* root = g->outputs()[0];
  int legal = 0;
  for (const Schedule& s : scheduleSpace(root)) {
    if (s.type != SchedType::Row) continue;
    auto map = propagateSchedule(nodes, root, s);
    if (!map) continue;
    ++legal;
    checkBlocksIndependent(p, *g, s, *map);
  }
  EXPECT_GT(legal, 1) << printGraph(*g);
}

INSTANTIATE_TEST_SUITE_P(
    Table, LegalSchedulesAreIndependent,
    ::testing::Values(
        Program{"bmm", "\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.bmm(a, b) * 2.0\n",
                {T({4, 6, 5}), T({4, 5, 6})}},
        Program{"matmul", "\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.matmul(a, b) + 1.0\n",
                {T({2, 1, 4, 5}), T({3, 5, 6})}},
        Program{"linear",
                "\ndef f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):\n"
                "    return torch.nn.functional.linear(x, w, b).exp()\n",
                {T({6, 5}), T({4, 5}), T({4})}},
        Program{"einsum", "\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.einsum('bij,bjk->bik', a, b).neg()\n",
                {T({2, 4, 3}), T({2, 3, 6})}},
        Program{"reshape", "\ndef f(x: torch.Tensor):\n    return (x * 2.0).reshape(4, 3, 4).exp()\n", {T({12, 4})}},
        Program{"permute", "\ndef f(x: torch.Tensor):\n    return x.permute(2, 0, 1).exp()\n", {T({2, 4, 6})}},
        Program{"assign",
                "\ndef f(src: torch.Tensor, z: torch.Tensor):\n    dup = src.clone()\n    dup[..., 0] = src[..., 2]\n"
                "    dup[:, 2:4, :] = z\n    return dup[:, 1:5, :] * 2\n",
                {T({8, 6, 3}), T({8, 1, 3})}},
        Program{"cat", "\ndef f(x: torch.Tensor, y: torch.Tensor):\n    return torch.cat([x.exp(), y], 1) * 2.0\n",
                {T({6, 2}), T({6, 4})}},
        Program{"cat_rows",
                "\ndef f(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor):\n"
                "    e = x.exp()\n"
                "    a = torch.cat([e, y.reshape(4, 3) * 2.0], 0)\n"
                "    return torch.cat([z, a.sigmoid(), e + 1.0], 0).neg()\n",
                {T({5, 3}), T({2, 6}), T({4, 3})}},
        Program{"stack", "\ndef f(x: torch.Tensor, y: torch.Tensor):\n    return torch.stack([x, y.exp()], 1) + 1.0\n",
                {T({6, 4}), T({6, 4})}},
        Program{"expand", "\ndef f(x: torch.Tensor, y: torch.Tensor):\n    return x.expand(6, 4) * y\n",
                {T({6, 1}), T({6, 4})}},
        Program{"reduce", "\ndef f(x: torch.Tensor):\n    return x.exp().sum(1) / x.amax(1)\n", {T({4, 6, 6})}},
        Program{"views",
                "\ndef f(x: torch.Tensor):\n    return x.transpose(0, 2).unsqueeze(1).squeeze(1)[1].exp()\n",
                {T({4, 2, 6})}},
        Program{"alongdim", "\ndef f(x: torch.Tensor):\n    return torch.softmax(x, 1) + torch.log_softmax(x, 1)\n",
                {T({4, 6, 2})}},
        Program{"statistics",
                "\ndef f(x: torch.Tensor):\n    return x.var(1) + x.std(1, keepdim=False) + x.mean(1) + torch.logsumexp(x, [1])\n",
                {T({4, 6, 2})}},
        Program{"argmax", "\ndef f(x: torch.Tensor):\n    return torch.argmax(x, 1) + torch.amin(x, 1).long()\n",
                {T({4, 6, 2})}},
        Program{"copies",
                "\ndef f(x: torch.Tensor):\n    return torch.flip(x, [1]) + torch.tril(x) + x.repeat(1, 1)\n",
                {T({6, 4})}},
        Program{"binary", "\ndef f(x: torch.Tensor, y: torch.Tensor):\n    return torch.max(x, y) * torch.min(y, x)\n",
                {T({6, 4}), T({4})}},
        Program{"where",
                "\ndef f(c: torch.Tensor, x: torch.Tensor, y: torch.Tensor):\n"
                "    return torch.where(c > 0, x, y).clamp(-0.5, 0.5)\n",
                {T({6, 1}), T({6, 4}), T({4})}}),
    [](const ::testing::TestParamInfo<Program>& info) { return info.param.name; });

}  // namespace
}  // namespace stitch::schedule_test
