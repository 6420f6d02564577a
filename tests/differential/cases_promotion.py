"""Type promotion matrix: every binary op with a left operand of each dtype
against tensors of every dtype and Python int / float scalars, plus
unary ops over every dtype. One case per (op, left dtype)."""

DTYPES = ["f32", "f64", "i32", "i64", "bool"]
SCALARS = {"int": "3", "float": "0.5"}  # TorchScript takes no bool as a Scalar


def spec(dtype, positive=False):
    if dtype in ("f32", "f64"):
        return (dtype, [2, 3], 0.5, 2.0) if positive else (dtype, [2, 3])
    if dtype in ("i32", "i64"):
        return (dtype, [2, 3], 1, 5) if positive else (dtype, [2, 3], -6, 6)
    return ("bool", [2, 3])


# op -> (expression with {a} {b}, right operands must be nonzero/positive)
BINARY = {
    "add": ("{a} + {b}", False),
    "sub": ("{a} - {b}", False),
    "mul": ("{a} * {b}", False),
    "div": ("{a} / {b}", True),
    "floordiv": ("{a} // {b}", True),
    "mod": ("{a} % {b}", True),
    "pow": ("torch.pow({a}, {b})", True),
    "maximum": ("torch.maximum({a}, {b})", False),
    "eq": ("{a} == {b}", False),
    "lt": ("{a} < {b}", False),
    "logical_and": ("torch.logical_and({a}, {b})", False),
    "bitwise_or": ("{a} | {b}", False),
    "atan2": ("torch.atan2({a}, {b})", False),
    "where": ("torch.where({a} > 0, {a}, {b})", False),
}
INTEGRAL = {"i32", "i64", "bool"}


def torch_rejects(op, left, right):
    """Combinations PyTorch refuses (bool subtraction, bitwise on floats, ...)."""
    if op == "sub" and "bool" in (left, right):
        return True
    if op == "bitwise_or":
        return not (left in INTEGRAL and right in INTEGRAL | {"scalar_int"})
    if op in ("floordiv", "mod") and right == "bool":
        return True
    if op == "maximum" and right.startswith("scalar"):
        return True
    if op == "logical_and" and right.startswith("scalar"):
        return True
    if op == "atan2" and right.startswith("scalar"):
        return True
    if op == "pow" and left == "bool" and right == "bool":
        return True
    return False


def binary_case(op, left):
    expr, positive = BINARY[op]
    results, inputs = [], {"a": spec(left)}
    for right in DTYPES:
        if torch_rejects(op, left, right):
            continue
        name = "b_" + right
        inputs[name] = spec(right, positive)
        results.append(expr.format(a="a", b=name))
    for kind, literal in SCALARS.items():
        if torch_rejects(op, left, "scalar_" + kind):
            continue
        results.append(expr.format(a="a", b=literal))
    args = ", ".join("%s: torch.Tensor" % n for n in inputs)
    src = "def f(%s) -> List[torch.Tensor]:\n    return [%s]\n" % (args, ",\n            ".join(results))
    return dict(name="%s_%s" % (op, left), src=src, fn="f", inputs=inputs)


UNARY = ["-{a}", "torch.abs({a})", "torch.exp({a})", "torch.sqrt(torch.abs({a}))", "torch.sigmoid({a})",
         "torch.floor({a})", "torch.sign({a})", "torch.logical_not({a})", "torch.relu({a})",
         "torch.square({a})", "torch.clamp({a}, 0, 1)", "torch.reciprocal({a})", "{a}.sum()",
         "{a}.sum(0)", "{a}.prod(1)", "{a}.cumsum(1)", "{a}.amax(1)", "{a}.max()", "{a}.argmax()",
         "{a}.to(torch.float64)", "{a}.long()", "{a}.float()", "torch.where({a} > 0, {a}, 0)"]


def unary_rejects(expr, dtype):
    if dtype == "bool":
        return expr.startswith("-") or "abs" in expr or "relu" in expr or "square" in expr or "argmax" in expr \
            or "floor" in expr or "sign" in expr or "clamp" in expr
    if dtype in ("i32", "i64"):
        return "floor" in expr
    return False


def unary_case(dtype):
    results = [u.format(a="a") for u in UNARY if not unary_rejects(u, dtype)]
    src = "def f(a: torch.Tensor) -> List[torch.Tensor]:\n    return [%s]\n" % ",\n            ".join(results)
    return dict(name="unary_" + dtype, src=src, fn="f", inputs={"a": spec(dtype)})


CASES = [binary_case(op, left) for op in BINARY for left in DTYPES] + \
        [unary_case(d) for d in DTYPES]
