"""Source-language constructs as real programs write them: keyword and
default arguments, tuple/list arguments, early returns, conditional
expressions, docstrings, decorators, Optional, list operations, method forms
of torch functions, dtype values, ranges with negative steps."""

from case_builders import case, expr_builder

F34 = ("f32", [3, 4])
LIST = "List[torch.Tensor]"


expr = expr_builder(F34)


CASES = [
    expr("keywords_out_of_order", "[torch.sum(x, keepdim=True, dim=1), x.transpose(dim1=0, dim0=1),"
         " torch.softmax(x, dim=-1), x.max(dim=0, keepdim=True)[0]]", ret=LIST),
    expr("cat_keyword_tensors", "torch.cat(dim=1, tensors=[x, x])"),
    expr("tuple_arguments", "[x.permute((1, 0)), x.view((2, -1)), torch.zeros((2, 3)),"
         " x.sum(dim=(0, 1)), x.mean((0,)), x.reshape((12,)), torch.stack((x, x)),"
         " torch.cat((x, x), dim=0), x.repeat((1, 2))]", ret=LIST),
    expr("default_dims", "[x.split(2)[1], x.chunk(2)[0], x.unbind()[2], x.flatten(), x.cumsum(0)]",
         {"x": ("f32", [3, 4])}, ret=LIST),
    expr("max_named_fields", "x.max(0).values + x.min(dim=0, keepdim=True).indices.float()"),
    expr("reshape_varargs_from_shape", "x.reshape(x.shape[0], -1)", {"x": ("f32", [2, 3, 4])}),
    expr("unsqueeze_expand_minus_one", "x.unsqueeze(-1).expand(-1, -1, 3)"),
    expr("size_indexing", "torch.zeros(x.size()[1], x.size(0)) + x.t()"),
    expr("shape_list_values", "torch.ones(x.shape) * float(len(x.shape))"),
    expr("method_forms", "[x.add(x, alpha=2), x.sub(1), x.mul(x), x.div(2), x.pow(2), x.eq(x),"
         " x.exp(), x.clamp(-0.1, 0.1), x.masked_fill(x > 0, 0.0), x.matmul(x.t()), x.maximum(x * 2.0),"
         " x.lerp(x * 0.0, 0.5), x.abs().log(), x.isnan()]", ret=LIST),
    expr("tensor_where_method", "x.where(x > 0, x * 10.0)"),
    case("dtype_in_variable", """
def f(x: torch.Tensor) -> torch.Tensor:
    dt = torch.float64
    return x.to(dt) * 2
""", {"x": F34}),
    expr("to_dtype_keyword", "x.to(dtype=torch.float64)"),
    expr("dtype_of_tensor", "torch.zeros(3, dtype=x.dtype) + torch.ones_like(x[0, :3], dtype=x.dtype)",
         {"x": ("i32", [3, 4], 0, 9)}),
    case("defaults_and_keywords_user_fn", """
def g(t: torch.Tensor, k: float = 2.0, shift: int = 1) -> torch.Tensor:
    return t * k + shift


def f(x: torch.Tensor) -> List[torch.Tensor]:
    return [g(x), g(x, 3.0), g(x, shift=5), g(shift=-1, t=x, k=0.5)]
""", {"x": F34}),
    case("early_return_no_else", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    if k > 2:
        return x * 2.0
    y = x + 1.0
    if k < 0:
        return y
    return y.t()
""", {"x": ("f32", [3, 3]), "k": 1}),
    case("early_return_nested", """
def sgn(v: float) -> int:
    if v > 0.0:
        if v > 0.5:
            return 2
        return 1
    elif v < 0.0:
        return -1
    return 0


def f(x: torch.Tensor) -> List[int]:
    return [sgn(float(x[0])), sgn(float(x[1])), sgn(float(x[2])), sgn(0.0), sgn(0.75)]
""", {"x": ("f32", [3])}),
    case("conditional_expression", """
def f(x: torch.Tensor, flag: bool) -> torch.Tensor:
    y = x if flag else -x
    k = 2 if x.shape[0] > 2 else 3
    return y * k
""", {"x": F34, "flag": False}),
    case("docstring_comments_continuations", '''
def f(x: torch.Tensor) -> torch.Tensor:
    """Returns a weighted sum.

    The docstring is ignored.
    """
    # a comment line
    y = (x * 2.0 +   # trailing comment inside parentheses
         x.exp())
    z = y \\
        - 1.0
    w = [x,
         y,
         z,
         ]
    pass
    return torch.stack(w, 0).sum(0)
''', {"x": F34}),
    case("jit_script_decorator", """
@torch.jit.script
def helper(t: torch.Tensor) -> torch.Tensor:
    return t.relu()


def f(x: torch.Tensor) -> torch.Tensor:
    return helper(x) * 2.0
""", {"x": F34}),
    case("optional_tensor_argument", """
def lin(x: torch.Tensor, w: torch.Tensor, b: Optional[torch.Tensor] = None) -> torch.Tensor:
    y = x @ w.t()
    if b is not None:
        y = y + b
    return y


def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    return [lin(x, w), lin(x, w, b), lin(x, w, None)]
""", {"x": ("f32", [2, 4]), "w": ("f32", [3, 4]), "b": ("f32", [3])}),
    case("math_module", """
import math


def f(x: torch.Tensor) -> torch.Tensor:
    return x * math.sqrt(2.0) + math.exp(1.0) - math.log(4.0) + math.pi
""", {"x": F34}),
    case("jit_annotate_empty_list", """
def f(x: torch.Tensor) -> torch.Tensor:
    xs = torch.jit.annotate(List[torch.Tensor], [])
    for i in range(2):
        xs.append(x * float(i + 1))
    return torch.cat(xs)
""", {"x": F34}),
    case("annotated_empty_list", """
def f(x: torch.Tensor) -> List[int]:
    sizes: List[int] = []
    for i in range(x.dim()):
        sizes.append(x.shape[i] * 2)
    return sizes
""", {"x": F34}),
    case("list_concat_slice_len", """
def f(a: torch.Tensor, b: torch.Tensor) -> Tuple[torch.Tensor, int]:
    xs = [a, b]
    ys = xs + [a * 2.0]
    zs = ys[1:]
    return torch.stack(zs) + ys[-1], len(ys)
""", {"a": ("f32", [3]), "b": ("f32", [3])}),
    case("list_element_augassign_mutates", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    xs = [x, x * 1.0]
    xs[0] += 1.0
    xs[1] *= 3.0
    return x, xs[1]
""", {"x": F34}),
    case("int_list_augassign", """
def f(x: torch.Tensor) -> torch.Tensor:
    s = [x.shape[0], x.shape[1]]
    s[0] += 1
    s[1] = s[1] * 2
    return torch.zeros(s)
""", {"x": F34}),
    case("tuple_values", """
def f(x: torch.Tensor, y: torch.Tensor) -> Tuple[Tuple[torch.Tensor, torch.Tensor], torch.Tensor]:
    t = (x, y)
    a, b = t
    return (t[1], a + b), t[0]
""", {"x": F34, "y": F34}),
    case("swap_via_tuple", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    for i in range(3):
        x, y = y, x + y
    return x - y
""", {"x": F34, "y": F34}),
    case("range_negative_step", """
def f(x: torch.Tensor) -> List[int]:
    out: List[int] = []
    for i in range(x.shape[1], 0, -2):
        out.append(i)
    for j in range(-3):
        out.append(j)
    return out
""", {"x": ("f32", [2, 7])}),
    case("range_len_and_zip3", """
def f(x: torch.Tensor) -> torch.Tensor:
    a = x.unbind(0)
    b = [x[0], x[1], x[2]]
    acc = torch.zeros(4)
    for i in range(len(a)):
        acc = acc + a[i]
    for p, q, r in zip(a, b, a):
        acc = acc + p * q - r
    return acc
""", {"x": F34}),
    case("enumerate_start", """
def f(x: torch.Tensor) -> torch.Tensor:
    acc = torch.zeros(4)
    for i, row in enumerate(x.unbind(0), 1):
        acc = acc + row * float(i)
    return acc
""", {"x": F34}),
    case("while_and_condition_continue", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, int]:
    i = 0
    n = 0
    while i < 10 and float(x.sum()) < 50.0:
        i += 1
        if i % 3 == 0:
            continue
        x = x + 1.0
        n += 1
    return x, n
""", {"x": F34}),
    case("nested_break_inner_only", """
def f(x: torch.Tensor) -> int:
    count = 0
    for i in range(4):
        for j in range(4):
            if j > i:
                break
            count += 1
    return count
""", {"x": F34}),
    case("chained_comparison", """
def f(x: torch.Tensor, a: int) -> List[bool]:
    return [0 < a < 5, 0 < a <= 2, a == x.shape[0] == 3]
""", {"x": F34, "a": 3}),
    case("scalar_from_element", """
def f(x: torch.Tensor) -> Tuple[float, int]:
    total = 0.0
    count = 0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            v = float(x[i, j])
            if v > 0.0:
                total += v
                count += 1
    return total, count
""", {"x": F34}),
    case("slice_with_variables", """
def f(x: torch.Tensor, a: int, k: int) -> List[torch.Tensor]:
    b = a + 2
    return [x[a:b], x[:, -k:], x[a:, :k], x[-a]]
""", {"x": ("f32", [5, 6]), "a": 1, "k": 2}),
    case("unary_minus_and_not", """
def f(x: torch.Tensor, flag: bool) -> List[torch.Tensor]:
    y = -x
    z = -(-y)
    if not flag:
        z = z * 2.0
    return [y, z, ~(x > 0)]
""", {"x": F34, "flag": False}),
    case("int_scalar_division_is_float", """
def f(x: torch.Tensor) -> List[float]:
    n = x.shape[1]
    return [n / 8, 7 / 2, -7 / 2]
""", {"x": F34}),
    case("float_int_mix", """
def f(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    return x * (1.0 / n) + n * 0.5 - (n - 1)
""", {"x": F34}),
    case("shadowed_input_rebinding", """
def f(x: torch.Tensor, n: int) -> Tuple[torch.Tensor, int]:
    x = x.t()
    x = x.contiguous()
    n = n * 2
    n += x.shape[0]
    return x, n
""", {"x": F34, "n": 5}),
    case("bool_of_tensor_and_compare_scalar_tensor", """
def f(x: torch.Tensor) -> List[bool]:
    return [bool(x.sum() > 0), bool((x > 2.0).any()), float(x.max()) >= float(x.min())]
""", {"x": F34}),
]

CASES += [
    case("augassign_pow_mod_on_tensors", """
def f(x: torch.Tensor, a: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x.clone()
    y **= 2
    y[0] **= 0.5
    b = a.clone()
    b %= 3
    return y, b
""", {"x": ("f32", [3, 4]), "a": ("i64", [5], -9, 9)}),
    case("list_and_int_list_parameters", """
def join(xs: List[torch.Tensor], dims: List[int]) -> torch.Tensor:
    return torch.cat(xs, dims[0]).sum(dims[1])


def parts(x: torch.Tensor) -> Tuple[torch.Tensor, List[torch.Tensor]]:
    return x.sum(), [x[0], x[1] * 2.0]


def f(x: torch.Tensor) -> List[torch.Tensor]:
    s, ps = parts(x)
    return [join([x, x * 2.0], [0, 1]), s, ps[1]]
""", {"x": ("f32", [3, 4])}),
    case("scalar_inputs_exponent_notation", """
def f(x: torch.Tensor, tiny: float, huge: float, k: int) -> torch.Tensor:
    return x * tiny + huge * 1e-12 + k
""", {"x": ("f32", [3]), "tiny": 1e-08, "huge": -2.5e+20, "k": -3}),
    case("float_literals_forms", """
def f(x: torch.Tensor) -> torch.Tensor:
    return x * 1e3 + .5 - 2. + 1_000 * 0.001 + 0x10 + 3e-2
""", {"x": ("f32", [3])}),
    case("string_literal_forms", '''
def f(a: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    return [torch.einsum("ij,jk->ik", [a, b]), torch.einsum(\'\'\'ij,jk->ik\'\'\', [a, b]),
            torch.nn.functional.gelu(a, approximate="tanh")]
''', {"a": ("f32", [2, 3]), "b": ("f32", [3, 2])}),
]
