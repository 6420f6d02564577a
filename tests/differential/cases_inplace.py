"""In-place ops and writes through views: subscript assignment, augmented
assignment on subscripts and on aliases, every `*_` op, writes through views
of views, mutation of inputs (returned so the effect is compared)."""

from case_builders import case

F34 = ("f32", [3, 4])


def inplace(name, stmt, inputs=None):
    src = ("def f(x: torch.Tensor) -> torch.Tensor:\n    x = x.clone()\n    %s\n    return x\n"
           % stmt)
    return case(name, src, inputs or {"x": F34})


CASES = [
    case("setitem_ellipsis_last", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x[..., 0] = y
    return x
""", {"x": ("f32", [2, 3, 4]), "y": ("f32", [2, 3])}),
    case("normalize_channel_swap", """
def f(src: torch.Tensor, mean: float, scale: float) -> torch.Tensor:
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
""", {"src": ("f32", [5, 4, 3]), "mean": 0.25, "scale": 1.5}),
    case("augassign_slice", """
def f(x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    x[1:3] += z
    return x
""", {"x": ("f32", [5, 4]), "z": ("f32", [4])}),
    case("transpose_view_mul_", """
def f(x: torch.Tensor) -> torch.Tensor:
    v = x.t()
    v.mul_(2)
    return x
""", {"x": F34}),
    case("alias_augassign_mutates_original", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x
    y += 1.0
    z = x * 1.0
    z -= 1.0
    return x, z
""", {"x": F34}),
    case("setitem_scalar", """
def f(x: torch.Tensor) -> torch.Tensor:
    x[1] = 0.5
    x[:, -1] = -2.0
    x[0, 0] = 7.0
    return x
""", {"x": F34}),
    case("setitem_broadcast_row", """
def f(x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    x[1:, :] = r
    return x
""", {"x": F34, "r": ("f32", [4])}),
    case("setitem_step_slice", """
def f(x: torch.Tensor) -> torch.Tensor:
    x[:, ::2] = x[:, 1::2] * 10.0
    return x
""", {"x": F34}),
    case("setitem_index_then_slice", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x[:, :, 1, :] += y
    return x
""", {"x": ("f32", [2, 3, 4, 5]), "y": ("f32", [2, 3, 5])}),
    case("setitem_view_of_view", """
def f(x: torch.Tensor) -> torch.Tensor:
    x[0][1] = 5.0
    v = x[1:]
    w = v[:, 2:]
    w[0] = -1.0
    return x
""", {"x": F34}),
    case("inplace_on_nested_view_method", """
def f(x: torch.Tensor) -> torch.Tensor:
    x.t()[1:3].unsqueeze(0).add_(100.0)
    return x
""", {"x": F34}),
    case("write_through_view_minus_one", """
def f(x: torch.Tensor) -> torch.Tensor:
    flat = x.view(-1)
    flat[::3] = 0.0
    return x
""", {"x": F34}),
    case("write_through_reshape_view", """
def f(x: torch.Tensor) -> torch.Tensor:
    r = x.reshape(2, 6)
    r[1].fill_(9.0)
    return x
""", {"x": F34}),
    case("write_through_chunk", """
def f(x: torch.Tensor) -> torch.Tensor:
    a, b = x.chunk(2, 1)
    a.zero_()
    b.mul_(3.0)
    return x
""", {"x": F34}),
    case("write_through_unbind", """
def f(x: torch.Tensor) -> torch.Tensor:
    rows = x.unbind(0)
    rows[1].copy_(rows[0])
    return x
""", {"x": F34}),
    case("write_through_split_list", """
def f(x: torch.Tensor) -> torch.Tensor:
    parts = torch.split(x, [1, 3], 1)
    parts[1].sub_(parts[0])
    return x
""", {"x": F34}),
    case("write_through_permute", """
def f(x: torch.Tensor) -> torch.Tensor:
    p = x.permute(2, 0, 1)
    p[0] = 1.0
    return x
""", {"x": ("f32", [2, 3, 4])}),
    case("write_through_select_unsqueeze_squeeze", """
def f(x: torch.Tensor) -> torch.Tensor:
    v = x.unsqueeze(1).squeeze(1).narrow(1, 1, 2)
    v.clamp_(-0.1, 0.1)
    return x
""", {"x": F34}),
    case("input_mutated_and_view_returned", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    v = x[1]
    x.add_(1.0)
    return v, x
""", {"x": F34}),
    case("view_sees_later_write", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    v = x[:, 0]
    x[2, 0] = 42.0
    return v * 2.0
""", {"x": F34}),
    case("copy_broadcast", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x.copy_(y)
    return x
""", {"x": F34, "y": ("f32", [4])}),
    case("copy_casts_dtype", """
def f(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    x.copy_(a)
    return x
""", {"x": F34, "a": ("i64", [3, 4], -9, 9)}),
    case("copy_float_into_int", """
def f(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    a.copy_(x * 5.0)
    return a
""", {"a": ("i64", [3, 4], 0, 9), "x": F34}),
    case("setitem_float_into_int_truncates", """
def f(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    a[0] = x[0] * 5.0
    return a
""", {"a": ("i64", [3, 4], 0, 9), "x": F34}),
    case("overlapping_rows_sequential", """
def f(x: torch.Tensor) -> torch.Tensor:
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] * 2.0 + x[i]
    return x
""", {"x": ("f32", [5, 3])}),
    inplace("add_tensor_alpha", "x.add_(x[0].clone(), alpha=2.0)"),
    inplace("add_scalar", "x.add_(1.5)"),
    inplace("sub_tensor_and_scalar", "x.sub_(x[:, :1].clone()).sub_(2, alpha=3)"),
    inplace("mul_tensor", "x.mul_(x)"),
    inplace("div_scalar_and_tensor", "x.div_(4.0).div_(x.abs() + 1.0)"),
    inplace("pow_", "x.abs_().pow_(0.5)"),
    inplace("pow_tensor", "x.abs_().pow_(x + 1.0)"),
    inplace("clamp_", "x.clamp_(-0.3, 0.4)"),
    inplace("clamp_min_only", "x.clamp_(min=0.1)"),
    inplace("relu_", "x.relu_()"),
    inplace("sigmoid_tanh_exp", "x.sigmoid_().tanh_().exp_()"),
    inplace("neg_abs_sqrt", "x.neg_().abs_().sqrt_()"),
    inplace("zero_", "x[1:].zero_()"),
    inplace("fill_scalar", "x[:, 1].fill_(3.0)"),
    inplace("fill_zero_dim_tensor", "x.fill_(x[1, 2])"),
    inplace("masked_fill_", "x.masked_fill_(x > 0.0, 0.0)"),
    inplace("masked_fill_tensor_value", "x.masked_fill_(x < 0.0, x.max())"),
    inplace("masked_fill_broadcast_mask", "x.masked_fill_(x[0] > 0.0, -5.0)"),
    inplace("int_add_", "x.add_(3).mul_(2)", {"x": ("i64", [3, 4], -5, 5)}),
    inplace("int_setitem", "x[:, 0] = 7", {"x": ("i32", [3, 4], -5, 5)}),
    inplace("bool_setitem", "x[1] = True", {"x": ("bool", [3, 4])}),
    inplace("augassign_ops_on_subscripts",
            "x[0] -= 1.0\n    x[1] *= 2.0\n    x[2] /= 4.0\n    x[:, 3] += x[:, 0]"),
    case("inplace_result_is_self", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    z = y.mul_(2.0)
    z.add_(1.0)
    return y
""", {"x": F34}),
    case("inplace_in_helper_function", """
def bump(t: torch.Tensor, k: float):
    t.add_(k)


def f(x: torch.Tensor) -> torch.Tensor:
    bump(x[0], 10.0)
    bump(x[:, 1], 1.0)
    return x
""", {"x": F34}),
    case("expand_then_read_after_write", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    e = x[:, :1].expand(3, 4)
    x[:, 0] = 1.0
    return e + 0.0
""", {"x": F34}),
]
