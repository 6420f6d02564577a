"""Programs functionalization refuses on purpose (aliasing it does not
follow yet): the later stages run their imperative graph, with dead values
removed and every kernel op a kernel of its own where it stands. Each mixes
the refused pattern with values nobody reads, kernel ops before and after
the writes, reductions, chunks and lists, so the fallback path is planned,
verified and run like the pure one."""

from case_builders import case

F23 = ("f32", [2, 3])
F34 = ("f32", [3, 4])


CASES = [
    # A branch's output may be x, kept in a list across iterations that
    # write x again.
    case("branch_alias_kept_in_list_with_dead_values", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    n = x * 2.0
    m = torch.exp(x) + 1.0
    ys: List[torch.Tensor] = []
    for i in range(3):
        x.add_(1.0)
        if i == 1:
            y = x
        else:
            y = x * 1.0
        ys.append(y)
    return torch.stack(ys)
""", {"x": F23}, fallback=True),
    case("branch_alias_carried_by_loop", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    b = x.clone()
    y = torch.zeros(4)
    unused = b.sum(1)
    for i in range(3):
        b.add_(1.0)
        if i % 2 == 0:
            y = b[0]
        else:
            y = y * 2.0
    return b, y
""", {"x": F34}, fallback=True),
    case("view_cut_past_its_end_in_loop_then_kernels", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    s = torch.softmax(x, 1)
    v = x[0]
    for i in range(3):
        v = v[2:]
        v.add_(1.0)
    t = torch.tanh(x) * 0.5
    return t + x.mean(0, keepdim=True)
""", {"x": F34}, fallback=True),
    # Stacking a list grown in a loop has no static shape, which flatten
    # needs once functional.
    case("odd_chunk_in_list_grown_in_loop_flattened", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    n = x * 2.0
    b = x.chunk(2, 0)[1]
    ys: List[torch.Tensor] = []
    for i in range(3):
        x.add_(1.0)
        if i == 1:
            y = b
        else:
            y = b * 1.0
        ys.append(y)
    return torch.stack(ys).sum(0).flatten() + x.sum()
""", {"x": ("f32", [5, 4])}, fallback=True),
    # A tensor in a list and used directly, written through the list.
    case("list_member_written_through_list_with_reductions", """
def f(x: torch.Tensor, k: int) -> Tuple[torch.Tensor, torch.Tensor]:
    x = x.clone()
    a = x.amax(1)
    unused = torch.sigmoid(x)
    l = [x, x * 2.0]
    for i in range(k):
        l[i].add_(1.0)
    return x, a + l[1].sum(1)
""", {"x": F34, "k": 2}, fallback=True),
    # A product large enough for the contraction kernel, its input written
    # in place before its relu: the relu must not become the product's
    # epilogue, which would run the product after the write.
    case("product_input_written_before_its_activation", """
def f(x: torch.Tensor, w: torch.Tensor, k: int) -> torch.Tensor:
    x = x.clone()
    p = x @ w
    x.add_(1.0)
    r = torch.relu(p)
    l = [x, x * 2.0]
    for i in range(k):
        l[i].add_(1.0)
    return r + l[1].mean()
""", {"x": ("f32", [64, 96]), "w": ("f32", [96, 64]), "k": 2}, fallback=True),
]
