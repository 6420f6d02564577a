"""Minimized programs that random testing found crashing the compiler,
hanging it or giving a wrong answer. Each stays here so its class of bug
cannot come back: copies that aliased their source, branch names bound to
existing values, scalar copy_ sources, eager's setitem rule, odd chunks,
unused values on the imperative (fallback) path."""

from case_builders import case

F3 = ("f32", [3])
F4 = ("f32", [4])
F34 = ("f32", [3, 4])


CASES = [
    # copy_ made y an alias of x: zeroing y zeroed x.
    case("copy_then_zero_keeps_source", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = torch.zeros_like(x)
    y.copy_(x)
    y.zero_()
    return x * 1.0
""", {"x": F3}),
    case("copy_into_input_then_scale_then_copy_again", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x.copy_(y)
    x.mul_(1.5)
    x.copy_(y * 0.5)
    return x
""", {"x": F4, "y": F4}),
    # Functionalization never returned (a cycle of versions).
    case("copy_scale_copy_same_source", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x.copy_(y)
    x.mul_(1.5)
    x.copy_(y)
    return x
""", {"x": F4, "y": F4}),
    case("source_written_after_copy", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    x = x.clone()
    y = torch.empty_like(x)
    y.copy_(x)
    x.add_(1.0)
    y.mul_(2.0)
    return x, y
""", {"x": F34}),
    case("copy_from_view_then_write_view_base", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    x = x.clone()
    y = torch.zeros(4)
    y.copy_(x[1])
    x[1] = 0.0
    y[0] = 5.0
    return x, y
""", {"x": F34}),
    # An odd chunk's last piece kept its static size; with an unused value
    # the imperative graph's kernels did not match their groups.
    case("odd_chunk_flatten_with_unused_value", """
def f(x: torch.Tensor) -> torch.Tensor:
    n = x * 2.0
    b = x.chunk(2, 0)[1]
    return b.flatten()
""", {"x": F3}),
    case("odd_split_pieces_unpacked", """
def f(x: torch.Tensor) -> torch.Tensor:
    a, b, c = x.split(2, 1)
    return a.flatten().sum() + b.reshape(-1).sum() + c.flatten()
""", {"x": ("f32", [3, 5])}),
    # A branch whose arm returns an existing tensor, with an empty list
    # after it: the code after the if was copied into the arms wrongly.
    case("branch_alias_written_then_empty_list", """
def f(x: torch.Tensor, s: float) -> torch.Tensor:
    if s > 0.0:
        t = x
    else:
        t = x * 3.0
    t.mul_(3.0)
    outs: List[torch.Tensor] = []
    return x + 1.0
""", {"x": F3, "s": 1.0}),
    case("branch_alias_written_then_empty_list_other_arm", """
def f(x: torch.Tensor, s: float) -> torch.Tensor:
    if s > 0.0:
        t = x
    else:
        t = x * 3.0
    t.mul_(3.0)
    outs: List[torch.Tensor] = []
    return x + 1.0
""", {"x": F3, "s": -1.0}),
    # Every arm binds the name to the same existing tensor.
    case("both_arms_bind_same_tensor", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    if k > 2:
        t = x
    else:
        t = x
    return t * 2.0
""", {"x": F3, "k": 3}),
    case("elif_arms_bind_same_tensor_then_write", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    x = x.clone()
    if k > 2:
        t = x
    elif k > 1:
        t = x
    else:
        t = x
    t.add_(1.0)
    return x
""", {"x": F3, "k": 1}),
    case("arms_rebind_existing_name_to_same_tensor", """
def f(x: torch.Tensor, y: torch.Tensor, k: int) -> torch.Tensor:
    t = y
    if k > 2:
        t = x
    else:
        t = x
    return t + y
""", {"x": F3, "y": F3, "k": 0}),
    # copy_ from a Python number fills, cast to the target's dtype.
    case("copy_from_python_scalars", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    y = torch.zeros_like(x)
    y.copy_(0.5)
    z = torch.zeros(3, dtype=torch.int64)
    z.copy_(3)
    w = torch.zeros(2)
    w.copy_(2)
    return y + x, z, w
""", {"x": F3}),
    # x[i] = v drops v's leading size-1 dims, as PyTorch eager does.
    case("setitem_value_with_leading_ones", """
def f(x: torch.Tensor, r: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[0] = r
    y[1:3] = q
    y[2, 1:] = r[:, :3]
    return y
""", {"x": F34, "r": ("f32", [1, 4]), "q": ("f32", [1, 1, 4])}),
    case("setitem_value_into_scalar_slot", """
def f(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[0, 0] = s
    return y
""", {"x": F34, "s": ("f32", [1, 1])}),
    # A view read only by a copy is the copy's value unless its base is
    # written: then it must follow the writes (loops included).
    case("copy_from_view_whose_base_is_written_in_loop", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    y = torch.zeros(4)
    v = x[1]
    for i in range(3):
        y.copy_(v)
        x.add_(1.0)
    return y
""", {"x": F34}),
    case("copy_from_view_between_base_writes", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    y = torch.zeros(4)
    v = x[1]
    x.add_(1.0)
    y.copy_(v)
    x.add_(1.0)
    return y + x[1]
""", {"x": F34}),
]
