// functionalize's contract beyond matching outputs: which inputs it reports as
// written back, the aliasing it refuses rather than getting wrong, and
// remove-inplace on its own.
#include "functionalize_test_util.h"
#include "passes/remove_inplace.h"

namespace stitch::functionalize_test {
namespace {

TEST(FunctionalizeContract, ReportsWrittenInputsInInputOrder) {
  Program p{"written_inputs", R"(
def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int):
    for i in range(n):
        c[i] = a[i]
    a.mul_(2.0)
    return a + b
)", {T({3, 2}), T({3, 2}), T({3, 2}), I(2)}};
  auto g = specialize(p);
  FunctionalizeResult r = functionalize(*g);
  EXPECT_EQ(r.originalOutputs, 1u);
  EXPECT_EQ(r.writtenBackInputs, (std::vector<size_t>{0, 2}));
  ASSERT_EQ(g->outputs().size(), 3u);
  EXPECT_EQ(*g->outputs()[1]->type(), *g->inputs()[0]->type());
  EXPECT_EQ(*g->outputs()[2]->type(), *g->inputs()[2]->type());
  checkProgram(p);
}

TEST(FunctionalizeContract, PureProgramGetsNoExtraOutputs) {
  Program p{"pure", R"(
def f(x: torch.Tensor):
    y = x[0] + x[1]
    return y.t()
)", {T({2, 3, 4})}};
  auto g = specialize(p);
  FunctionalizeResult r = functionalize(*g);
  EXPECT_TRUE(r.writtenBackInputs.empty());
  EXPECT_EQ(g->outputs().size(), 1u);
  checkProgram(p);
}

size_t countOps(const Block* b, const std::string& kind) {
  size_t n = 0;
  for (const Node* node : *b) {
    n += node->kind() == kind;
    for (const Block* sub : node->blocks()) n += countOps(sub, kind);
  }
  return n;
}

// The seed's loop: b becomes loop-carried; one select to read the row, one
// select_rev to write it; nothing else survives.
TEST(FunctionalizeContract, SeedLoopBecomesCarriedSelectRev) {
  Program p{"seed", R"(
def f(a: torch.Tensor, b: torch.Tensor, n: int):
    a = a.clone()
    b = b.clone()
    for i in range(n):
        b[i] = b[i] + 1
    return b
)", {T({3, 4}), T({5, 4}), I(3)}};
  auto g = specialize(p);
  functionalize(*g);
  const Node* loop = nullptr;
  for (const Node* n : *g->top())
    if (n->is("prim.loop")) loop = n;
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->outputs().size(), 1u);
  EXPECT_EQ(g->outputs()[0], loop->output(0));
  const Block* body = loop->block(0);
  EXPECT_EQ(countOps(body, "immut.select_rev"), 1u);
  EXPECT_EQ(countOps(g->top(), "copy_"), 0u);
  EXPECT_EQ(countOps(g->top(), "select"), 0u);
  Value* next = body->ret(1);
  EXPECT_TRUE(next->node()->is("immut.select_rev"));
  EXPECT_EQ(next->node()->input(0), body->param(1));  // writes the carried version
  checkProgram(p);
}

// Normalize (DESIGN.md's worked example): two select_revs chained on dup.
TEST(FunctionalizeContract, NormalizeChainsTwoSelectRevs) {
  Program p{"normalize", R"(
def f(src: torch.Tensor, mean: float, scale: float):
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
)", {T({4, 5, 3}), F(0.5), F(2.0)}};
  auto g = specialize(p);
  functionalize(*g);
  EXPECT_EQ(countOps(g->top(), "immut.select_rev"), 2u);
  EXPECT_EQ(countOps(g->top(), "immut.select"), 2u);
  EXPECT_EQ(countOps(g->top(), "immut.assign"), 0u);
  checkProgram(p);
}

std::vector<Program> refusedPrograms() {
  return {
      {"loop_param_written_while_init_visible", R"(
def f(x: torch.Tensor):
    y = x.clone()
    first = y
    for i in range(4):
        y[0].mul_(3.0)
        if i == 1:
            break
        y = y + 1.0
    return first, y
)", {T({2, 3})}},
      {"views_in_list_read_at_run_time_index", R"(
def f(x: torch.Tensor, k: int):
    b = x.clone()
    ps: List[torch.Tensor] = []
    for i in range(2):
        ps.append(b[i])
    ps[k].zero_()
    return b
)", {T({2, 2}), I(1)}},
  };
}

class Refused : public ::testing::TestWithParam<Program> {};

// Aliasing the analysis cannot follow is a user-visible refusal with a
// location, never a silently wrong program.
TEST_P(Refused, ThrowsUserError) {
  auto g = specialize(GetParam());
  EXPECT_THROW(functionalize(*g), UserError);
}

INSTANTIATE_TEST_SUITE_P(Functionalize, Refused, ::testing::ValuesIn(refusedPrograms()),
                         [](const auto& info) { return info.param.name; });

TEST(FunctionalizeContract, ViewsAliasedThroughBranchesWithoutWritesAreFine) {
  checkProgram({"read_only_view_from_if", R"(
def f(x: torch.Tensor, k: int):
    if k > 0:
        v = x[0]
    else:
        v = x[1]
    return v * 2.0
)", {T({3, 2}), I(0)}});
}

}  // namespace
}  // namespace stitch::functionalize_test
