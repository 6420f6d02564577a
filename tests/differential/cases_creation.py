"""Creation ops: zeros/ones/full/empty/arange/scalar_tensor and the *_like
family, size as varargs / list / x.size(), dtype keyword arguments."""

from case_builders import case, expr_builder

F23 = ("f32", [2, 3])
LIST = "List[torch.Tensor]"


expr = expr_builder(F23)


CASES = [
    expr("zeros_ones_varargs", "[torch.zeros(2, 3), torch.ones(4)]", ret=LIST),
    expr("zeros_ones_list", "[torch.zeros([2, 3]), torch.ones([1, 2, 2])]", ret=LIST),
    expr("zeros_from_size", "torch.zeros(x.size()) + x", ret="torch.Tensor"),
    expr("zeros_from_shape_dims", "torch.ones(x.shape[1], x.shape[0]) * 3.0"),
    expr("zeros_dtype", "[torch.zeros(3, dtype=torch.int64), torch.ones(2, 2, dtype=torch.float64),"
         " torch.zeros([2], dtype=torch.bool), torch.ones(3, dtype=torch.int32)]", ret=LIST),
    expr("zero_size", "[torch.zeros(0, 3), torch.ones([2, 0])]", ret=LIST),
    expr("full_float", "torch.full([2, 3], 1.5)"),
    expr("full_int_infers_int64", "torch.full([3], 7)"),
    expr("full_bool", "torch.full([2], True)", script=False),
    expr("full_dtype", "torch.full([2, 2], 3, dtype=torch.float32)"),
    expr("empty_then_fill", "torch.empty(2, 3).fill_(2.5)"),
    expr("empty_shape_only", "torch.empty([4, 1]).zero_() + x.sum()"),
    expr("arange_end", "torch.arange(5)"),
    expr("arange_start_end_step", "torch.arange(2, 11, 3)"),
    expr("arange_float", "torch.arange(0.0, 1.0, 0.25)"),
    expr("arange_float_end", "torch.arange(3.5)"),
    expr("arange_dtype", "torch.arange(6, dtype=torch.float32).view(2, 3) * x"),
    expr("arange_negative_step", "torch.arange(5, -3, -2)"),
    expr("arange_from_shape", "torch.arange(x.shape[1]) + x"),
    expr("like_ops", "[torch.zeros_like(x), torch.ones_like(x), torch.full_like(x, -2.0)]",
         ret=LIST),
    expr("like_ops_dtype", "[torch.zeros_like(x, dtype=torch.int64), torch.ones_like(x, "
         "dtype=torch.bool), torch.full_like(x, 4, dtype=torch.float64)]", ret=LIST),
    expr("like_of_int_keeps_dtype", "[torch.ones_like(x), torch.full_like(x, 3)]",
         {"x": ("i32", [2, 2], 0, 5)}, ret=LIST),
    expr("full_like_int_float_value", "torch.full_like(x, 2.7)", {"x": ("i64", [3], 0, 5)}),
    expr("empty_like_fill", "torch.empty_like(x).fill_(1.0) * x"),
    expr("scalar_tensor", "[torch.scalar_tensor(2.5), torch.scalar_tensor(3, dtype=torch.int64)]",
         ret=LIST),
    # torch.tensor takes its dtype from the scalar: int64, bool, the default float.
    case("tensor_dtype_from_scalar", """
def f(n: int, b: bool, v: float) -> List[torch.Tensor]:
    return [torch.tensor(n) // 2, torch.tensor(b), torch.tensor(v), torch.tensor(7) / 2,
            torch.tensor(n, dtype=torch.float64), torch.tensor(n) + torch.tensor(True)]
""", {"n": 7, "b": True, "v": 2.5}),
    case("creation_in_loop", """
def f(n: int) -> torch.Tensor:
    acc = torch.zeros(n)
    for i in range(n):
        acc = acc + torch.arange(n) * i
    return acc
""", {"n": 4}),
    case("creation_from_scalar_args", """
def f(n: int, v: float) -> torch.Tensor:
    return torch.full([n, n + 1], v) + torch.arange(n + 1)
""", {"n": 3, "v": -0.5}),
]

CASES += [
    expr("arange_float_lengths", "[torch.arange(0.0, 1.0, 0.1), torch.arange(1.0, 2.5, 0.3),"
         " torch.arange(-1, 1, 0.2), torch.arange(0, 5, 1.5)]", ret=LIST),
    expr("arange_empty", "[torch.arange(0), torch.arange(3, 3)]", ret=LIST),
    expr("zero_dim_creation", "[torch.zeros([]), torch.ones(()) * 3.0, torch.full([], 2)]", ret=LIST),
    expr("full_float_with_int_dtype", "torch.full([3], 2.7, dtype=torch.int64)"),
]

# Random values cannot be compared; their dtype, shape and range can.
CASES += [
    case("rand_like_shape_and_range", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    r = torch.rand_like(x)
    d = torch.rand_like(x, dtype=torch.float64)
    return [r * 0.0, ((r >= 0.0) & (r < 1.0)).all(), d * 0.0, (r != r[0, 0]).any()]
""", {"x": ("f32", [20, 30])}),
]
