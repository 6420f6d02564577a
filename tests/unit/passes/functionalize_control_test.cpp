// functionalize through prim.loop / prim.if: writes in loop bodies and
// branches (nested too) become loop-carried values and branch outputs; lists
// of tensors mutated in loops; the FuncTs seed's programs.
#include "functionalize_test_util.h"

namespace stitch::functionalize_test {
namespace {

std::vector<Program> controlFlowPrograms() {
  return {
      {"seed_loop_row_increment", R"(
def f(a: torch.Tensor, b: torch.Tensor, n: int):
    a = a.clone()
    b = b.clone()
    for i in range(n):
        b[i] = b[i] + 1
    return b
)", {T({4, 3}), T({5, 3}), I(4)}},
      {"seed_if_both_branches", R"(
def f(a: torch.Tensor, b: torch.Tensor, idx: int):
    a = a.clone()
    b = b.clone()
    if idx >= 0:
        a = a + 1
        b[idx] = a[idx]
    else:
        a = a - 1
        b[-idx] = a[-idx]
    return a + b
)", {T({4, 3}), T({4, 3}), I(2)}},
      {"if_negative_branch", R"(
def f(a: torch.Tensor, b: torch.Tensor, idx: int):
    b = b.clone()
    if idx >= 0:
        b[idx] = a[idx]
    else:
        b[-idx] = a[-idx] * 2.0
    return b
)", {T({4, 3}), T({4, 3}), I(-3)}},
      {"if_one_branch_writes", R"(
def f(x: torch.Tensor, flag: int):
    b = x.clone()
    v = b[1]
    if flag > 0:
        v.add_(1.0)
    return b, v
)", {T({3, 2}), I(1)}},
      {"nested_loops", R"(
def f(x: torch.Tensor, n: int, m: int):
    b = x.clone()
    for i in range(n):
        for j in range(m):
            b[i, j] = b[i, j] * 2.0 + float(j)
    return b
)", {T({3, 4}), I(3), I(4)}},
      {"loop_in_if_in_loop", R"(
def f(x: torch.Tensor, n: int):
    b = x.clone()
    for i in range(n):
        if i % 2 == 0:
            for j in range(2):
                b[i].add_(1.0)
        else:
            b[i].zero_()
    return b
)", {T({4, 2}), I(4)}},
      {"view_defined_outside_loop", R"(
def f(x: torch.Tensor, n: int):
    b = x.clone()
    col = b[:, 0]
    total = torch.zeros_like(col)
    for i in range(n):
        total = total + col
        b.mul_(2.0)
    return total, col
)", {T({3, 2}), I(3)}},
      {"loop_mutates_input", R"(
def f(x: torch.Tensor, n: int):
    for i in range(n):
        x[i % 2] += 1.0
    return x.sum()
)", {T({2, 3}), I(5)}},
      {"while_loop_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    i = 0
    while i < 3:
        b[i] = b[i - 1] + 1.0
        i += 1
    return b
)", {T({3, 2})}},
      {"loop_with_break", R"(
def f(x: torch.Tensor, n: int):
    b = x.clone()
    for i in range(n):
        if i == 2:
            break
        b[i].fill_(float(i))
    return b
)", {T({4, 2}), I(4)}},
      {"loop_carried_and_written", R"(
def f(x: torch.Tensor, n: int):
    h = x.clone()
    acc = x.clone()
    for i in range(n):
        acc = acc + h
        h[0] = acc[0]
    return acc, h
)", {T({2, 3}), I(3)}},
      {"lstm_state_assign", R"(
def f(x: torch.Tensor, w: torch.Tensor, steps: int):
    state_c = torch.zeros(steps, 2, 4)
    state_h = torch.zeros(steps, 2, 4)
    h = torch.zeros(2, 4)
    c = torch.zeros(2, 4)
    for j in range(steps):
        gates = torch.matmul(torch.cat([x[j], h], 1), w)
        i, f, g, o = gates.chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        state_c[j] = c
        state_h[j] = h
    return state_h, state_c
)", {T({3, 2, 5}), T({9, 16}), I(3)}},
      {"chunk_written_in_loop", R"(
def f(x: torch.Tensor, n: int):
    b = x.clone()
    parts = b.chunk(2, 0)
    for i in range(n):
        parts[i % 2].mul_(2.0)
    return b
)", {T({4, 3}), I(3)}},
      {"unbind_rows_in_loop", R"(
def f(x: torch.Tensor):
    b = x.clone()
    rows = b.unbind(1)
    for k in range(len(rows)):
        rows[k].add_(float(k))
    return b
)", {T({2, 3})}},
      {"list_of_tensors_mutated_in_loop", R"(
def f(x: torch.Tensor, n: int):
    xs = [x.clone(), x.clone() * 2.0]
    for i in range(n):
        for t in xs:
            t.add_(1.0)
    return xs[0] + xs[1]
)", {T({2, 2}), I(2)}},
      {"list_element_write_through_view", R"(
def f(x: torch.Tensor, n: int):
    xs: List[torch.Tensor] = []
    for i in range(n):
        xs.append(x.clone())
    for i in range(n):
        xs[i][0] = float(i)
    return xs
)", {T({2, 3}), I(3)}},
      {"chunk_negative_dynamic_index", R"(
def f(x: torch.Tensor, n: int):
    b = x.clone()
    parts = b.chunk(3, 1)
    for i in range(n):
        parts[i - 3].add_(float(i))
    return b
)", {T({2, 6}), I(3)}},
      {"input_list_mutated", R"(
def f(xs: List[torch.Tensor]):
    for t in xs:
        t.relu_()
    return len(xs)
)", {TL({{2, 3}, {2, 3}})}},
      {"if_inside_loop_two_roots", R"(
def f(x: torch.Tensor, y: torch.Tensor, n: int):
    a = x.clone()
    b = y.clone()
    for i in range(n):
        if i % 2 == 1:
            a[i] = b[i]
        else:
            b[i] = a[i] * 3.0
    return a, b
)", {T({4, 2}), T({4, 2}), I(4)}},
      {"view_chain_written_in_branch", R"(
def f(x: torch.Tensor, k: int):
    b = x.clone()
    v = b[1:].t()
    if k > 1:
        v[0] = 0.5
    else:
        v[1].neg_()
    return b, v
)", {T({3, 3}), I(2)}},
      {"write_after_loop_reads_view", R"(
def f(x: torch.Tensor, n: int):
    b = x.clone()
    head = b[0]
    for i in range(n):
        b[1:] = b[1:] + head
    head.mul_(0.5)
    return b
)", {T({3, 2}), I(2)}},
  };
}

class ControlFlow : public ::testing::TestWithParam<Program> {};

TEST_P(ControlFlow, MatchesImperativeBitwise) { checkProgram(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Functionalize, ControlFlow, ::testing::ValuesIn(controlFlowPrograms()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace stitch::functionalize_test
