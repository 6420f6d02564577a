"""Reference semantics across names, lists, loops and calls: tensors and
lists are shared objects in PyTorch, so a write through one name (or through
a helper's parameter, or through a list element) is seen through every other
name for the same object."""

from case_builders import case

F34 = ("f32", [3, 4])


CASES = [
    case("views_in_list_see_base_writes", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    x = x.clone()
    rows = []
    for i in range(3):
        rows.append(x[i])
    x.mul_(10.0)
    copies = torch.stack(rows)
    x.zero_()
    return [rows[0], rows[2], copies]
""", {"x": F34}),
    case("loop_carried_view_writes_base", """
def f(x: torch.Tensor) -> torch.Tensor:
    v = x[0]
    for i in range(3):
        v = v[1:]
        v[0] = float(i)
    return x
""", {"x": F34}),
    case("alias_mutated_in_loop", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x
    r = x[1]
    for i in range(3):
        y.mul_(2.0)
        r += 1.0
    return x, r
""", {"x": F34}),
    case("inplace_result_viewed", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x.add_(1.0).view(-1)
    y[0] = 5.0
    return x
""", {"x": F34}),
    case("same_tensor_returned_twice", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    y = x * 2.0
    return y, y, y[0]
""", {"x": F34}),
    case("helper_returns_view_then_written", """
def first(t: torch.Tensor) -> torch.Tensor:
    return t[0]


def f(x: torch.Tensor) -> torch.Tensor:
    first(x).fill_(1.0)
    first(x.t()).mul_(3.0)
    return x
""", {"x": F34}),
    case("helper_rebinding_param_is_local", """
def g(t: torch.Tensor, n: int) -> int:
    t = t * 2.0
    n = n + 1
    return n


def f(x: torch.Tensor) -> Tuple[torch.Tensor, int]:
    n = 3
    m = g(x, n)
    return x, n + m
""", {"x": F34}),
    case("helper_augassign_param_mutates_caller", """
def bump(t: torch.Tensor):
    t += 1.0
    t[0] *= 2.0


def f(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    bump(y)
    bump(y[1:])
    return y
""", {"x": F34}),
    case("helper_appends_to_callers_list", """
def add_rows(rows: List[torch.Tensor], x: torch.Tensor):
    rows.append(x[0])
    rows.append(x[1] * 2.0)


def f(x: torch.Tensor) -> torch.Tensor:
    rows = [x[2]]
    add_rows(rows, x)
    return torch.stack(rows)
""", {"x": F34}),
    case("list_alias_append_seen", """
def f(x: torch.Tensor, y: torch.Tensor) -> Tuple[int, torch.Tensor]:
    a = [x]
    b = a
    b.append(y)
    return len(a), torch.cat(a)
""", {"x": F34, "y": F34}),
    case("list_appended_in_host_loop_with_alias_and_snapshot", """
def f(x: torch.Tensor, n: int) -> Tuple[List[int], List[int], List[int], List[int]]:
    a: List[int] = []
    snap: List[int] = []
    b = a
    for i in range(n):
        a.append(int(torch.argmax(x[i])))
        if i == 2:
            snap = a[:]
        c = a
        c.append(i)
    outer: List[int] = [7]
    for i in range(n):
        inner = outer
        for j in range(2):
            inner.append(int(torch.argmin(x[i])) + j)
    return a, b, snap, outer
""", {"x": ("f32", [6, 5]), "n": 5}),
    case("list_alias_setitem_seen", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    a = [x, x]
    b = a
    b[0] = y
    return a[0] - a[1]
""", {"x": F34, "y": F34}),
    case("list_mutated_in_helper_loop", """
def fill(out: List[int], n: int):
    for i in range(n):
        out.append(i * i)


def f(x: torch.Tensor) -> List[int]:
    out: List[int] = []
    fill(out, x.shape[1])
    fill(out, 2)
    return out
""", {"x": F34}),
    case("tensor_in_two_lists", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    t = x.clone()
    a = [t]
    b = [t, t]
    a[0].add_(1.0)
    b[1].mul_(2.0)
    return t, b[0]
""", {"x": F34}),
    case("branch_assigns_alias_or_copy", """
def f(x: torch.Tensor, share: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    x = x.clone()
    if share:
        y = x
    else:
        y = x.clone()
    y.add_(100.0)
    return x, y
""", {"x": F34, "share": True}),
    case("branch_assigns_alias_or_copy_false", """
def f(x: torch.Tensor, share: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    x = x.clone()
    if share:
        y = x
    else:
        y = x.clone()
    y.add_(100.0)
    return x, y
""", {"x": F34, "share": False}),
    case("data_dependent_alias", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    x = x.clone()
    if float(x.sum()) > 0.0:
        y = x[0]
    else:
        y = x[1]
    y.fill_(7.0)
    return x, y
""", {"x": F34}),
    case("loop_swaps_buffers", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    a = x.clone()
    b = torch.zeros_like(x)
    for i in range(3):
        b.copy_(a * 2.0 + 1.0)
        a, b = b, a
    return a, b
""", {"x": F34}),
    case("unbind_elements_after_base_write", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    x = x.clone()
    parts = x.unbind(1)
    x[:, 0] = -1.0
    parts[2].zero_()
    return [parts[0], x]
""", {"x": F34}),
]
