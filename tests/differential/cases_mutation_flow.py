"""Mutation across control flow, the patterns functionalization must carry
through loops and branches: writes through views taken before, inside or
after a loop, through iteration variables (unbind, zip, enumerate, chunk),
in nested branches, and through helpers called from loops."""

from case_builders import case

F34 = ("f32", [3, 4])


CASES = [
    case("iteration_variable_views_mutated", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    for r in x.unbind(0):
        r.mul_(2.0)
    for i, c in enumerate(x.chunk(2, 1)):
        c.add_(float(i))
    return x
""", {"x": F34}),
    case("iterate_tensor_rows_augassign", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    for r in x:
        r += 1.0
    return x
""", {"x": F34}),
    case("zip_views_add_", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    for a, b in zip(x.unbind(1), y.unbind(1)):
        a.add_(b)
    return x
""", {"x": F34, "y": F34}),
    case("views_collected_in_loop_mutated_after", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    rows = []
    for i in range(x.shape[0]):
        rows.append(x[i, 1:])
    rows[0].zero_()
    rows[-1].fill_(3.0)
    return x
""", {"x": F34}),
    case("view_taken_in_loop_used_after", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    v = x[0]
    for i in range(x.shape[0]):
        v = x[i]
    v.mul_(-1.0)
    return x
""", {"x": F34}),
    case("loop_carried_mutated_then_rebound", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x.clone()
    first = y
    for i in range(3):
        y.add_(1.0)
        y = y * 2.0
    return first, y
""", {"x": F34}),
    case("nested_branch_writes_in_loop", """
def f(x: torch.Tensor) -> torch.Tensor:
    out = x.clone()
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            if float(out[i, j]) > 0.0:
                if j % 2 == 0:
                    out[i][j] = 1.0
                else:
                    out[i, :j].add_(0.5)
            elif i > 0:
                out[i, j] = out[i - 1, j]
    return out
""", {"x": F34}),
    case("while_inplace_with_break", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, int]:
    x = x.clone()
    k = 0
    while True:
        x[k % x.shape[0]] *= 0.5
        k += 1
        if float(x.abs().sum()) < 1.0 or k > 50:
            break
    return x, k
""", {"x": F34}),
    case("alternating_alias_in_loop", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    for i in range(5):
        v = x[i % 2]
        v.add_(float(i))
    return x
""", {"x": F34}),
    case("helper_mutation_called_in_loop", """
def scale_row(t: torch.Tensor, i: int, k: float):
    t[i].mul_(k)


def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    for i in range(x.shape[0]):
        scale_row(x, i, float(i + 1))
        scale_row(x.t(), i, 0.5)
    return x
""", {"x": ("f32", [4, 4])}),
    case("branch_mutates_different_views", """
def f(x: torch.Tensor, flag: bool) -> torch.Tensor:
    x = x.clone()
    a = x[:, 0]
    b = x[0, :]
    if flag:
        a.fill_(1.0)
        b.mul_(2.0)
    else:
        b.fill_(-1.0)
        a.mul_(3.0)
    return x
""", {"x": F34, "flag": True}),
    case("data_dependent_branch_mutation", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    for i in range(x.shape[0]):
        row = x[i]
        if float(row.sum()) > 0.0:
            row.sub_(row.mean())
        else:
            row.copy_(row.flip(0))
    return x
""", {"x": F34}),
    case("accumulate_into_slices", """
def f(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(2, x.shape[1])
    for i in range(x.shape[0]):
        acc[i % 2] += x[i]
        acc[:, : i + 1] *= 0.9
    return acc
""", {"x": ("f32", [5, 4])}),
    case("scan_with_views", """
def f(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    out[0] = x[0]
    for t in range(1, x.shape[0]):
        prev = out[t - 1]
        cur = out[t]
        cur.copy_(prev * 0.5 + x[t])
    return out
""", {"x": ("f32", [6, 3])}),
]
