"""Builders shared by the case files: `case` makes one case dict,
`expr_builder(default)` makes an `expr(name, body, ...)` for one-expression
programs `def f(x) -> ret: return body` whose input defaults to `default`,
and `two` a one-expression program of two tensors `a`, `b`."""


def case(name, src, inputs, fn="f", **extra):
    return dict(name=name, src=src, fn=fn, inputs=inputs, **extra)


def expr_builder(default_x=None):
    def expr(name, body, inputs=None, ret="torch.Tensor", **extra):
        src = "def f(x: torch.Tensor) -> %s:\n    return %s\n" % (ret, body)
        if inputs is None:
            assert default_x is not None, "case %s needs inputs" % name
            inputs = {"x": default_x}
        return case(name, src, inputs, **extra)

    return expr


def two(name, body, a, b, ret="torch.Tensor"):
    src = "def f(a: torch.Tensor, b: torch.Tensor) -> %s:\n    return %s\n" % (ret, body)
    return case(name, src, {"a": a, "b": b})
