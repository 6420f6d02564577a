"""Control flow and scalars: loops with carried tensors, while/break/continue,
if on tensor and scalar conditions, lists built in loops, zip/enumerate,
calls between functions, int(t)/float(t), shape arithmetic, data-dependent
shapes."""

from case_builders import case

F34 = ("f32", [3, 4])


CASES = [
    case("for_range_carried", """
def f(x: torch.Tensor, n: int) -> torch.Tensor:
    acc = torch.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
    return acc
""", {"x": F34, "n": 4}),
    case("for_range_start_stop_step", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x
    for i in range(1, 10, 3):
        y = y * 0.5 + float(i)
    return y
""", {"x": F34}),
    case("for_range_zero_trips", """
def f(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        x = x + 1.0
    return x
""", {"x": F34, "n": 0}),
    case("for_over_shape", """
def f(x: torch.Tensor) -> torch.Tensor:
    out = x[0]
    for i in range(1, x.shape[0]):
        out = torch.maximum(out, x[i])
    return out
""", {"x": ("f32", [5, 3])}),
    case("nested_loops", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(x.shape[0], x.shape[1])
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            y[i, j] = x[i, j] * float(i + j)
    return y
""", {"x": F34}),
    case("rnn_loop", """
def f(xs: torch.Tensor, w: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    h = torch.zeros(xs.shape[1], w.shape[1])
    for t in range(xs.shape[0]):
        h = torch.tanh(xs[t] @ w + h @ u)
    return h
""", {"xs": ("f32", [5, 2, 3]), "w": ("f32", [3, 4]), "u": ("f32", [4, 4])}),
    case("lstm_cell_loop", """
def f(xs: torch.Tensor, wx: torch.Tensor, wh: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    h = torch.zeros(xs.shape[1], wh.shape[0])
    c = torch.zeros(xs.shape[1], wh.shape[0])
    for t in range(xs.shape[0]):
        gates = xs[t] @ wx + h @ wh.t().t()
        i, f, g, o = gates.chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
    return h, c
""", {"xs": ("f32", [3, 2, 5]), "wx": ("f32", [5, 16]), "wh": ("f32", [4, 16])}),
    case("while_break", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, int]:
    steps = 0
    while True:
        x = x * 0.5
        steps += 1
        if float(x.abs().max()) < 0.01:
            break
    return x, steps
""", {"x": ("f32", [3, 4], -10.0, 10.0)}),
    case("while_tensor_condition_scalar", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, int]:
    n = 0
    while float(x.sum()) < 100.0:
        x = x * 2.0 + 1.0
        n = n + 1
    return x, n
""", {"x": ("f32", [4], 0.0, 1.0)}),
    case("for_break_continue", """
def f(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(x.shape[1])
    for i in range(x.shape[0]):
        if i % 2 == 1:
            continue
        if i >= 6:
            break
        acc += x[i]
    return acc
""", {"x": ("f32", [9, 3])}),
    case("if_tensor_condition_implicit", """
def f(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = -x
    return y
""", {"x": F34}),
    case("if_bool_of_tensor", """
def f(x: torch.Tensor) -> torch.Tensor:
    if bool(x.mean() < 0):
        x = x.abs()
    return x + 1.0
""", {"x": F34}),
    case("if_scalar_elif_chain", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    if k == 0:
        y = x + 1.0
    elif k == 1:
        y = x * 2.0
    elif k < 5 and k != 3:
        y = x.exp()
    else:
        y = x.t().contiguous()
    return y
""", {"x": ("f32", [3, 3]), "k": 2}),
    case("if_bool_arg_not_or", """
def f(x: torch.Tensor, flag: bool, g: float) -> torch.Tensor:
    if not flag or g > 1.0:
        return x * g
    else:
        return x - g
""", {"x": F34, "flag": True, "g": 0.5}),
    case("if_in_loop_tensor_cond", """
def f(x: torch.Tensor) -> torch.Tensor:
    out = x.clone()
    for i in range(x.shape[0]):
        if out[i].sum() > 0:
            out[i] = out[i] * -1.0
    return out
""", {"x": ("f32", [6, 3])}),
    case("if_mutation_in_branch", """
def f(x: torch.Tensor, flag: bool) -> torch.Tensor:
    y = x.clone()
    if flag:
        y[0] = 0.0
    else:
        y[:, 0] = 1.0
    return y
""", {"x": F34, "flag": False}),
    case("list_append_stack", """
def f(x: torch.Tensor) -> torch.Tensor:
    outs = []
    for i in range(x.shape[0]):
        outs.append(x[i] * float(i))
    return torch.stack(outs, 1)
""", {"x": F34}),
    case("list_append_cat_len", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, int]:
    parts = []
    for i in range(3):
        parts.append(x[:, i:i + 1] + 1.0)
    return torch.cat(parts, -1), len(parts)
""", {"x": F34}),
    case("list_literal_index_neg", """
def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    xs = [a, b, c]
    return xs[-1] + xs[0] * xs[1]
""", {"a": ("f32", [3]), "b": ("f32", [3]), "c": ("f32", [3])}),
    case("list_set_item", """
def f(a: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    xs = [a, b]
    xs[0] = b * 2.0
    return xs
""", {"a": ("f32", [3]), "b": ("f32", [3])}),
    case("list_of_ints", """
def f(x: torch.Tensor) -> torch.Tensor:
    sizes = [1, 2]
    sizes.append(x.shape[1] - 3)
    return x.split(sizes, 1)[2]
""", {"x": ("f32", [2, 6])}),
    case("for_over_list", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(3)
    for t in [a, b, a]:
        acc = acc * 2.0 + t
    return acc
""", {"a": ("f32", [3]), "b": ("f32", [3])}),
    case("zip_lists", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(x.shape[1])
    for a, b in zip(x.unbind(0), y.unbind(0)):
        acc = acc + a * b
    return acc
""", {"x": F34, "y": F34}),
    case("enumerate_list", """
def f(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(x.shape[1])
    for i, row in enumerate(x.chunk(3, 0)):
        acc = acc + row.squeeze(0) * float(i)
    return acc
""", {"x": F34}),
    case("calls_between_functions", """
def scale(t: torch.Tensor, k: float) -> torch.Tensor:
    return t * k


def norm(t: torch.Tensor) -> torch.Tensor:
    return scale(t, 1.0 / float(t.abs().max()))


def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return norm(x) + norm(y)
""", {"x": F34, "y": F34}),
    case("fn_selected_not_last", """
def g(x: torch.Tensor) -> torch.Tensor:
    return x.sum(0)


def other(x: torch.Tensor) -> torch.Tensor:
    return x * 100.0
""", {"x": F34}, fn="g"),
    case("tuple_return_unpack", """
def pair(t: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    return t.max(1)[0], t.min(1)[0]


def f(x: torch.Tensor) -> torch.Tensor:
    hi, lo = pair(x)
    return hi - lo
""", {"x": F34}),
    case("int_of_tensor", """
def f(a: torch.Tensor) -> Tuple[int, torch.Tensor]:
    n = int(a.sum())
    return n * 2 + 1, torch.zeros(n % 7 + 1)
""", {"a": ("i64", [5], 0, 4)}),
    case("float_of_tensor", """
def f(x: torch.Tensor) -> Tuple[float, torch.Tensor]:
    m = float(x.max())
    return m / 2.0, x - m
""", {"x": F34}),
    case("item_method", """
def f(x: torch.Tensor) -> float:
    return x.sum().item() * 1.0
""", {"x": F34}, script=False),
    case("scalar_arith", """
def f(x: torch.Tensor, a: int, b: float) -> List[float]:
    n = x.shape[0] * a + x.size(1) // 3 - a % 4
    c = float(n) / 3.0 + b ** 2 - min(b, 2.0) + max(a, 2)
    return [float(n), c, -c, abs(b - 5.0)]
""", {"x": F34, "a": 7, "b": 1.25}),
    case("scalar_int_results", """
def f(x: torch.Tensor, a: int) -> List[int]:
    return [a // 2, a % 3, -a, a * x.dim(), (a + 1) * (a - 1)]
""", {"x": F34, "a": 9}),
    case("scalar_bool_results", """
def f(x: torch.Tensor, a: int) -> List[bool]:
    return [a > 3, a == x.shape[0], not (a < 2) and x.dim() == 2]
""", {"x": F34, "a": 3}),
    case("data_dependent_prefix", """
def f(x: torch.Tensor) -> torch.Tensor:
    n = int((x > 0).sum())
    return x[:n]
""", {"x": ("f32", [12])}),
    case("data_dependent_zeros", """
def f(x: torch.Tensor) -> torch.Tensor:
    n = int((x > 0.5).sum())
    return torch.ones(n, 2) * x.sum()
""", {"x": ("f32", [10])}),
    case("data_dependent_loop_count", """
def f(x: torch.Tensor) -> torch.Tensor:
    n = int((x > 0).sum())
    out = torch.zeros(1)
    for i in range(n):
        out = torch.cat([out, x[i:i + 1]], 0)
    return out
""", {"x": ("f32", [8])}),
    case("data_dependent_view_then_write", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    k = int(x.argmax())
    x[k:] = 0.0
    return x.view(-1)[: k + 1]
""", {"x": ("f32", [9])}),
    case("loop_carried_list_and_scalar", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, float]:
    xs = [x]
    total = 0.0
    for i in range(3):
        y = xs[-1] * 0.5
        total += float(y.sum())
        xs.append(y)
    return torch.stack(xs), total
""", {"x": ("f32", [4])}),
    case("return_input_unchanged_and_view", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [x, x[1:], x.t()]
""", {"x": F34}),
]

CASES += [
    case("branch_with_different_shapes", """
def f(x: torch.Tensor) -> torch.Tensor:
    if float(x.sum()) > 0.0:
        y = x[:2]
    else:
        y = torch.cat([x, x], 0)
    return y * 2.0 + y.shape[0]
""", {"x": ("f32", [3, 4])}),
    case("while_shrinking_shape", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x
    while y.shape[0] > 1 and float(y[0]) < 0.5:
        y = y[1:]
    return y
""", {"x": ("f32", [10])}),
    case("list_of_varying_shapes", """
def f(x: torch.Tensor) -> torch.Tensor:
    parts = []
    for i in range(1, 4):
        parts.append(x[:i].sum(0, keepdim=True) * float(i))
        parts.append(x[i:])
    return torch.cat(parts, 0)
""", {"x": ("f32", [5, 2])}),
    case("helper_with_loop_mutating_arg", """
def smooth(t: torch.Tensor, n: int):
    for i in range(n):
        t[1:-1] = (t[:-2] + t[2:]) * 0.5


def f(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    smooth(y, 3)
    smooth(y[::2], 1)
    return y
""", {"x": ("f32", [9])}),
    case("view_created_in_loop_of_outer", """
def f(x: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(4, 3)
    for i in range(4):
        row = out[i]
        row.copy_(x[i % 3] * float(i))
        if i > 0:
            row += out[i - 1]
    return out
""", {"x": ("f32", [3, 3])}),
    case("return_inside_loop", """
def first_positive(x: torch.Tensor) -> int:
    for i in range(x.shape[0]):
        if float(x[i]) > 0.0:
            return i
    return -1


def f(x: torch.Tensor) -> int:
    return first_positive(x) + 10 * first_positive(x - 2.0)
""", {"x": ("f32", [8])}),
    case("return_inside_nested_loops", """
def find_pair(x: torch.Tensor, limit: float) -> torch.Tensor:
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if float(x[i, j]) > limit:
                return x[i] * float(j)
        x = x * 1.5
    return x.sum(0)


def f(x: torch.Tensor) -> torch.Tensor:
    return find_pair(x, 0.9) + find_pair(x, 5.0)
""", {"x": ("f32", [4, 5])}),
    case("return_inside_while", """
def f(x: torch.Tensor) -> torch.Tensor:
    total = torch.zeros_like(x)
    k = 0
    while k < 10:
        total = total + x * float(k)
        if float(total.sum()) > 3.0:
            return total
        k += 1
    return -total
""", {"x": ("f32", [6])}),
]

# Code that never runs must not be rejected for shapes it would have had.
CASES += [
    case("untaken_branch_with_bad_shapes", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if float(a.sum()) > 1e9:
        return a @ b
    return a + 1.0
""", {"a": ("f32", [2, 3]), "b": ("f32", [4, 5])}),
    case("untaken_scalar_branch_with_bad_shapes", """
def f(a: torch.Tensor, b: torch.Tensor, flag: bool) -> torch.Tensor:
    y = a
    if flag:
        y = a + b
    return y * 2.0
""", {"a": ("f32", [2, 3]), "b": ("f32", [4, 5]), "flag": False}),
    case("zero_trip_loop_with_bad_shapes", """
def f(a: torch.Tensor, b: torch.Tensor, n: int) -> torch.Tensor:
    y = a
    for i in range(n):
        y = y @ b
    return y
""", {"a": ("f32", [2, 3]), "b": ("f32", [4, 5]), "n": 0}),
    case("loop_shape_valid_only_while_running", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x
    while y.shape[0] > 1:
        y = y[1:] - y[:-1]
    return y
""", {"x": ("f32", [6, 2])}),
]
