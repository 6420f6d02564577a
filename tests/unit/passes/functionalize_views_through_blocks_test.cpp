// Programs that functionalize where a view or a shared tensor flows through control flow
// or a list: views carried by loops and returned by branches (re-derived
// from their base), branch outputs that alias in one branch and not in the
// other (the code after the branch copied into each), tensors read back
// from lists at constant indices. Each program runs imperatively and
// functionalized on fresh random inputs; results and written-back inputs
// must agree bitwise and no view, in-place op or copy_ may remain.
#include "functionalize_test_util.h"

namespace stitch::functionalize_test {
namespace {

// An input or a copy of it, written, then a view of one or the other
// written: run with k = 2 and k = 3 (the two branch combinations).
const char* const kInputOrCopyThenBranch = R"(
def f(x: torch.Tensor, k: int):
    if k > 1:
        y = x
    else:
        y = x * 2.0
    y[0] = 5.0
    if k > 2:
        z = y[1]
    else:
        z = x[2]
    z.zero_()
    return y + 0.0
)";

Arg B(bool v) { return Arg{Arg::BoolArg, DType::b8, {}, v ? 1.0 : 0.0}; }

std::vector<Program> viewsThroughBlocks() {
  return {
      {"view_rebound_in_loop_written_after", R"(
def f(x: torch.Tensor):
    x = x.clone()
    v = x[0]
    for i in range(x.shape[0]):
        v = x[i]
    v.mul_(-1.0)
    return x
)", {T({3, 4})}},
      {"view_rebound_in_loop_written_inside", R"(
def f(x: torch.Tensor, n: int):
    b = x.clone()
    v = b[0]
    for i in range(n):
        v = b[i]
        v.add_(1.0)
    b.mul_(2.0)
    return v, b
)", {T({3, 2}), I(2)}},
      {"view_carried_base_written_in_loop", R"(
def f(x: torch.Tensor):
    v = x[:, 1]
    for i in range(3):
        x.add_(float(i))
        v = x[:, i]
    return v * 1.0
)", {T({4, 3})}},
      {"view_carried_read_every_iteration", R"(
def f(x: torch.Tensor):
    b = x.clone()
    v = b[1:3, 0]
    acc = torch.zeros(2)
    for i in range(4):
        acc = acc + v
        b.mul_(2.0)
        v = b[1:3, i % 2]
    return acc, v + 0.0, b
)", {T({4, 2})}},
      {"view_through_nested_loops", R"(
def f(x: torch.Tensor):
    b = x.clone()
    v = b[0, 0]
    for i in range(2):
        for j in range(3):
            v = b[i, j]
            v.add_(1.0)
    v.fill_(9.0)
    return b
)", {T({2, 3})}},
      {"view_from_branch_in_loop_carried_out", R"(
def f(x: torch.Tensor):
    b = x.clone()
    v = b[0]
    for i in range(3):
        if float(b[i].sum()) > 0.0:
            v = b[i]
        v.add_(1.0)
    v.mul_(3.0)
    return b
)", {T({3, 4})}},
      {"view_from_if_written_after", R"(
def f(x: torch.Tensor, k: int):
    b = x.clone()
    if k > 0:
        v = b[0]
    else:
        v = b[1]
    v.add_(1.0)
    return b
)", {T({3, 2}), I(1)}},
      {"view_from_if_else_taken", R"(
def f(x: torch.Tensor, k: int):
    b = x.clone()
    if k > 0:
        v = b[0]
    else:
        v = b[1]
    v.add_(1.0)
    return b
)", {T({3, 2}), I(-1)}},
      {"data_dependent_view_of_input", R"(
def f(x: torch.Tensor):
    if float(x.sum()) > 0.0:
        y = x[0]
    else:
        y = x[1]
    y.fill_(7.0)
    return y + 1.0
)", {T({3, 4})}},
      {"alias_or_copy_shared", R"(
def f(x: torch.Tensor, share: bool):
    x = x.clone()
    if share:
        y = x
    else:
        y = x.clone()
    y.add_(100.0)
    return x, y
)", {T({3, 4}), B(true)}},
      {"alias_or_copy_copied", R"(
def f(x: torch.Tensor, share: bool):
    x = x.clone()
    if share:
        y = x
    else:
        y = x.clone()
    y.add_(100.0)
    return x, y
)", {T({3, 4}), B(false)}},
      {"view_or_fresh_in_loop_body", R"(
def f(x: torch.Tensor):
    b = x.clone()
    for i in range(3):
        if float(b[i].sum()) > 0.0:
            r = b[i]
        else:
            r = torch.zeros(4)
        r.add_(1.0)
        b.mul_(2.0)
    return b
)", {T({3, 4})}},
      {"input_or_copy_written_then_branch_again", kInputOrCopyThenBranch, {T({3, 4}), I(2)}},
      {"input_or_copy_third_case", kInputOrCopyThenBranch, {T({3, 4}), I(3)}},
      {"loop_param_written_while_init_visible", R"(
def f(x: torch.Tensor):
    y = x.clone()
    first = y
    for i in range(3):
        y.add_(1.0)
        y = y * 2.0
    return first, y
)", {T({3, 4})}},
      {"loop_param_row_written_uses_index", R"(
def f(x: torch.Tensor):
    y = x
    for i in range(3):
        y[i] = float(i) + 0.5
        y = y * float(i + 1)
    return y
)", {T({3, 4})}},
      {"row_of_expanded_view_filled", R"(
def f(x: torch.Tensor):
    base = x.clone()
    e = base.expand(3, 4)
    e[1] = 2.0
    r = e + 0.0
    e.zero_()
    return base, r
)", {T({1, 4})}},
      {"row_of_expanded_input_added", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    e = x.expand(2, 3, 4)
    e[1].add_(y)
    e[0][-1].mul_(2.0)
    return e * 1.0
)", {T({3, 4}), T({3, 4})}},
      {"broadcast_dim_of_expanded_view_written", R"(
def f(x: torch.Tensor):
    b = x.clone()
    e = b.expand(2, 4, 3)
    e[:, 2].copy_(torch.ones(2, 3))
    e.select(1, 0).sub_(0.5)
    return b
)", {T({2, 1, 3})}},
      {"views_appended_in_loop_written_after", R"(
def f(x: torch.Tensor):
    x = x.clone()
    rows: List[torch.Tensor] = []
    for i in range(x.shape[0]):
        rows.append(x[i, 1:])
    rows[0].zero_()
    rows[-1].fill_(3.0)
    return x
)", {T({3, 4})}},
      {"views_in_list_see_base_writes", R"(
def f(x: torch.Tensor) -> List[torch.Tensor]:
    x = x.clone()
    rows: List[torch.Tensor] = []
    for i in range(3):
        rows.append(x[i])
    x.mul_(10.0)
    copies = torch.stack(rows)
    x.zero_()
    return [rows[0], rows[2], copies]
)", {T({3, 4})}},
      {"slices_appended_in_loop_of_input", R"(
def f(x: torch.Tensor):
    parts: List[torch.Tensor] = []
    for i in range(3):
        parts.append(x[:, i:])
    parts[1].add_(1.0)
    return torch.cat(parts, 1), len(parts)
)", {T({2, 4})}},
      {"view_of_carried_view_written", R"(
def f(x: torch.Tensor):
    v = x[0]
    for i in range(3):
        v = v[1:]
        v[0] = float(i)
    return x
)", {T({3, 4})}},
      {"columns_dropped_in_loop_with_break", R"(
def f(x: torch.Tensor):
    b = x.clone()
    v = b
    for i in range(4):
        v = v[:, 1:]
        v.mul_(2.0)
        if float(v.sum()) > 1.0:
            break
    return b, v * 1.0
)", {T({2, 5})}},
      {"list_holds_direct_ref", R"(
def f(x: torch.Tensor):
    h = x.clone()
    hs = [h]
    hs[0].add_(1.0)
    return h
)", {T({2, 2})}},
      {"list_holds_views", R"(
def f(x: torch.Tensor):
    b = x.clone()
    ps = [b[0], b[1]]
    ps[1].zero_()
    return b, torch.stack(ps)
)", {T({2, 2})}},
      {"list_holds_input_and_view", R"(
def f(x: torch.Tensor):
    xs = [x, x[1]]
    xs[1].fill_(4.0)
    xs[0][0].zero_()
    return x
)", {T({3, 4})}},
      {"tensor_in_two_lists", R"(
def f(x: torch.Tensor):
    t = x.clone()
    a = [t]
    b = [t, t]
    a[0].add_(1.0)
    b[1].mul_(2.0)
    return t, b[0]
)", {T({3, 4})}},
      {"returned_list_of_views_after_writes", R"(
def f(x: torch.Tensor) -> List[torch.Tensor]:
    x = x.clone()
    parts = x.unbind(1)
    x[:, 0] = -1.0
    parts[2].zero_()
    return [parts[0], x]
)", {T({3, 4})}},
  };
}

class ViewsThroughBlocks : public ::testing::TestWithParam<Program> {};

TEST_P(ViewsThroughBlocks, MatchesImperativeBitwise) { checkProgram(GetParam(), 3); }

INSTANTIATE_TEST_SUITE_P(Functionalize, ViewsThroughBlocks, ::testing::ValuesIn(viewsThroughBlocks()),
                         [](const auto& info) { return info.param.name; });

size_t countOps(const Block* b, const std::string& kind) {
  size_t count = 0;
  for (const Node* n : *b) {
    if (n->kind() == kind) ++count;
    for (const Block* sub : n->blocks()) count += countOps(sub, kind);
  }
  return count;
}

// The loop carries the row index, not the row: the view is taken once,
// after the loop, from the (written) base.
TEST(FunctionalizeViewsThroughBlocks, LoopCarriesTheIndexNotTheView) {
  Program p{"index_carried", R"(
def f(x: torch.Tensor):
    x = x.clone()
    v = x[0]
    for i in range(x.shape[0]):
        v = x[i]
    v.mul_(-1.0)
    return x
)", {T({3, 4})}};
  auto g = specialize(p);
  functionalize(*g);
  const Node* loop = nullptr;
  for (const Node* n : *g->top())
    if (n->is("prim.loop")) loop = n;
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->outputs().size(), 1u);
  EXPECT_EQ(loop->output(0)->type()->kind(), TypeKind::Int);
  EXPECT_EQ(countOps(g->top(), "immut.select_rev"), 1u);
  checkProgram(p);
}

// Corner cases near the ones above: each is either functionalized exactly
// or refused, never turned into a different program.
std::vector<Program> exactOrRefused() {
  return {
      {"base_rebound_in_loop_view_kept", R"(
def f(x: torch.Tensor):
    b = x.clone()
    v = b[0]
    for i in range(3):
        b = b * 2.0
        v = b[i]
        v.add_(1.0)
    return v, b
)", {T({3, 4})}},
      {"branch_writes_base_after_taking_view", R"(
def f(x: torch.Tensor, k: int):
    b = x.clone()
    if k > 0:
        v = b[0]
        b.add_(1.0)
    else:
        v = b[1]
    v.mul_(2.0)
    return b, v
)", {T({3, 4}), I(1)}},
      {"input_or_copy_written_in_loop_after", R"(
def f(x: torch.Tensor, k: int):
    if k > 0:
        y = x
    else:
        y = x.clone()
    for i in range(2):
        y[i].add_(1.0)
    return y * 1.0
)", {T({3, 4}), I(1)}},
      {"peeled_body_with_branch_and_index", R"(
def f(x: torch.Tensor):
    y = x.clone()
    first = y
    for i in range(3):
        if i % 2 == 0:
            y[i].fill_(float(i))
        y = y + first
    return first, y
)", {T({3, 4})}},
      {"list_read_whole_twice_around_a_write", R"(
def f(x: torch.Tensor):
    a = x.clone()
    ls = [a, a[0:1]]
    s1 = torch.cat(ls)
    a.mul_(2.0)
    s2 = torch.cat(ls)
    return s1, s2
)", {T({3, 4})}},
      {"rows_collected_while_base_written", R"(
def f(x: torch.Tensor):
    x = x.clone()
    rows: List[torch.Tensor] = []
    for i in range(3):
        rows.append(x[i])
        x.add_(1.0)
    return torch.stack(rows), rows[1] * 1.0
)", {T({3, 4})}},
      {"expanded_row_read_then_written", R"(
def f(x: torch.Tensor):
    b = x.clone()
    e = b.expand(3, 4)
    r = e[2]
    s = r * 1.0
    r.add_(1.0)
    return b, e + 0.0, s
)", {T({1, 4})}},
      {"branch_alias_of_input_read_in_later_loop", R"(
def f(x: torch.Tensor):
    if float(x.sum()) > 0.0:
        y = x[0]
    else:
        y = torch.zeros(4)
    acc = torch.zeros(4)
    for i in range(2):
        acc = acc + y
        x.mul_(2.0)
    return acc, x * 1.0
)", {T({3, 4})}},
  };
}

class ExactOrRefused : public ::testing::TestWithParam<Program> {};

TEST_P(ExactOrRefused, MatchesImperativeOrThrowsUserError) {
  auto g = specialize(GetParam());
  try {
    functionalize(*g);
  } catch (const UserError&) {
    return;
  }
  checkProgram(GetParam(), 4);
}

INSTANTIATE_TEST_SUITE_P(Functionalize, ExactOrRefused, ::testing::ValuesIn(exactOrRefused()),
                         [](const auto& info) { return info.param.name; });

// Aliasing still out of reach stays a refusal with a location.
std::vector<Program> stillRefused() {
  return {
      // The branch's output may be x, kept in a list across iterations
      // that write x again.
      {"branch_alias_kept_in_list_across_iterations", R"(
def f(x: torch.Tensor):
    x = x.clone()
    ys: List[torch.Tensor] = []
    for i in range(3):
        x.add_(1.0)
        if i == 1:
            y = x
        else:
            y = x * 1.0
        ys.append(y)
    return torch.stack(ys)
)", {T({2, 3})}},
      // Iteration 3 would pick a row x does not have: left to run time.
      {"row_views_past_the_end", R"(
def f(x: torch.Tensor):
    rows: List[torch.Tensor] = []
    for i in range(4):
        rows.append(x[i])
    rows[0].zero_()
    return x
)", {T({3, 4})}},
      // Offsets 2, 4, 6 of a length-4 row: slicing clamps past the end.
      {"view_cut_past_its_end_in_loop", R"(
def f(x: torch.Tensor):
    v = x[0]
    for i in range(3):
        v = v[2:]
        v.add_(1.0)
    return x
)", {T({3, 4})}},
      {"branch_alias_carried_by_loop", R"(
def f(x: torch.Tensor):
    b = x.clone()
    y = torch.zeros(4)
    for i in range(3):
        b.add_(1.0)
        if i == 1:
            y = b[0]
        else:
            y = y * 2.0
    return y
)", {T({3, 4})}},
  };
}

class StillRefused : public ::testing::TestWithParam<Program> {};

TEST_P(StillRefused, ThrowsUserError) {
  auto g = specialize(GetParam());
  EXPECT_THROW(functionalize(*g), UserError);
}

INSTANTIATE_TEST_SUITE_P(Functionalize, StillRefused, ::testing::ValuesIn(stillRefused()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace stitch::functionalize_test
