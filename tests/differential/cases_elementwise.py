"""Elementwise ops: arithmetic overloads, broadcasting, type promotion,
unary math, comparisons, logical/bitwise ops, clamp, where, masked_fill."""

from case_builders import case

F23 = ("f32", [2, 3])
POS23 = ("f32", [2, 3], 0.1, 2.0)


def unary(op, spec=F23, expr=None):
    body = expr or "torch.%s(x)" % op
    return case("unary_" + op, "def f(x: torch.Tensor) -> torch.Tensor:\n    return %s\n" % body,
                {"x": spec})


CASES = [
    case("add_broadcast_row", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y
""", {"x": ("f32", [4, 3]), "y": ("f32", [3])}),
    case("add_broadcast_both", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.add(x, y)
""", {"x": ("f32", [3, 1]), "y": ("f32", [1, 4])}),
    case("add_broadcast_rank3", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x.add(y)
""", {"x": ("f32", [2, 1, 4]), "y": ("f32", [3, 1])}),
    case("add_alpha", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.add(x, y, alpha=2.5)
""", {"x": F23, "y": F23}),
    case("add_scalar_float", """
def f(x: torch.Tensor, s: float) -> torch.Tensor:
    return x + s
""", {"x": F23, "s": 0.75}),
    case("sub_alpha_scalar", """
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.sub(x, 3, alpha=2)
""", {"x": F23}),
    case("sub_tensor", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x - y - 1.5
""", {"x": ("f32", [2, 3, 4]), "y": ("f32", [4])}),
    case("rsub_scalar_left", """
def f(x: torch.Tensor) -> torch.Tensor:
    return 2 - x
""", {"x": F23}),
    case("rsub_function", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.rsub(x, y, alpha=3)
""", {"x": F23, "y": F23}),
    case("mul_div_chain", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x * y / (y * y + 1.0)
""", {"x": ("f32", [5, 3]), "y": ("f32", [5, 1])}),
    case("rdiv_scalar_left", """
def f(x: torch.Tensor) -> torch.Tensor:
    return 2.0 / x
""", {"x": POS23}),
    case("rmul_scalar_left", """
def f(x: torch.Tensor) -> torch.Tensor:
    return 3 * x + 0.5 * x
""", {"x": F23}),
    case("div_int_int_true_division", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a / b
""", {"a": ("i64", [3, 4], -20, 20), "b": ("i64", [3, 4], 1, 7)}),
    case("div_int_by_int_scalar", """
def f(a: torch.Tensor) -> torch.Tensor:
    return a / 4
""", {"a": ("i64", [6], -20, 20)}),
    case("floor_divide_int", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a // b
""", {"a": ("i64", [3, 4], -20, 20), "b": ("i64", [3, 4], 1, 7)}),
    case("floor_divide_float_scalar", """
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.floor_divide(x * 10.0, 3.0)
""", {"x": F23}),
    case("rfloor_divide_scalar_left", """
def f(a: torch.Tensor) -> torch.Tensor:
    return 17 // a
""", {"a": ("i64", [5], 1, 9)}, script=False),
    case("remainder_int_neg", """
def f(a: torch.Tensor) -> torch.Tensor:
    return a % 3
""", {"a": ("i64", [8], -20, 20)}),
    case("remainder_float_tensor", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.remainder(x * 5.0, y)
""", {"x": F23, "y": POS23}),
    case("rremainder_scalar_left", """
def f(a: torch.Tensor) -> torch.Tensor:
    return 10 % a
""", {"a": ("i64", [6], 1, 7)}),
    case("pow_scalar", """
def f(x: torch.Tensor) -> torch.Tensor:
    return x ** 2 + torch.pow(x, 3)
""", {"x": F23}),
    case("pow_tensor", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.pow(x, y)
""", {"x": POS23, "y": F23}),
    case("pow_int_tensor_int_scalar", """
def f(a: torch.Tensor) -> torch.Tensor:
    return a ** 2
""", {"a": ("i64", [5], -5, 5)}),
    case("rpow_scalar_left", """
def f(x: torch.Tensor) -> torch.Tensor:
    return 2 ** x
""", {"x": F23}),
    case("atan2", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.atan2(x, y)
""", {"x": F23, "y": ("f32", [3])}),
    case("maximum_minimum", """
def f(x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    return torch.maximum(x, y), torch.minimum(x, y)
""", {"x": ("f32", [4, 3]), "y": ("f32", [4, 1])}),
    case("maximum_int", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.maximum(a, b)
""", {"a": ("i64", [6], -5, 5), "b": ("i64", [6], -5, 5)}),
    case("compare_tensor", """
def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    return [x == y, x != y, x < y, x <= y, x > y, x >= y]
""", {"x": ("i64", [3, 4], 0, 3), "y": ("i64", [4], 0, 3)}),
    case("compare_scalar_methods", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [x.eq(0.5), x.ne(0.5), x.lt(0.0), x.le(0.25), x.gt(-0.25), x.ge(0.0)]
""", {"x": F23}),
    case("compare_int_tensor_float_scalar", """
def f(a: torch.Tensor) -> torch.Tensor:
    return a > 2.5
""", {"a": ("i64", [7], 0, 6)}),
    case("compare_functions", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.logical_and(torch.gt(x, y), torch.le(x, 0.5))
""", {"x": F23, "y": F23}),
    case("logical_ops", """
def f(a: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    return [torch.logical_and(a, b), torch.logical_or(a, b), torch.logical_xor(a, b),
            torch.logical_not(a), a.logical_not()]
""", {"a": ("bool", [2, 5]), "b": ("bool", [5])}),
    case("logical_on_floats", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.logical_or(x > 0.5, y)
""", {"x": F23, "y": ("f32", [2, 3])}),
    case("bitwise_int", """
def f(a: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    return [a & b, a | b, a ^ b, torch.bitwise_and(a, 6), torch.bitwise_not(a)]
""", {"a": ("i64", [6], 0, 16), "b": ("i64", [6], 0, 16)}),
    case("bitwise_bool", """
def f(a: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    return [a & b, a | b, a ^ b, ~a]
""", {"a": ("bool", [7]), "b": ("bool", [7])}),
    unary("exp"),
    unary("log", POS23),
    unary("log_of_negative", F23, "torch.log(x)"),
    unary("sqrt", POS23),
    unary("rsqrt", POS23),
    unary("sin"), unary("cos"), unary("tanh"), unary("sigmoid"),
    unary("erf"),
    unary("reciprocal", POS23),
    unary("log1p", POS23), unary("expm1"), unary("log2", POS23), unary("exp2"),
    unary("tan"), unary("asin"), unary("acos"), unary("atan"), unary("sinh"), unary("cosh"),
    unary("neg", F23, "-x"),
    unary("abs"), unary("relu"), unary("floor", ("f32", [2, 3], -5, 5)),
    unary("ceil", ("f32", [2, 3], -5, 5)), unary("sign"),
    unary("round", ("f32", [2, 3], -5, 5)), unary("trunc", ("f32", [2, 3], -5, 5)),
    unary("square"),
    unary("methods_chain", F23, "x.exp().sin().abs().sqrt().neg().sigmoid()"),
    unary("gelu", F23, "torch.nn.functional.gelu(x)"),
    unary("gelu_tanh", F23, "torch.nn.functional.gelu(x, approximate='tanh')"),
    unary("silu", F23, "torch.nn.functional.silu(x)"),
    unary("relu_method", F23, "x.relu() + x.sigmoid() * x.tanh()"),
    case("unary_int_keep_type", """
def f(a: torch.Tensor) -> List[torch.Tensor]:
    return [-a, torch.abs(a), torch.relu(a), torch.sign(a), a.square()]
""", {"a": ("i64", [8], -5, 5)}),
    case("unary_float_of_int", """
def f(a: torch.Tensor) -> List[torch.Tensor]:
    return [torch.exp(a), torch.sqrt(a), torch.sigmoid(a)]
""", {"a": ("i64", [2, 3], 0, 5)}),
    case("unary_int32", """
def f(a: torch.Tensor) -> List[torch.Tensor]:
    return [a.abs(), -a, a + 1, a * a, a.exp()]
""", {"a": ("i32", [5], -5, 5)}),
    case("isnan", """
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.isnan(torch.log(x))
""", {"x": F23}),
    case("clamp_scalars", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [torch.clamp(x, -0.5, 0.5), x.clamp(min=0.0), x.clamp(max=0.2)]
""", {"x": F23}),
    case("clamp_tensors", """
def f(x: torch.Tensor, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, lo, hi + 1.0)
""", {"x": ("f32", [4, 3]), "lo": ("f32", [3]), "hi": ("f32", [4, 1])}),
    case("clamp_int", """
def f(a: torch.Tensor) -> torch.Tensor:
    return a.clamp(0, 3)
""", {"a": ("i64", [9], -5, 8)}),
    case("where_tensor_tensor", """
def f(c: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(c, x, y)
""", {"c": ("bool", [2, 3]), "x": ("f32", [3]), "y": ("f32", [2, 1])}),
    case("where_tensor_scalar", """
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, x, 0.0)
""", {"x": F23}),
    case("where_scalar_tensor", """
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, 1.0, x)
""", {"x": F23}),
    case("where_scalar_scalar", """
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, 1.0, -1.0)
""", {"x": F23}),
    case("where_promotes", """
def f(c: torch.Tensor, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return torch.where(c, a, x)
""", {"c": ("bool", [5]), "a": ("i64", [5], 0, 9), "x": ("f32", [5])}),
    case("masked_fill_scalar", """
def f(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return x.masked_fill(m, -1.5)
""", {"x": ("f32", [3, 4]), "m": ("bool", [4])}),
    case("masked_fill_tensor_value", """
def f(x: torch.Tensor) -> torch.Tensor:
    return torch.masked_fill(x, x < 0, x.sum())
""", {"x": ("f32", [3, 4])}),
    case("lerp", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.lerp(x, y, 0.3)
""", {"x": F23, "y": F23}),
    case("promote_int_plus_float_scalar", """
def f(a: torch.Tensor) -> torch.Tensor:
    return a + 0.5
""", {"a": ("i64", [2, 3], -5, 5)}),
    case("promote_int_times_float_tensor", """
def f(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return a * x
""", {"a": ("i64", [2, 3], -5, 5), "x": ("f32", [3])}),
    case("promote_int32_int64", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b
""", {"a": ("i32", [4], -5, 5), "b": ("i64", [4], -5, 5)}),
    case("promote_int32_python_int", """
def f(a: torch.Tensor) -> torch.Tensor:
    return a * 3 - 1
""", {"a": ("i32", [4], -5, 5)}),
    case("promote_f32_f64", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y
""", {"x": ("f32", [3]), "y": ("f64", [3])}),
    case("promote_zero_dim_does_not_win", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x * y.sum()
""", {"x": ("f32", [2, 3]), "y": ("f64", [4])}),
    case("promote_bool_plus_int", """
def f(m: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    return m + a
""", {"m": ("bool", [5]), "a": ("i64", [5], -5, 5)}),
    case("promote_bool_times_float_scalar", """
def f(m: torch.Tensor) -> torch.Tensor:
    return m * 2.5
""", {"m": ("bool", [5])}),
    case("f64_arith", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.exp(x) * y - x / (y * y + 1.0)
""", {"x": ("f64", [3, 2]), "y": ("f64", [2])}),
    case("empty_dim_elementwise", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x * 2.0 + y
""", {"x": ("f32", [0, 3]), "y": ("f32", [3])}),
    case("size_one_dims", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x - y
""", {"x": ("f32", [1, 3, 1]), "y": ("f32", [2, 1, 4])}),
    case("zero_dim_input", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x * y + 1.0
""", {"x": ("f32", []), "y": ("f32", [2, 2])}),
]

CASES += [
    case("where_int_tensor_float_scalar", """
def f(c: torch.Tensor, a: torch.Tensor) -> List[torch.Tensor]:
    return [torch.where(c, a, 2.5), torch.where(c, 1, 0), torch.where(c, a.double(), 1.0)]
""", {"c": ("bool", [6]), "a": ("i64", [6], -9, 9)}),
    case("masked_fill_int_float_value", """
def f(a: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return a.masked_fill(m, 2.7)
""", {"a": ("i64", [6], -9, 9), "m": ("bool", [6])}),
    case("clamp_int_float_bounds", """
def f(a: torch.Tensor) -> torch.Tensor:
    return torch.clamp(a, 0.5, 2.5)
""", {"a": ("i64", [8], -2, 5)}),
    case("clamp_tensor_min_only", """
def f(x: torch.Tensor, lo: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, min=lo)
""", {"x": ("f32", [3, 4]), "lo": ("f32", [4])}),
    case("int_pow_float_and_rpow_int", """
def f(a: torch.Tensor) -> List[torch.Tensor]:
    return [a ** 0.5, 2 ** a, a.float() ** a, torch.pow(a, 2.0)]
""", {"a": ("i64", [6], 0, 6)}),
    case("remainder_by_zero_float", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [torch.remainder(x, 0.0), x % (x * 0.0), torch.log2(x * 0.0), torch.exp2(x * 200.0)]
""", {"x": ("f32", [5])}),
    case("logical_not_of_numbers", """
def f(x: torch.Tensor, a: torch.Tensor) -> List[torch.Tensor]:
    return [torch.logical_not(x * (x > 0).float()), a.logical_not(), torch.logical_and(a, x)]
""", {"x": ("f32", [6]), "a": ("i64", [6], 0, 2)}),
    case("unary_on_noncontiguous_and_broadcast_views", """
def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    e = y.expand(3, 4)
    return [torch.exp(x.t()), torch.sigmoid(e), e * x.t(), torch.where(x.t() > 0, e, x.t())]
""", {"x": ("f32", [4, 3]), "y": ("f32", [1, 4])}),
]
