"""PyTorch's exact semantics at the edges: nan/inf propagation, rounding,
integer division signs, aliasing of ops that return self when they can
(contiguous, reshape, to, float), larger and non-contiguous operands that
leave the contiguous fast paths."""

from case_builders import case, expr_builder

F34 = ("f32", [3, 4])
LIST = "List[torch.Tensor]"


expr = expr_builder(F34)


def mutate(name, body, inputs=None):
    src = "def f(x: torch.Tensor) -> torch.Tensor:\n%s    return x\n" % body
    return case(name, src, inputs or {"x": F34})


# Half of the entries are nan (log of a negative number).
NAN = "torch.log(x)"

CASES = [
    expr("relu_keeps_nan", "torch.relu(%s)" % NAN),
    expr("maximum_minimum_propagate_nan", "[torch.maximum(%s, x), torch.minimum(x, %s)]" % (NAN, NAN),
         ret=LIST),
    expr("clamp_keeps_nan", "torch.clamp(%s, -0.5, 0.5)" % NAN),
    expr("max_reduce_propagates_nan", "[%s.max(), %s.amax(1), %s.min(0)[0]]" % (NAN, NAN, NAN),
         ret=LIST),
    expr("argmax_points_at_nan", "torch.log(x).argmax(1)",
         {"x": ("f32", [4, 6], -0.1, 1.0)}),
    expr("sum_softmax_with_nan", "[%s.sum(1), torch.softmax(%s, 1)]" % (NAN, NAN), ret=LIST),
    expr("where_nan_condition", "torch.where(%s > 0, x, -x)" % NAN),
    expr("compare_nan", "[%s == %s, %s != %s, %s < 1.0]" % (NAN, NAN, NAN, NAN, NAN), ret=LIST),
    expr("isnan_of_zero_div", "[torch.isnan(x * 0.0 / (x * 0.0)), x / (x * 0.0)]", ret=LIST),
    expr("inf_arith", "[torch.exp(x * 100.0), -torch.exp(x * 100.0), torch.rsqrt(x * 0.0)]",
         ret=LIST),
    expr("int_true_div_by_zero", "x / (x * 0)", {"x": ("i64", [6], -3, 3)}),
    expr("sigmoid_tanh_saturate", "[torch.sigmoid(x * 100.0), torch.tanh(x * 100.0),"
         " torch.nn.functional.silu(x * 100.0)]", ret=LIST),
    expr("softmax_stable_large", "[torch.softmax(x * 1000.0, 1), torch.log_softmax(x * 1000.0, 0),"
         " torch.logsumexp(x * 1000.0, [1])]", ret=LIST),
    expr("var_single_element_is_nan", "[x.var(), x.std(0), x.var(False)]", {"x": ("f32", [1])},
         ret=LIST),
    expr("empty_reductions", "[x.sum(), x.prod(), x.sum(0), x.mean(1)]", {"x": ("f32", [0, 3])},
         ret=LIST),
    expr("round_half_to_even", "torch.round(x.float() + 0.5)", {"x": ("i64", [12], -6, 6)}),
    expr("floor_ceil_trunc_negative_halves",
         "[torch.floor(x.float() + 0.5), torch.ceil(x.float() - 0.5), torch.trunc(x.float() / 4.0)]",
         {"x": ("i64", [12], -9, 9)}, ret=LIST),
    expr("sign_zero", "[torch.sign(x), torch.sign(x.float())]", {"x": ("i64", [10], -2, 3)},
         ret=LIST),
    case("int_floor_div_mod_signs", """
def f(a: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    d = torch.where(b == 0, b + 1, b)
    return [a // d, a % d, torch.remainder(a, -3), torch.floor_divide(a, -3)]
""", {"a": ("i64", [16], -20, 20), "b": ("i64", [16], -5, 5)}),
    case("float_floor_div_mod_signs", """
def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    return [x // -0.75, x % -0.75, torch.remainder(x * 4.0, y), (x * 4.0) // y]
""", {"x": ("f32", [12], -3.0, 3.0), "y": ("f32", [12], 0.5, 2.0)}),
    case("scalar_floor_div_mod_signs", """
def f(a: int, b: float) -> List[float]:
    return [float(a // 4), float(a % 4), float(-a // 4), float(a % -4), b // 0.5, b % 0.75,
            -b % 0.75, float(a) / 4.0, float(int(b)), float(int(-b))]
""", {"a": -7, "b": 2.7}),
    expr("int_of_negative_tensor_truncates", "torch.zeros(int(x.sum() * 0.0 - 2.5) + 5)"),
    expr("pow_edge_values", "[torch.pow(x * 0.0, 0.0), torch.pow(-x.abs() - 0.5, 0.5),"
         " x.abs() ** -1.0]", ret=LIST),
    expr("int_pow_exact", "[x ** 3, torch.pow(x, 0)]", {"x": ("i64", [9], -4, 5)}, ret=LIST),
    expr("clamp_min_above_max", "torch.clamp(x, 0.5, -0.5)"),
    expr("atan2_zeros", "torch.atan2(x * 0.0, -x.abs() * 0.0 - 1.0)"),
    expr("bool_arith_promotions", "[x + x, x * 2, x + 0.5, x.sum(), x.cumsum(0), x.prod()]",
         {"x": ("bool", [6])}, ret=LIST),
    case("int32_with_int64_zero_dim", """
def f(a: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    return [a + b.sum(), a * b[0], a.float() + b.sum()]
""", {"a": ("i32", [5], -9, 9), "b": ("i64", [3], -9, 9)}),
    case("int_tensor_with_float_zero_dim", """
def f(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return a + x.sum()
""", {"a": ("i64", [5], -9, 9), "x": ("f64", [3])}),
    case("int_floor_div_float_scalar", """
def f(a: torch.Tensor) -> List[torch.Tensor]:
    return [a // 2.5, a / 2, a % 2.5]
""", {"a": ("i64", [7], -9, 9)}),
    expr("argmax_ties_first_index", "[x.argmax(), x.argmax(1), x.argmin(0)]",
         {"x": ("i64", [4, 6], 0, 3)}, ret=LIST),
    expr("any_all_on_numbers", "[x.any(), (x * 0).any(), x.all(), x.any(1), (x.float() * 0.5).all()]",
         {"x": ("i64", [3, 4], 0, 3)}, ret=LIST),
    expr("max_dim_int_and_bool", "[x.max(1)[0], (x > 1).max(0)[0], x.amin(0)]",
         {"x": ("i64", [3, 5], -50, 50)}, ret=LIST),
    mutate("contiguous_of_contiguous_aliases", "    y = x.contiguous()\n    y.add_(1.0)\n"),
    mutate("contiguous_of_transpose_copies", "    y = x.t().contiguous()\n    y.add_(1.0)\n"),
    mutate("reshape_of_contiguous_aliases", "    y = x.reshape(-1)\n    y[0] = 100.0\n"),
    mutate("reshape_of_transpose_copies", "    y = x.t().reshape(-1)\n    y[0] = 100.0\n"),
    mutate("to_same_dtype_aliases", "    y = x.to(torch.float32)\n    y.mul_(2.0)\n"),
    mutate("float_of_float_aliases", "    y = x.float()\n    y.sub_(3.0)\n"),
    mutate("to_other_dtype_copies", "    y = x.to(torch.float64)\n    y.mul_(2.0)\n"),
    mutate("long_of_float_copies", "    y = x.long()\n    y.add_(5)\n"),
    mutate("flatten_of_contiguous_aliases", "    y = x.flatten()\n    y[1] = -7.0\n"),
    mutate("expand_as_view_reads_update", "    y = x[0].expand_as(x)\n    x[0, 1] = 9.0\n"
           "    x.add_(y.sum(0, keepdim=True) * 0.0 + y)\n"),
    case("write_into_expanded_view_allowed", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    base = x.clone()
    e = base.expand(3, 4)
    e[1] = 2.0
    r = e + 0.0
    e.zero_()
    return base, r
""", {"x": ("f32", [1, 4])}),
    mutate("list_holds_alias", "    xs = [x, x[1]]\n    xs[1].fill_(4.0)\n    xs[0][0].zero_()\n"),
    mutate("view_mutated_in_loop", "    v = x[:, 2]\n    for i in range(3):\n        v.add_(float(i))\n"),
    case("view_mutated_in_branch", """
def f(x: torch.Tensor, flag: bool) -> torch.Tensor:
    v = x[1:, :2]
    if flag:
        v.mul_(10.0)
    else:
        v.zero_()
    return x
""", {"x": F34, "flag": True}),
    case("alias_before_loop_sees_mutation", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x
    z = x[0]
    for i in range(2):
        x += 1.0
    return y, z
""", {"x": F34}),
    case("rebinding_is_not_mutation", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x
    x = x + 1.0
    x[0] = 0.0
    return x, y
""", {"x": F34}),
    case("large_noncontiguous_elementwise", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x.t() * 2.0 + y[:, ::2] - torch.exp(x.t() * 0.1)
""", {"x": ("f32", [65, 37]), "y": ("f32", [37, 130])}),
    case("large_broadcast_middle_dim", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x * y + x.sum(1, keepdim=True)
""", {"x": ("f32", [7, 33, 19]), "y": ("f32", [7, 1, 19])}),
    case("large_reductions", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [x.sum(0), x.mean(1), x.amax(0), x.t().softmax(1), x.var(1), x.cumsum(1)]
""", {"x": ("f32", [257, 130])}, tol=(1e-4, 1e-4)),
    case("large_copy_strided", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [x.permute(2, 0, 1).contiguous(), x[:, ::3, 1:].clone(), torch.cat([x, x.flip(1)], 2)]
""", {"x": ("f32", [11, 50, 3])}),
    case("normalize_larger", """
def f(src: torch.Tensor, mean: float, scale: float) -> torch.Tensor:
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
""", {"src": ("f32", [80, 133, 3]), "mean": 0.5, "scale": 2.0}),
    case("large_matmul_noncontiguous", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.t() @ b[::2]
""", {"a": ("f32", [70, 33]), "b": ("f32", [140, 45])}, tol=(1e-4, 1e-4)),
    case("large_setitem_strided", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x[:, 1::2] = y.t()
    x[::3] += 1.0
    return x
""", {"x": ("f32", [40, 66]), "y": ("f32", [33, 40])}),
    case("int64_large_values", """
def f(a: torch.Tensor) -> List[torch.Tensor]:
    b = a * 1000000007
    return [b, b // 3, b % 1000, b.sum(), b.cumsum(0)]
""", {"a": ("i64", [20], -1000000, 1000000)}),
]
