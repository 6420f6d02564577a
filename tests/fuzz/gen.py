"""Random programs in the source language (the TorchScript subset).

`generate(seed)` writes one short function over small static shapes: element-
wise and broadcasting ops, reductions, views, in-place writes through views,
matmul, cat/stack, loops, branches on scalars and on tensor values, lists.
The generator tracks every name's dtype and shape so that most programs are
valid; PyTorch has the last word (the runner drops the ones eager PyTorch or
torch.jit.script reject).
"""
import random

F32, F64, I32, I64, BOOL = "f32", "f64", "i32", "i64", "bool"
FLOATS, INTS = (F32, F64), (I32, I64)
ORDER = [BOOL, I32, I64, F32, F64]  # type promotion among tensors of one rank class
TORCH_DTYPES = {F32: "torch.float32", F64: "torch.float64", I32: "torch.int32",
                I64: "torch.int64", BOOL: "torch.bool"}
MAX_RANK = 4
PRELUDE = "import torch\nfrom typing import List, Tuple\n\n\n"


class T:
    """A tensor's dtype and static shape. `shared` marks tensors whose
    elements may share memory (expand results and their views): PyTorch
    refuses to write into them. `permuted` marks transposed views, `loose`
    tensors computed from them: PyTorch lays such results out in their
    operands' dim order, and whether a reshape of one is a view depends on
    that layout (stitch assumes new tensors are contiguous)."""

    def __init__(self, dtype, shape, shared=False, permuted=False, loose=False):
        self.dtype, self.shape, self.shared = dtype, list(shape), shared
        self.permuted, self.loose = permuted, loose

    @property
    def rank(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def same(self, other):
        return self.dtype == other.dtype and self.shape == other.shape

    def with_shape(self, shape, dtype=None):
        """A new tensor's type, computed from this one (never shared)."""
        return T(dtype or self.dtype, shape, loose=self.permuted or self.loose)

    def viewed(self, shape):
        """A view's type: shared, permuted, loose when its base is."""
        return T(self.dtype, shape, self.shared, self.permuted, self.loose)

    def transposed(self, shape):
        out = self.viewed(shape)
        out.permuted = True
        return out


class E:
    """An expression: its text, its type, whether it needs no parentheses as
    an operand or a method receiver, and for a name or a view of one the
    buffers it may alias (`roots`; None for a new tensor)."""

    def __init__(self, text, t, atom=True, roots=None):
        self.text, self.t, self.atom, self.roots = text, t, atom, roots

    def p(self):
        return self.text if self.atom else "(%s)" % self.text


class Var:
    """A name in scope: kind tensor / list / int / float / bool. Tensors keep
    `base`, the name they view (if any), and `roots`, the buffers they (or,
    for lists, their elements) may alias; ints keep the largest value they
    can take (`hi`)."""

    def __init__(self, name, kind, t=None, hi=None, length=0, base=None, value=None,
                 frozen=False, roots=frozenset()):
        self.name, self.kind, self.t, self.hi, self.roots = name, kind, t, hi, roots
        self.length, self.base, self.value, self.frozen = length, base, value, frozen
        self.trips = 1  # lists: how often the defining block runs per call


def broadcast(a, b):
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y) if 1 in (x, y) else x)
    return out


def fits(small, big):
    """`small` broadcasts to `big` without growing it."""
    return broadcast(small, big) == list(big)


def promote(a, b):
    return max(a, b, key=ORDER.index)


def with_number(dtype, number):
    """The result dtype of a tensor of `dtype` with a Python number of dtype
    `number` (F32 for floats, I64 for ints): a number of a higher kind gives
    that kind's default dtype."""
    if number in FLOATS and dtype not in FLOATS:
        return F32
    if number in INTS and dtype == BOOL:
        return I64
    return dtype


def divided(dtype):
    """True division's result dtype."""
    return dtype if dtype in FLOATS else F32


def shape_text(shape):
    return "[%s]" % ", ".join(str(d) for d in shape)


def float_lit(rng):
    return rng.choice(["0.5", "2.0", "-1.0", "1.5", "0.25", "3.0", "-0.5"])


def scalar_lit(dtype, rng):
    if dtype in FLOATS:
        return float_lit(rng)
    if dtype in INTS:
        return str(rng.choice([0, 1, 2, 3, -1]))
    return rng.choice(["0", "1"])  # TorchScript takes no bool literal where a number goes


def computed_from(e, source):
    """e, typed as a new tensor computed from one of type `source` when it
    is not a name or a view (whose type it may have been built with)."""
    if e.roots is None:
        e.t = source.with_shape(e.t.shape, e.t.dtype)
    return e


class Program:
    def __init__(self, src, fn, inputs, seed):
        self.src, self.fn, self.inputs, self.seed = src, fn, inputs, seed


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.scopes = [{}]
        self.lines = []
        self.indent = 1
        self.count = 0
        self.budget = rng.randint(5, 18)
        self.last = None          # the tensor defined or written last
        self.written = []         # bases written in place, worth returning
        self.trips = 1            # how often the statement emitted now runs (lower bound)
        self.max_numel = 256
        self.loops = []           # kinds of the enclosing loops, innermost last
        self.helper_sig = None    # (parameter types, result type) of g, when there is one
        self.product = None       # the large product's sizes (stmt_product), when there is one
        self.product_out = None   # the name of its result, returned

    # ---- names and scopes -------------------------------------------------

    def fresh(self, prefix):
        self.count += 1
        return "%s%d" % (prefix, self.count)

    def visible(self):
        names = {}
        for scope in self.scopes:
            names.update(scope)
        return names

    def define(self, var):
        for scope in self.scopes:  # rebinding keeps the name's outer scope
            if var.name in scope:
                scope[var.name] = var
                return
        var.trips = self.trips
        self.scopes[-1][var.name] = var

    def tensors(self, pred=lambda t: True):
        return [v for v in self.visible().values() if v.kind == "tensor" and pred(v.t)]

    def scalars(self, kind):
        return [v for v in self.visible().values() if v.kind == kind]

    def lists(self):
        return [v for v in self.visible().values() if v.kind == "list"]

    def emit(self, line):
        self.lines.append("    " * self.indent + line)
        self.budget -= 1

    def pick(self, items):
        return self.rng.choice(items) if items else None

    def weighted(self, table):
        """table: [(weight, fn)]; returns the first non-None result, trying
        the choices in weighted random order."""
        items = list(table)
        while items:
            total = sum(w for w, _ in items)
            r = self.rng.uniform(0, total)
            for idx, (w, fn) in enumerate(items):
                r -= w
                if r <= 0:
                    break
            result = items.pop(idx)[1]()
            if result is not None:
                return result
        return None

    # ---- leaves and partners ----------------------------------------------

    def leaf(self, pred=lambda t: True, avoid=frozenset()):
        """A tensor in scope, none that may alias a buffer in `avoid`."""
        v = self.pick([u for u in self.tensors(pred) if not u.roots & avoid])
        return E(v.name, v.t, roots=v.roots) if v else None

    def scalar_operand(self, dtype):
        """A Python-number operand for a tensor of `dtype`: a literal or a
        scalar in scope."""
        r = self.rng.random()
        if dtype in FLOATS and r < 0.25 and self.scalars("float"):
            return E(self.pick(self.scalars("float")).name, None), F32
        if r < 0.4 and self.scalars("int"):
            return E(self.pick(self.scalars("int")).name, None), I64
        if dtype in FLOATS and r < 0.5:
            src = self.leaf(lambda t: t.dtype in FLOATS and t.numel() > 0)
            if src:
                fn = self.rng.choice(["sum", "mean", "amax"])
                return E("float(%s.%s())" % (src.p(), fn), None), F32
        if dtype in INTS and r < 0.7:
            return E(scalar_lit(I64, self.rng), None), I64
        return E(float_lit(self.rng), None), F32

    def partner(self, t, fit=False):
        """A second operand for an elementwise op with `t`: a tensor whose
        shape broadcasts with t (into t's shape when `fit`), or a number."""
        ok = (lambda u: fits(u.shape, t.shape)) if fit else (
            lambda u: (broadcast(u.shape, t.shape) is not None and
                       len(broadcast(u.shape, t.shape)) <= MAX_RANK and
                       T(F32, broadcast(u.shape, t.shape)).numel() <= self.max_numel))
        r = self.rng.random()
        if r < 0.6:
            same = self.tensors(lambda u: u.shape == t.shape and u.dtype != BOOL)
            other = self.tensors(lambda u: ok(u) and u.dtype != BOOL)
            v = self.pick(same if same and self.rng.random() < 0.5 else other)
            if v:
                return E(v.name, v.t, roots=v.roots)
        if r < 0.75 and t.rank >= 1:
            src = self.leaf(lambda u: u.shape == t.shape and u.dtype in FLOATS)
            if src:
                d = self.rng.randrange(t.rank)
                fn = self.rng.choice(["sum", "mean", "amax", "amin"])
                return E("%s.%s(%d, keepdim=True)" % (src.p(), fn, d), src.t.with_shape(
                    [1 if i == d else s for i, s in enumerate(t.shape)]))
        e, dtype = self.scalar_operand(t.dtype)
        e.t = None
        e.scalar_dtype = dtype
        return e

    # ---- expressions --------------------------------------------------------

    def expr(self, depth):
        if depth <= 0:
            return self.leaf()
        sub = lambda: self.expr(depth - 1)
        return self.weighted([
            (2, lambda: self.leaf()),
            (4, lambda: self.unary(sub())),
            (6, lambda: self.binary(sub())),
            (2, lambda: self.compare(sub())),
            (2, lambda: self.where(sub())),
            (1, lambda: self.clamp(sub())),
            (1, lambda: self.masked_fill(sub())),
            (4, lambda: self.reduction(sub())),
            (4, lambda: self.view(sub())),
            (2, lambda: self.matmul(self.leaf())),
            (2, lambda: self.catstack(self.leaf())),
            (1, lambda: self.cast(sub())),
            (1, lambda: self.creation()),
            (1, lambda: self.list_read()),
            (2, lambda: self.extra(sub())),
            (1, lambda: self.indexing(self.leaf())),
            (1, lambda: self.data_dependent(self.leaf())),
            (2, lambda: self.selection(sub())),
        ]) or self.leaf()

    def unary(self, e):
        if e is None or e.t is None:
            return None
        a, t = e.p(), e.t
        if t.dtype in FLOATS:
            form = self.rng.choice([
                "torch.exp(%s)", "torch.tanh(%s)", "%s.tanh()", "torch.sigmoid(%s)",
                "torch.relu(%s)", "%s.relu()", "%s.abs()", "-%s", "torch.sqrt(%s.abs())",
                "torch.log(%s.abs() + 1.0)", "torch.sin(%s)", "torch.cos(%s)",
                "torch.nn.functional.gelu(%s)", "torch.nn.functional.silu(%s)",
                "torch.erf(%s)", "%s.sign()", "torch.rsqrt(%s.abs() + 1.0)", "%s * %s",
                "torch.neg(%s)"])
        elif t.dtype in INTS:
            form = self.rng.choice(["%s.abs()", "-%s", "%s * %s", "%s.clamp(0, 5)"])
        else:
            form = self.rng.choice(["torch.logical_not(%s)", "%s.logical_not()"])
        text = form.replace("%s", a)
        return E(text, t.with_shape(t.shape), atom=not form.startswith("-") and "* " not in form)

    def binary(self, e):
        if e is None or e.t is None:
            return None
        a = e if e.t.dtype != BOOL else E(e.p() + ".float()", e.t.with_shape(e.t.shape, F32))
        b = self.partner(a.t)
        if b.t is None:
            out = a.t.with_shape(a.t.shape, with_number(a.t.dtype, b.scalar_dtype))
            op = self.rng.choice(["+", "-", "*", "/"] if out.dtype in FLOATS else ["+", "-", "*"])
            if op == "/" and b.text.startswith("-") or op == "/" and b.text in ("0", "0.0"):
                op = "*"
            if op == "/" and not b.text[0].isdigit():
                op = "*"  # a scalar in scope or from a tensor may be zero
            if self.rng.random() < 0.2:
                return E("%s %s %s" % (b.text, op if op != "/" else "*", a.p()), out, atom=False)
            return E("%s %s %s" % (a.p(), op, b.text), out, atom=False)
        shape = broadcast(a.t.shape, b.t.shape)
        dtype = promote(a.t.dtype, b.t.dtype)
        loose = any(u.permuted or u.loose for u in (a.t, b.t))
        op = self.rng.choice(["+", "-", "*", "/", "max", "min"])
        if op == "/":
            return E("%s / (%s.abs() + 1.0)" % (a.p(), b.p()),
                     T(divided(dtype), shape, loose=loose), atom=False)
        if op in ("max", "min"):
            fn = "torch.maximum" if op == "max" else "torch.minimum"
            return E("%s(%s, %s)" % (fn, a.text, b.text), T(dtype, shape, loose=loose))
        return E("%s %s %s" % (a.p(), op, b.p()), T(dtype, shape, loose=loose), atom=False)

    def extra(self, e):
        """Less common elementwise ops and copies."""
        if e is None or e.t is None:
            return None
        t, a = e.t, e.p()
        forms = ["%s.clone()"] + ([] if t.loose and e.roots else ["%s.contiguous()"])
        if t.dtype in FLOATS:
            # Scaling by powers of two is exact, so floor/ceil see the same values.
            forms += ["torch.pow(%s.abs(), 1.5)", "%s ** 2", "torch.floor(%s * 4.0)",
                      "torch.ceil(%s * 2.0)", "torch.reciprocal(%s.abs() + 1.0)",
                      "%s.pow(2)", "torch.nn.functional.relu(%s)"]
        elif t.dtype in INTS:
            forms += ["%s ** 2", "torch.maximum(%s, torch.zeros_like(%s))"]
        form = self.rng.choice(forms)
        return E(form.replace("%s", a), t.with_shape(t.shape), atom="**" not in form)

    def indexing(self, e):
        """index_select, gather, einsum, linear."""
        if e is None or e.t is None or e.t.rank == 0:
            return None
        t = e.t
        d = self.rng.randrange(t.rank)
        n = t.shape[d]
        r = self.rng.random()
        ints = self.tensors(lambda u: u.dtype in INTS and u.numel() > 0)
        if r < 0.3:
            idx = self.pick([u for u in ints if u.t.rank == 1])
            text = "%s.clamp(0, %d)" % (idx.name, n - 1) if idx else "torch.arange(%d)" % n
            size = idx.t.shape[0] if idx else n
            if T(F32, t.shape[:d] + [size] + t.shape[d + 1:]).numel() > self.max_numel:
                return None
            return E("torch.index_select(%s, %d, %s)" % (e.text, d, text),
                     t.with_shape(t.shape[:d] + [size] + t.shape[d + 1:]))
        if r < 0.55:
            idx = self.pick([u for u in ints if u.t.dtype == I64 and u.t.rank == t.rank and all(
                u.t.shape[i] <= t.shape[i] for i in range(t.rank) if i != d)])
            if idx is None:
                return None
            return E("torch.gather(%s, %d, %s.clamp(0, %d))" % (e.text, d, idx.name, n - 1),
                     t.with_shape(idx.t.shape))
        if t.dtype not in FLOATS or t.rank != 2:
            return None
        if r < 0.8:
            # (Not "ij->ji": PyTorch returns a view for a bare permutation.)
            form = self.rng.choice(["ij,kj->ik", "ij->i", "ij,ij->i"])
            out = {"ij,kj->ik": [t.shape[0], t.shape[0]], "ij->i": [t.shape[0]],
                   "ij,ij->i": [t.shape[0]]}[form]
            args = e.text if form == "ij->i" else "%s, %s" % (e.text, e.text)
            return E('torch.einsum("%s", %s)' % (form, args), t.with_shape(out))
        w = self.leaf(lambda u: u.dtype == t.dtype and u.rank == 2 and u.shape[1] == t.shape[1])
        w_text, out = (w.text, w.t.shape[0]) if w else (e.text, t.shape[0])
        return E("torch.nn.functional.linear(%s, %s)" % (e.text, w_text),
                 t.with_shape([t.shape[0], out]))

    def data_dependent(self, e):
        """A slice whose length comes from the data, reduced at once so the
        result's shape is static."""
        if e is None or e.t is None or e.t.rank == 0 or e.t.dtype == BOOL:
            return None
        src = self.leaf(lambda u: u.dtype != BOOL and u.numel() > 0)
        n = "int(%s.argmax()) %% %d + 1" % (src.p(), e.t.shape[0]) if self.rng.random() < 0.5 \
            else "int(%s.argmin())" % src.p()
        acc = I64 if e.t.dtype in INTS else e.t.dtype
        return E("%s[:%s].sum(0)" % (e.p(), n), e.t.with_shape(e.t.shape[1:], acc))

    def selection(self, e):
        """sort / argsort / topk, and reads through a mask or an index
        tensor (mask reads reduced at once: their length is data-dependent)."""
        if e is None or e.t is None or e.t.rank == 0:
            return None
        t, a = e.t, e.p()
        d = self.rng.randrange(t.rank)
        n = t.shape[d]
        r = self.rng.random()
        if r < 0.2:
            desc = ", descending=True" if self.rng.random() < 0.4 else ""
            if t.dtype != BOOL and self.rng.random() < 0.5:
                return E("torch.sort(%s, %d%s)[0]" % (e.text, d, desc), t.with_shape(t.shape))
            return E("%s.argsort(dim=%d%s)" % (a, d, desc), t.with_shape(t.shape, I64))
        if r < 0.35 and t.dtype != BOOL and n > 0:
            k = self.rng.randint(1, n)
            which = self.rng.choice([0, 1])
            out = t.shape[:d] + [k] + t.shape[d + 1:]
            largest = ", largest=False" if self.rng.random() < 0.3 else ""
            return E("torch.topk(%s, %d, dim=%d%s)[%d]" % (e.text, k, d, largest, which),
                     t.with_shape(out, I64 if which else t.dtype))
        if r < 0.6:
            mask = self.exact_mask(t)
            if mask is None:
                return None
            acc = I64 if t.dtype in INTS + (BOOL,) else t.dtype
            form = self.rng.choice(["%s[%s].sum()", "torch.masked_select(%s, %s).sum()"])
            text = form % (a, mask.text) if form.startswith("%s[") else form % (e.text, mask.text)
            if self.rng.random() < 0.3:
                text = "torch.nonzero(%s).sum()" % mask.text
                acc = I64
            return E(text, T(acc, []))
        idx = self.pick(self.tensors(lambda u: u.dtype == I64 and u.rank == 1 and u.numel() > 0))
        if idx is None or n == 0:
            return None
        out = t.shape[:d] + [idx.t.shape[0]] + t.shape[d + 1:]
        if T(F32, out).numel() > self.max_numel:
            return None
        prefix = ":, " * d
        return E("%s[%s%s.clamp(0, %d)]" % (a, prefix, idx.name, n - 1), t.with_shape(out))

    def exact_mask(self, t):
        """A bool tensor of exactly shape t (a mask index covers the dims)."""
        m = self.leaf(lambda u: u.dtype == BOOL and u.shape == t.shape)
        if m and self.rng.random() < 0.5:
            return m
        src = self.leaf(lambda u: u.dtype not in (BOOL,) and u.shape == t.shape)
        if src is None:
            return None
        op = self.rng.choice([">", "<"]) if src.t.dtype in FLOATS else self.rng.choice([">", "=="])
        lit = float_lit(self.rng) if src.t.dtype in FLOATS else str(self.rng.randrange(5))
        return E("%s %s %s" % (src.p(), op, lit), src.t.with_shape(src.t.shape, BOOL), atom=False)

    def compare(self, e):
        if e is None or e.t is None:
            return None
        if e.t.dtype == BOOL:
            other = self.leaf(lambda u: u.dtype == BOOL and
                              broadcast(u.shape, e.t.shape) is not None)
            if other is None:
                return self.unary(e)
            fn = self.rng.choice(["torch.logical_and", "torch.logical_or", "torch.logical_xor"])
            return E("%s(%s, %s)" % (fn, e.text, other.text),
                     e.t.with_shape(broadcast(e.t.shape, other.t.shape), BOOL))
        b = self.partner(e.t)
        ops = [">", "<", ">=", "<="] if e.t.dtype in FLOATS else [">", "<", "==", "!="]
        op = self.rng.choice(ops)
        shape = e.t.shape if b.t is None else broadcast(e.t.shape, b.t.shape)
        return E("%s %s %s" % (e.p(), op, b.p() if b.t is not None else b.text),
                 e.t.with_shape(shape, BOOL), atom=False)

    def mask_for(self, t):
        """A bool tensor that broadcasts into shape t."""
        m = self.leaf(lambda u: u.dtype == BOOL and fits(u.shape, t.shape))
        if m and self.rng.random() < 0.5:
            return m
        src = self.leaf(lambda u: u.dtype != BOOL and fits(u.shape, t.shape))
        if src is None:
            return None
        op = self.rng.choice([">", "<"]) if src.t.dtype in FLOATS else self.rng.choice([">", "=="])
        lit = float_lit(self.rng) if src.t.dtype in FLOATS else str(self.rng.randrange(5))
        return E("%s %s %s" % (src.p(), op, lit), src.t.with_shape(src.t.shape, BOOL), atom=False)

    def where(self, e):
        if e is None or e.t is None or e.t.dtype == BOOL:
            return None
        cond = self.mask_for(e.t)
        if cond is None:
            return None
        b = self.partner(e.t)
        if b.t is None:
            other = b.text if e.t.dtype in FLOATS or b.scalar_dtype in INTS else "0"
            if not other.lstrip("-")[0].isdigit():
                other = scalar_lit(e.t.dtype, self.rng)
            return E("torch.where(%s, %s, %s)" % (cond.text, e.text, other),
                     e.t.with_shape(e.t.shape))
        shape = broadcast(e.t.shape, b.t.shape)
        return E("torch.where(%s, %s, %s)" % (cond.text, e.text, b.text),
                 e.t.with_shape(shape, promote(e.t.dtype, b.t.dtype)))

    def clamp(self, e):
        if e is None or e.t is None or e.t.dtype == BOOL:
            return None
        if e.t.dtype in INTS:
            lo, hi = sorted(self.rng.sample(range(-1, 8), 2))
        else:
            lo, hi = sorted(self.rng.sample([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0], 2))
        form = self.rng.choice(["%s.clamp(%s, %s)" % (e.p(), lo, hi),
                                "torch.clamp(%s, min=%s)" % (e.text, lo),
                                "%s.clamp(max=%s)" % (e.p(), hi)])
        return E(form, e.t.with_shape(e.t.shape))

    def masked_fill(self, e):
        if e is None or e.t is None:
            return None
        mask = self.mask_for(e.t)
        if mask is None:
            return None
        return E("%s.masked_fill(%s, %s)" % (e.p(), mask.text, scalar_lit(e.t.dtype, self.rng)),
                 e.t.with_shape(e.t.shape))

    def reduction(self, e):
        if e is None or e.t is None:
            return None
        t, a = e.t, e.p()
        if t.dtype == BOOL:
            a, t = a + ".long()", t.with_shape(t.shape, I64)
        acc = I64 if t.dtype in INTS else t.dtype  # sum, prod, cumsum of ints: int64
        if t.rank == 0 or self.rng.random() < 0.15:
            fns = ["sum", "max", "min", "argmax", "argmin"] + \
                (["mean", "prod", "std"] if t.dtype in FLOATS else [])
            fn = self.rng.choice(fns)
            dtype = I64 if fn.startswith("arg") else acc if fn in ("sum", "prod") else t.dtype
            return E("%s.%s()" % (a, fn), T(dtype, []))
        d = self.rng.randrange(t.rank)
        dtext = str(d - t.rank if self.rng.random() < 0.3 else d)
        keep = self.rng.random() < 0.4
        kept = [1 if i == d else s for i, s in enumerate(t.shape)]
        dropped = [s for i, s in enumerate(t.shape) if i != d]
        out = kept if keep else dropped
        kw = ", keepdim=True" if keep else ""
        same = ["softmax", "log_softmax", "cumsum"] if t.dtype in FLOATS else ["cumsum"]
        fns = ["sum", "amax", "amin", "argmax", "argmin", "prod", "min_index"] + same
        if t.dtype in FLOATS:
            fns += ["mean", "var", "std", "logsumexp", "sum_dims", "max_dim"]
        fn = self.rng.choice(fns)
        if fn in ("softmax", "log_softmax"):
            form = self.rng.choice(["torch.%s(%s, %s)" % (fn, e.text, dtext),
                                    "%s.%s(%s)" % (a, fn, dtext),
                                    "torch.nn.functional.%s(%s, dim=%s)" % (fn, e.text, dtext)])
            return E(form, t.with_shape(t.shape))
        if fn == "cumsum":
            return E("torch.cumsum(%s, %s)" % (a, dtext), t.with_shape(t.shape, acc))
        if fn in ("argmax", "argmin"):
            return E("%s.%s(%s%s)" % (a, fn, dtext, kw), t.with_shape(out, I64))
        if fn == "min_index":
            return E("torch.min(%s, %s%s)[1]" % (a, dtext, kw), t.with_shape(out, I64))
        if fn == "sum_dims" and t.rank >= 2:
            d2 = self.rng.choice([i for i in range(t.rank) if i != d])
            dims = sorted([d, d2])
            shape = [s for i, s in enumerate(t.shape) if i not in dims]
            return E("%s.sum([%d, %d])" % (a, dims[0], dims[1]), t.with_shape(shape, acc))
        if fn == "max_dim":
            return E("torch.max(%s, %s%s)[0]" % (e.text, dtext, kw), t.with_shape(out))
        if fn in ("sum_dims", "max_dim"):
            fn = "sum"
        if fn == "prod" and t.dtype in INTS:
            a = "%s.clamp(-2, 2)" % a
        dtype = acc if fn in ("sum", "prod") else t.dtype
        if self.rng.random() < 0.3 and fn in ("sum", "mean", "amax", "var"):
            return E("torch.%s(%s, %s%s)" % (fn, a if a != e.p() else e.text, dtext, kw),
                     t.with_shape(out, dtype))
        return E("%s.%s(%s%s)" % (a, fn, dtext, kw), t.with_shape(out, dtype))

    # ---- views ----------------------------------------------------------------

    def index(self, shape, loop_ok=True):
        """A subscript of a tensor of `shape`: (text inside the brackets,
        result shape). Loop variables in scope index dims they fit."""
        rank = len(shape)
        n = self.rng.randint(1, rank)
        use_ellipsis = n < rank and self.rng.random() < 0.3
        dims = list(range(rank - n, rank)) if use_ellipsis else list(range(n))
        parts, out = [], []
        for d in range(rank):
            if d not in dims:  # left to the ellipsis or after the last index
                out.append(shape[d])
                continue
            size = shape[d]
            r = self.rng.random()
            loops = [v for v in self.scalars("int") if v.hi is not None and v.hi < size]
            if loop_ok and loops and r < 0.3:
                parts.append(self.pick(loops).name)
            elif r < 0.45:
                i = self.rng.randrange(size)
                parts.append(str(i - size if self.rng.random() < 0.3 else i))
            elif r < 0.6 and n > 1:
                parts.append(":")
                out.append(size)
            else:
                start = self.rng.randrange(size)
                stop = self.rng.randint(start + 1, size)
                step = self.rng.choice([1, 1, 2]) if size > 2 else 1
                text = ("%d" % start if start else "") + ":" + ("%d" % stop if stop < size else "")
                if stop < size and self.rng.random() < 0.3:
                    text = ("%d" % start if start else "") + ":%d" % (stop - size)
                if step > 1:
                    text += ":%d" % step
                parts.append(text)
                out.append(len(range(start, stop, step)))
        if use_ellipsis:
            parts.insert(0, "...")
        return ", ".join(parts), out

    def view(self, e):
        """A view of e: it aliases what e aliases."""
        out = self.view_of(e)
        if out is not None:
            out.roots = e.roots
        return out

    def view_of(self, e):
        if e is None or e.t is None:
            return None
        t, a = e.t, e.p()
        r = self.rng.random()
        if t.rank == 0:
            return E("%s.unsqueeze(0)" % a, t.viewed([1])) if r < 0.5 else \
                E("%s.view(1, 1)" % a, t.viewed([1, 1]))
        if r < 0.3:
            text, shape = self.index(t.shape)
            return E("%s[%s]" % (a, text), t.viewed(shape))
        if r < 0.4 and t.rank >= 2:
            d0, d1 = self.rng.sample(range(t.rank), 2)
            shape = list(t.shape)
            shape[d0], shape[d1] = shape[d1], shape[d0]
            if t.rank == 2 and self.rng.random() < 0.4:
                return E("%s.t()" % a, t.transposed(shape))
            return E("%s.transpose(%d, %d)" % (a, d0, d1), t.transposed(shape))
        if r < 0.47 and t.rank >= 2:
            perm = list(range(t.rank))
            self.rng.shuffle(perm)
            return E("%s.permute(%s)" % (a, ", ".join(map(str, perm))),
                     t.transposed([t.shape[p] for p in perm]))
        # Reshaping a named loose tensor: a view or a copy by a layout
        # stitch does not model.
        reshapable = not (t.loose and e.roots)
        if r < 0.6 and reshapable:
            shape = self.reshape_target(t.shape)
            parts = [str(s) for s in shape]
            if parts and self.rng.random() < 0.3:
                parts[self.rng.randrange(len(parts))] = "-1"
            fn = self.rng.choice(["reshape", "reshape", "view"])
            return E("%s.%s(%s)" % (a, fn, ", ".join(parts) or "[]"), t.viewed(shape))
        if r < 0.68:
            ones = [i for i, s in enumerate(t.shape) if s == 1]
            if ones:
                shape = [self.rng.choice([2, 3]) if s == 1 else s for s in t.shape]
                return E("%s.expand(%s)" % (a, ", ".join(map(str, shape))),
                         T(t.dtype, shape, True, t.permuted, t.loose))
            if t.rank < MAX_RANK and t.numel() * 2 <= self.max_numel:
                return E("%s.unsqueeze(0).expand(2%s)" % (a, ", -1" * t.rank),
                         T(t.dtype, [2] + t.shape, True, t.permuted, t.loose))
            return None
        if r < 0.76:
            if t.rank >= MAX_RANK:
                return None
            d = self.rng.randint(0, t.rank)
            return E("%s.unsqueeze(%d)" % (a, d), t.viewed(t.shape[:d] + [1] + t.shape[d:]))
        if r < 0.8:
            ones = [i for i, s in enumerate(t.shape) if s == 1]
            if not ones:
                return None
            d = self.pick(ones)
            if self.rng.random() < 0.5:
                return E("%s.squeeze()" % a, t.viewed([s for s in t.shape if s != 1]))
            return E("%s.squeeze(%d)" % (a, d), t.viewed(t.shape[:d] + t.shape[d + 1:]))
        if r < 0.86 and reshapable:
            if t.rank >= 2 and self.rng.random() < 0.5:
                s = self.rng.randrange(t.rank - 1)
                shape = t.shape[:s] + [t.shape[s] * t.shape[s + 1]] + t.shape[s + 2:]
                return E("%s.flatten(%d, %d)" % (a, s, s + 1), t.viewed(shape))
            return E("%s.flatten()" % a, t.viewed([t.numel()]))
        d = self.rng.randrange(t.rank)
        size = t.shape[d]
        kind = self.rng.choice(["chunk", "unbind", "narrow", "split", "select"])
        if kind == "chunk":
            c = self.rng.randint(1, 3)
            step = -(-size // c)
            pieces = [min(step, size - s) for s in range(0, size, step)]
            j = self.rng.randrange(len(pieces))
            return E("%s.chunk(%d, %d)[%d]" % (a, c, d, j), t.viewed(
                t.shape[:d] + [pieces[j]] + t.shape[d + 1:]))
        if kind == "split" and size >= 2:
            step = self.rng.randint(1, size - 1)
            pieces = [min(step, size - s) for s in range(0, size, step)]
            j = self.rng.randrange(len(pieces))
            return E("%s.split(%d, %d)[%d]" % (a, step, d, j), t.viewed(
                t.shape[:d] + [pieces[j]] + t.shape[d + 1:]))
        if kind == "narrow":
            start = self.rng.randrange(size)
            length = self.rng.randint(1, size - start)
            return E("%s.narrow(%d, %d, %d)" % (a, d, start, length), t.viewed(
                t.shape[:d] + [length] + t.shape[d + 1:]))
        j = self.rng.randrange(size)
        form = "%s.unbind(%d)[%d]" if kind == "unbind" else "%s.select(%d, %d)"
        return E(form % (a, d, j), t.viewed(t.shape[:d] + t.shape[d + 1:]))

    def reshape_target(self, shape):
        n = T(F32, shape).numel()
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        r = self.rng.random()
        if r < 0.3:
            return [n]
        a = self.rng.choice(divisors)
        if r < 0.7 or n // a == 1:
            return [a, n // a]
        b = self.rng.choice([d for d in divisors if (n // a) % d == 0])
        return [a, b, n // a // b]

    # ---- contractions, joins, casts, creation -------------------------------

    def matmul(self, e):
        if e is None or e.t is None or e.t.dtype not in FLOATS or e.t.rank not in (1, 2, 3):
            return None
        t, a = e.t, e.p()
        k = t.shape[-1]
        if t.rank == 1:
            m = self.leaf(lambda u: u.dtype == t.dtype and u.rank == 2 and u.shape[1] == k)
            if m and self.rng.random() < 0.6:
                return E("%s @ %s" % (m.p(), a), T(t.dtype, [m.t.shape[0]]), atom=False)
            return E("torch.matmul(%s, %s)" % (e.text, e.text), T(t.dtype, []))
        w = self.leaf(lambda u: u.dtype == t.dtype and u.rank == 2 and u.shape[0] == k)
        if t.rank == 2:
            if w and self.rng.random() < 0.6:
                fn = self.rng.choice(["%s @ %s", "torch.mm(%s, %s)", "torch.matmul(%s, %s)"])
                return E(fn % (a, w.p()), T(t.dtype, [t.shape[0], w.t.shape[1]]),
                         atom=not fn.startswith("%"))
            return E("%s @ %s.t()" % (a, a), T(t.dtype, [t.shape[0], t.shape[0]]), atom=False)
        b = self.leaf(lambda u: u.dtype == t.dtype and u.rank == 3 and
                      u.shape[:2] == [t.shape[0], k])
        if b and self.rng.random() < 0.5:
            return E("torch.bmm(%s, %s)" % (e.text, b.text),
                     T(t.dtype, t.shape[:2] + [b.t.shape[2]]))
        if w and self.rng.random() < 0.5:
            return E("torch.matmul(%s, %s)" % (e.text, w.text),
                     T(t.dtype, t.shape[:2] + [w.t.shape[1]]))
        return E("torch.bmm(%s, %s.transpose(1, 2))" % (e.text, a),
                 T(t.dtype, [t.shape[0], t.shape[1], t.shape[1]]))

    def catstack(self, e):
        if e is None or e.t is None or e.t.rank == 0 or e.t.numel() * 2 > self.max_numel:
            return None
        t = e.t
        if self.rng.random() < 0.5:
            d = self.rng.randrange(t.rank)
            others = self.tensors(lambda u: u.dtype == t.dtype and u.rank == t.rank and all(
                u.shape[i] == t.shape[i] for i in range(t.rank) if i != d))
            b = self.pick(others)
            btext, bsize = (b.name, b.t.shape[d]) if b else ("%s * 2" % e.p(), t.shape[d])
            shape = list(t.shape)
            shape[d] += bsize
            return E("torch.cat([%s, %s], %d)" % (e.text, btext, d), t.with_shape(shape))
        if t.rank >= MAX_RANK:
            return None
        d = self.rng.randint(0, t.rank)
        b = self.leaf(lambda u: u.same(t))
        return E("torch.stack([%s, %s], %d)" % (e.text, b.text, d),
                 t.with_shape(t.shape[:d] + [2] + t.shape[d:]))

    def cast(self, e):
        if e is None or e.t is None:
            return None
        t = e.t
        if t.dtype in FLOATS and self.rng.random() < 0.6:
            # Truncating computed floats would hang on rounding; compare first.
            form, dtype = self.rng.choice([("(%s > 0.0).long()", I64), ("(%s < 0.5).int()", I32)])
            return E(form % e.text, t.with_shape(t.shape, dtype))
        dtype = self.rng.choice([d for d in (F32, F64, I32, I64) if d != t.dtype and
                                 not (t.dtype in FLOATS and d in INTS)])
        method = {F32: "float", F64: "double", I32: "int", I64: "long"}[dtype]
        form = self.rng.choice(["%%s.%s()" % method, "%%s.to(%s)" % TORCH_DTYPES[dtype]])
        return E(form % e.p(), t.with_shape(t.shape, dtype))

    def creation(self):
        shape = self.shape_like()
        r = self.rng.random()
        if r < 0.2:
            n = self.rng.randint(2, 6)
            if self.rng.random() < 0.5:
                return E("torch.arange(%d)" % n, T(I64, [n]))
            return E("torch.arange(%d).float()" % n, T(F32, [n]))
        like = self.leaf()
        if r < 0.45 and like:
            fn = self.rng.choice(["zeros_like", "ones_like"])
            return E("torch.%s(%s)" % (fn, like.text), like.t.with_shape(like.t.shape))
        if r < 0.6 and like:
            return E("torch.full_like(%s, %s)" % (like.text, scalar_lit(like.t.dtype, self.rng)),
                     like.t.with_shape(like.t.shape))
        fn = self.rng.choice(["zeros", "ones", "full"])
        if fn == "full":
            return E("torch.full(%s, %s)" % (shape_text(shape), float_lit(self.rng)), T(F32, shape))
        if self.rng.random() < 0.3:
            return E("torch.%s(%s, dtype=torch.int64)" % (fn, shape_text(shape)), T(I64, shape))
        return E("torch.%s(%s)" % (fn, shape_text(shape)), T(F32, shape))

    def shape_like(self):
        v = self.pick(self.tensors())
        return list(v.t.shape) if v else [3]

    def list_read(self):
        lists = [v for v in self.lists() if v.length >= 1]
        lst = self.pick(lists)
        if lst is None:
            return None
        t = lst.t
        r = self.rng.random()
        if r < 0.3:
            j = self.rng.randrange(lst.length)
            return E("%s[%d]" % (lst.name, j - lst.length if self.rng.random() < 0.3 else j),
                     t.viewed(t.shape), roots=lst.roots)
        if r < 0.65 or t.rank == 0:
            if t.rank >= MAX_RANK or t.numel() * lst.length > self.max_numel:
                return None
            d = self.rng.randint(0, t.rank)
            return E("torch.stack(%s, %d)" % (lst.name, d),
                     t.with_shape(t.shape[:d] + [lst.length] + t.shape[d:]))
        if t.numel() * lst.length > self.max_numel:
            return None
        d = self.rng.randrange(t.rank)
        shape = list(t.shape)
        shape[d] *= lst.length
        return E("torch.cat(%s, %d)" % (lst.name, d), t.with_shape(shape))

    # ---- expressions of a given type ------------------------------------------

    def expr_like(self, t):
        """An expression of exactly dtype and shape t."""
        same = self.tensors(lambda u: u.same(t))
        a = self.pick(same)
        if a is None:
            return self.convert_to(t)
        e = E(a.name, a.t, roots=a.roots)
        if t.dtype == BOOL:
            return computed_from(self.weighted([
                (1, lambda: self.unary(e)),
                (1, lambda: self.compare_fitting(e)),
            ]) or e, a.t)
        choices = [
            (3, lambda: self.binary_fitting(e)),
            (1, lambda: self.where_fitting(e)),
            (1, lambda: self.clamp(e)),
            (1, lambda: self.masked_fill(e)),
        ]
        if t.dtype in FLOATS:
            choices += [(2, lambda: self.unary(e)), (1, lambda: self.same_shape_reduction(e))]
        return computed_from(self.weighted(choices) or e, a.t)

    def convert_to(self, t):
        """Something of type t made from a tensor of t's shape, or a fill."""
        src = self.leaf(lambda u: u.shape == t.shape)
        if src is None:
            if t.dtype == BOOL:
                return E("torch.zeros(%s) > 0.5" % shape_text(t.shape), t, atom=False)
            dt = "" if t.dtype == F32 else ", dtype=%s" % TORCH_DTYPES[t.dtype]
            fill = scalar_lit(t.dtype, self.rng)
            return E("torch.full(%s, %s%s)" % (shape_text(t.shape), fill, dt), t)
        if src.t.dtype == t.dtype:
            return src
        if t.dtype == BOOL:
            return computed_from(E("%s > 0" % src.p(), t, atom=False), src.t)
        if src.t.dtype in FLOATS and t.dtype in INTS:  # no truncation of computed values
            text = "(%s > 0.0).to(%s)" % (src.p(), TORCH_DTYPES[t.dtype])
            return computed_from(E(text, t), src.t)
        return computed_from(E("%s.to(%s)" % (src.p(), TORCH_DTYPES[t.dtype]), t), src.t)

    def binary_fitting(self, e):
        t = e.t
        b = self.partner(t, fit=True)
        if b.t is None:
            if t.dtype in INTS and b.scalar_dtype in FLOATS:
                return E("%s * %s" % (e.p(), scalar_lit(I64, self.rng)), t, atom=False)
            op = self.rng.choice(["+", "-", "*"])
            return E("%s %s %s" % (e.p(), op, b.text), t, atom=False)
        if promote(t.dtype, b.t.dtype) != t.dtype:
            return None
        if t.dtype in FLOATS and self.rng.random() < 0.2:
            return E("%s / (%s.abs() + 1.0)" % (e.p(), b.p()), t, atom=False)
        op = self.rng.choice(["+", "-", "*", "*"])
        if t.dtype in FLOATS and self.rng.random() < 0.3:
            return E("%s * 0.5 %s %s" % (e.p(), op, b.p()), t, atom=False)
        return E("%s %s %s" % (e.p(), op, b.p()), t, atom=False)

    def where_fitting(self, e):
        cond = self.mask_for(e.t)
        b = self.partner(e.t, fit=True)
        if cond is None or (b.t is not None and promote(e.t.dtype, b.t.dtype) != e.t.dtype):
            return None
        other = b.text if b.t is not None else scalar_lit(e.t.dtype, self.rng)
        return E("torch.where(%s, %s, %s)" % (cond.text, other, e.text), e.t)

    def compare_fitting(self, e):
        src = self.leaf(lambda u: u.shape == e.t.shape and u.dtype != BOOL)
        if src is None:
            return None
        lit = float_lit(self.rng) if src.t.dtype in FLOATS else "2"
        fn = self.rng.choice(["torch.logical_or", "torch.logical_and"])
        return E("%s(%s, %s > %s)" % (fn, e.text, src.p(), lit), e.t)

    def same_shape_reduction(self, e):
        t = e.t
        if t.rank == 0:
            return None
        d = self.rng.randrange(t.rank)
        r = self.rng.random()
        if r < 0.3:
            return E("torch.softmax(%s, %d)" % (e.text, d), t)
        if r < 0.45:
            return E("torch.cumsum(%s, %d)" % (e.text, d), t)
        fn = self.rng.choice(["mean", "amax", "sum", "amin"])
        return E("%s - %s.%s(%d, keepdim=True)" % (e.p(), e.p(), fn, d), t, atom=False)

    def region_value(self, shape, dtype, avoid):
        """A value to store into a region of `shape` and `dtype`: a number,
        or a tensor that broadcasts into it (cast by the write). None of it
        views the buffers in `avoid`: PyTorch does not define the result of
        a write whose operand overlaps the written memory."""
        r = self.rng.random()
        if r < 0.3:
            return scalar_lit(dtype, self.rng)
        if dtype in FLOATS and r < 0.6:
            src = self.leaf(lambda u: u.dtype != BOOL and fits(u.shape, shape), avoid)
            if src:
                return self.unary(src).text if self.rng.random() < 0.5 else src.text
        return self.unaliased(self.expr_like(T(dtype, shape)), avoid, dtype)

    def unaliased(self, e, avoid, dtype):
        return scalar_lit(dtype, self.rng) if e.roots and e.roots & avoid else e.text

    # ---- statements -------------------------------------------------------------

    def statement(self, in_loop=False):
        nested = self.indent < 3
        table = [
            (8, self.stmt_assign),
            (3, self.stmt_view),
            (3, self.stmt_reassign),
            (6, self.stmt_inplace),
            (1, self.stmt_unpack),
            (2, self.stmt_list),
            (2 if self.helper_sig else 0, self.stmt_call),
        ]
        if nested and self.budget >= 3:
            table += [(3, self.stmt_loop), (3, self.stmt_if)]
        if in_loop:
            table += [(3, self.stmt_reassign), (1, self.stmt_continue)]
        self.weighted(table)

    def assign(self, name, e, base=None):
        if e.t.rank > MAX_RANK or e.t.numel() > self.max_numel:
            return None
        self.emit("%s = %s" % (name, e.text))
        self.define(Var(name, "tensor", e.t, base=base, roots=e.roots or frozenset([name])))
        self.last = name
        return True

    def stmt_assign(self):
        e = self.expr(self.rng.randint(1, 3))
        return self.assign(self.fresh("t"), e) if e and e.t else None

    def stmt_view(self):
        v = self.pick(self.tensors())
        if v is None:
            return None
        e = self.view(E(v.name, v.t, roots=v.roots))
        if e and self.rng.random() < 0.3:
            e = self.view(e) or e
        if e is None:
            return None
        name = self.fresh("v")
        if not self.assign(name, e, base=v.name):
            return None
        if self.rng.random() < 0.5 and not e.t.shared:
            self.write_method(self.visible()[name])
        return True

    def stmt_reassign(self):
        v = self.pick(self.tensors())
        if v is None:
            return None
        same = self.tensors(lambda u: u.same(v.t))
        if self.rng.random() < 0.15 and len(same) > 1:  # rebinding to another tensor: an alias
            other = self.pick([u for u in same if u.name != v.name])
            e = E(other.name, other.t, roots=other.roots)
        else:
            e = self.expr_like(v.t)
        self.emit("%s = %s" % (v.name, e.text))
        roots = e.roots or frozenset([self.fresh("r")])
        t = e.t.viewed(v.t.shape)
        if self.indent > 1:  # the name keeps its old tensor where this does not run
            roots |= v.roots
            t.shared |= v.t.shared
            t.loose |= v.t.loose or v.t.permuted
        self.define(Var(v.name, "tensor", t, roots=roots))
        self.last = v.name
        return True

    def write_target(self):
        return self.pick(self.tensors(lambda t: not t.shared and t.numel() > 0))

    def note_write(self, v):
        self.written.append(v.base or v.name)
        self.last = v.name

    def stmt_inplace(self):
        v = self.write_target()
        if v is None:
            return None
        return self.weighted([
            (3, lambda: self.write_setitem(v)),
            (2, lambda: self.write_setitem(v, aug=True)),
            (3, lambda: self.write_method(v)),
            (1, lambda: self.write_aug_name(v)),
            (1, lambda: self.write_indexed(v)),
        ])

    def write_setitem(self, v, aug=False):
        t = v.t
        if t.rank == 0 or (aug and t.dtype == BOOL):
            return None
        text, shape = self.index(t.shape)
        if aug:
            op = self.rng.choice(["+=", "-=", "*="])
            value = self.aug_value(shape, t.dtype, v.roots)
            self.emit("%s[%s] %s %s" % (v.name, text, op, value))
        else:
            self.emit("%s[%s] = %s" % (v.name, text, self.region_value(shape, t.dtype, v.roots)))
        self.note_write(v)
        return True

    def write_indexed(self, v):
        """Assignment through a mask or an index tensor: `v[mask] = 2.0`,
        `v[idx] += 1`, `v[:, idx] = w` (whole slices of the right shape)."""
        t = v.t
        if t.rank == 0 or t.dtype == BOOL:
            return None
        aug = self.rng.choice(["", "+", "*"]) if self.rng.random() < 0.4 else ""
        if self.rng.random() < 0.5:
            mask = self.exact_mask(t)
            if mask is None:
                return None
            self.emit("%s[%s] %s= %s" % (v.name, mask.text, aug, scalar_lit(t.dtype, self.rng)))
        else:
            d = self.rng.randrange(t.rank)
            idx = self.pick(self.tensors(lambda u: u.dtype == I64 and u.rank == 1 and u.numel() > 0))
            if idx is None:
                return None
            where = ":, " * d + "%s.clamp(0, %d)" % (idx.name, t.shape[d] - 1)
            self.emit("%s[%s] %s= %s" % (v.name, where, aug, scalar_lit(t.dtype, self.rng)))
        self.note_write(v)
        return True

    def aug_value(self, shape, dtype, avoid):
        if dtype in INTS:
            src = self.leaf(lambda u: u.dtype not in FLOATS and fits(u.shape, shape), avoid)
            return src.text if src and self.rng.random() < 0.6 else scalar_lit(I64, self.rng)
        src = self.leaf(lambda u: u.dtype != BOOL and fits(u.shape, shape), avoid)
        if src and self.rng.random() < 0.7:
            return src.text
        return float_lit(self.rng)

    def write_method(self, v):
        t = v.t
        target = v.name
        shape = t.shape
        if t.rank >= 1 and self.rng.random() < 0.3:
            text, shape = self.index(t.shape)
            target = "%s[%s]" % (v.name, text)
        if t.dtype in FLOATS:
            choices = ["add_", "sub_", "mul_", "div_", "clamp_", "relu_", "sigmoid_", "zero_",
                       "fill_", "copy_", "masked_fill_"]
        elif t.dtype in INTS:
            choices = ["add_", "mul_", "zero_", "fill_", "copy_", "clamp_", "masked_fill_"]
        else:
            choices = ["zero_", "fill_", "copy_"]
        fn = self.rng.choice(choices)
        if fn in ("add_", "sub_", "mul_"):
            arg = self.aug_value(shape, t.dtype, v.roots)
        elif fn == "div_":
            src = self.leaf(lambda u: u.dtype != BOOL and fits(u.shape, shape))
            arg = "%s.abs() + 1.0" % src.p() if src else "2.0"
        elif fn == "clamp_":
            arg = "-0.5, 0.5" if t.dtype in FLOATS else "0, 4"
        elif fn in ("relu_", "sigmoid_", "zero_"):
            arg = ""
        elif fn == "fill_":
            arg = scalar_lit(t.dtype, self.rng)
        elif fn == "copy_":
            if t.dtype in FLOATS:
                src = self.leaf(lambda u: fits(u.shape, shape), v.roots)
                if src is None:
                    arg = "torch.zeros(%s)" % shape_text(shape)
                elif src.t.dtype in FLOATS and self.rng.random() < 0.5:
                    arg = self.unary(src).text
                else:
                    arg = src.text
            else:
                arg = self.unaliased(self.expr_like(T(t.dtype, shape)), v.roots, t.dtype)
        else:
            mask = self.mask_for(T(t.dtype, shape))
            if mask is None or (mask.roots and mask.roots & v.roots):
                return None
            arg = "%s, %s" % (mask.text, scalar_lit(t.dtype, self.rng))
        self.emit("%s.%s(%s)" % (target, fn, arg))
        self.note_write(v)
        return True

    def write_aug_name(self, v):
        if v.t.dtype == BOOL:
            return None
        op = self.rng.choice(["+=", "-=", "*="])
        self.emit("%s %s %s" % (v.name, op, self.aug_value(v.t.shape, v.t.dtype, v.roots)))
        self.note_write(v)
        return True

    def stmt_unpack(self):
        v = self.pick(self.tensors(lambda t: t.rank >= 1 and 2 <= max(t.shape) <= 4))
        if v is None:
            return None
        t = v.t
        d = self.pick([i for i, s in enumerate(t.shape) if 2 <= s <= 4])
        size = t.shape[d]
        if self.rng.random() < 0.5 and size % 2 == 0:
            names = [self.fresh("c"), self.fresh("c")]
            self.emit("%s = %s.chunk(2, %d)" % (", ".join(names), v.name, d))
            shape = t.shape[:d] + [size // 2] + t.shape[d + 1:]
        else:
            names = [self.fresh("u") for _ in range(size)]
            self.emit("%s = %s.unbind(%d)" % (", ".join(names), v.name, d))
            shape = t.shape[:d] + t.shape[d + 1:]
        for name in names:
            self.define(Var(name, "tensor", t.viewed(shape), base=v.name, roots=v.roots))
        self.last = names[-1]
        return True

    def stmt_list(self):
        lists = [v for v in self.lists() if not v.frozen]
        if lists and self.rng.random() < 0.6:
            lst = self.pick(lists)
            e = self.expr_like(lst.t)
            if self.rng.random() < 0.2 and lst.length >= 1:
                j = self.rng.randrange(lst.length)
                self.emit("%s[%d] = %s" % (lst.name, j, e.text))
            else:
                self.emit("%s.append(%s)" % (lst.name, e.text))
                lst.length += self.trips // lst.trips if lst.trips else 0
            lst.roots |= e.roots or frozenset()
            return True
        v = self.pick(self.tensors())
        if v is None:
            return None
        name = self.fresh("ys")
        r = self.rng.random()
        if r < 0.3 and v.t.rank >= 1 and v.t.shape[0] <= 4:
            self.emit("%s = %s.unbind(0)" % (name, v.name))  # a tuple in eager PyTorch
            self.define(Var(name, "list", v.t.viewed(v.t.shape[1:]), length=v.t.shape[0],
                            frozen=True, roots=v.roots))
        elif r < 0.5:
            e = self.expr_like(v.t)
            self.emit("%s = [%s, %s]" % (name, v.name, e.text))
            self.define(Var(name, "list", v.t.viewed(v.t.shape), length=2,
                            roots=v.roots | (e.roots or frozenset())))
        else:
            self.emit("%s: List[torch.Tensor] = []" % name)
            self.define(Var(name, "list", v.t.with_shape(v.t.shape), length=0))
        return True

    def stmt_continue(self):
        loops = [v for v in self.scalars("int") if v.hi is not None]
        if not loops:
            return None
        i = loops[-1]
        self.emit("if %s == %d:" % (i.name, self.rng.randint(0, i.hi)))
        self.indent += 1
        self.emit(self.rng.choice(["continue", "break"]))
        self.indent -= 1
        self.trips = 0
        return True

    def body(self, count, in_loop, last=None):
        self.scopes.append({})
        self.indent += 1
        start = len(self.lines)
        for _ in range(count):
            if self.budget <= 0:
                break
            self.statement(in_loop)
        if last:
            self.emit(last)
        if len(self.lines) == start:
            self.emit("pass")
        self.indent -= 1
        self.scopes.pop()

    def stmt_loop(self):
        r = self.rng.random()
        ints = [v for v in self.scalars("int") if v.hi is None and v.value is not None]
        lists = [v for v in self.lists() if v.length >= 1]
        if r < 0.15 and lists:
            return self.list_loop(self.pick(lists))
        if r < 0.35 and ints:
            k = self.pick(ints)
            bound, n = k.name, k.value
        elif r < 0.45 and self.tensors(lambda t: t.rank >= 1):
            v = self.pick(self.tensors(lambda t: t.rank >= 1))
            d = self.rng.randrange(v.t.rank)
            bound, n = "%s.size(%d)" % (v.name, d), v.t.shape[d]
        else:
            n = self.rng.randint(1, 4)
            bound = str(n)
        outer = self.trips
        self.trips = outer * n
        if self.rng.random() < 0.15:
            self.while_loop(bound, n)
        else:
            i = self.fresh("i")
            self.emit("for %s in range(%s):" % (i, bound))
            self.scopes.append({})
            self.define(Var(i, "int", hi=max(n - 1, 0)))
            self.loops.append("for")
            self.body(self.rng.randint(1, 4), in_loop=True)
            self.loops.pop()
            self.scopes.pop()
        self.trips = outer
        return True

    def while_loop(self, bound, n):
        """`w = 0; while w < n: ...; w += 1`, without continue (it would
        skip the increment)."""
        w = self.fresh("w")
        self.emit("%s = 0" % w)
        self.emit("while %s < %s:" % (w, bound))
        self.scopes.append({})
        self.define(Var(w, "int", hi=max(n - 1, 0)))
        self.loops.append("while")
        self.body(self.rng.randint(1, 3), in_loop=False, last="%s += 1" % w)
        self.loops.pop()
        self.scopes.pop()

    def list_loop(self, lst):
        name = self.fresh("e")
        self.emit("for %s in %s:" % (name, lst.name))
        outer = self.trips
        self.trips = outer * lst.length
        self.scopes.append({})
        self.define(Var(name, "tensor", lst.t.viewed(lst.t.shape), roots=lst.roots))
        frozen, lst.frozen = lst.frozen, True  # appending while iterating never ends
        self.loops.append("for")
        self.body(self.rng.randint(1, 3), in_loop=False)
        self.loops.pop()
        lst.frozen = frozen
        self.scopes.pop()
        self.trips = outer
        return True

    def condition(self):
        r = self.rng.random()
        floats, flags = self.scalars("float"), self.scalars("bool")
        ints = [v for v in self.scalars("int") if v.value is not None]
        if r < 0.15 and floats:
            return "%s > %s" % (self.pick(floats).name, float_lit(self.rng))
        if r < 0.3 and ints:
            return "%s %s %d" % (self.pick(ints).name, self.rng.choice([">", "<", "=="]),
                                 self.rng.randint(0, 4))
        if r < 0.4 and flags:
            return self.rng.choice(["", "not "]) + self.pick(flags).name
        if r < 0.5:
            loops = [v for v in self.scalars("int") if v.hi is not None]
            if loops:
                return "%s %% 2 == 0" % self.pick(loops).name
        src = self.leaf(lambda t: t.dtype in FLOATS and t.numel() > 0)
        if src is None:
            return "True"
        # Not `sum() > 0.0`: sums of quantized values (sign(), rounding) are
        # exactly 0.0 in one summation order and one ulp off in another,
        # and perturbing the inputs cannot reveal a branch decided so.
        forms = ["float(%s.sum()) > 0.1", "float(%s.mean()) < 0.1", "int(%s.argmax()) > 1",
                 "bool(%s.amax() > 0.5)", "float(%s.abs().max()) > 0.5"]
        return self.rng.choice(forms) % src.p()

    def stmt_if(self):
        self.emit("if %s:" % self.condition())
        outer = self.trips
        self.trips = 0
        in_loop = self.loops[-1:] == ["for"]  # continue in a while would skip its increment
        self.body(self.rng.randint(1, 3), in_loop)
        if self.rng.random() < 0.5:
            self.emit("else:")
            self.body(self.rng.randint(1, 3), in_loop)
        self.trips = outer
        return True

    # ---- the function -------------------------------------------------------------

    def base_shape(self):
        """Mostly tiny shapes; sometimes larger ones, with odd sizes, so that
        kernels split work over blocks and threads and have remainders."""
        rank = self.rng.choice([1, 2, 2, 2, 3, 3])
        if self.rng.random() < 0.2:
            self.max_numel = 8192
            while True:
                shape = [self.rng.choice([1, 3, 7, 8, 16, 17, 33, 64, 65]) for _ in range(rank)]
                if 64 <= T(F32, shape).numel() <= 4096:
                    return shape
        return [self.rng.choice([2, 3, 4, 5]) for _ in range(rank)]

    def inputs(self):
        base = self.base_shape()
        rank = len(base)
        specs = {"x": (self.rng.choice(["f32"] * 9 + ["f64"]), base)}
        for name in ["y", "z"][:self.rng.choice([0, 1, 1, 2])]:
            r = self.rng.random()
            if r < 0.4:
                shape = list(base)
            elif r < 0.6:
                shape = [1 if self.rng.random() < 0.4 else s for s in base]
                shape = shape[self.rng.randrange(rank):]
            elif r < 0.7 and rank >= 2:
                shape = base[::-1]
            else:
                shape = [self.rng.choice([2, 3, 4]) for _ in range(self.rng.randint(1, 3))]
            kind = self.rng.choice(["f32"] * 10 + ["f64", "i32", "i64", "i64", "bool", "bool"])
            specs[name] = (kind, shape, 0, 10) if kind in ("i32", "i64") else (kind, shape)
        if self.rng.random() < 0.4:
            specs["s"] = self.rng.choice([-0.5, 0.5, 1.5, 2.0])
        if self.rng.random() < 0.4:
            specs["k"] = self.rng.choice([0, 1, 2, 2, 3, 3])
        if self.rng.random() < 0.2:
            specs["flag"] = self.rng.random() < 0.5
        return specs

    def define_params(self, specs):
        """Parameters of the function for input specs, as annotated text."""
        params = []
        for name, spec in specs.items():
            if isinstance(spec, bool):
                params.append("%s: bool" % name)
                self.define(Var(name, "bool"))
            elif isinstance(spec, int):
                params.append("%s: int" % name)
                self.define(Var(name, "int", value=spec))
            elif isinstance(spec, float):
                params.append("%s: float" % name)
                self.define(Var(name, "float"))
            else:
                params.append("%s: torch.Tensor" % name)
                dtype = {"f32": F32, "f64": F64, "i32": I32, "i64": I64, "bool": BOOL}[spec[0]]
                self.define(Var(name, "tensor", T(dtype, spec[1]), roots=frozenset([name])))
        return params

    def helper(self, specs):
        """A function f calls, `g`, over tensors of the types of some of f's
        inputs: its text and its signature (parameter types, result type)."""
        tensors = [(n, s) for n, s in specs.items() if isinstance(s, tuple)]
        picked = self.rng.sample(tensors, self.rng.randint(1, min(2, len(tensors))))
        sub = Gen(self.rng)
        sub.budget = self.rng.randint(1, 5)
        sub.max_numel = self.max_numel
        sub.count = 100  # names apart from f's
        params = sub.define_params({"a%d" % i: s for i, (_, s) in enumerate(picked)})
        while sub.budget > 0:
            sub.statement()
        result = sub.visible()[sub.last] if sub.last in sub.scopes[0] else \
            sub.pick(sub.tensors())
        lines = "\n".join(sub.lines) + ("\n" if sub.lines else "")
        text = "def g(%s) -> torch.Tensor:\n%s    return %s\n\n\n" % (
            ", ".join(params), lines, result.name)
        types = [sub.visible()["a%d" % i].t for i in range(len(picked))]
        self.helper_sig = (types, result.t)
        return text

    def stmt_call(self):
        if not self.helper_sig:
            return None
        types, result = self.helper_sig
        args = []
        for t in types:
            # Distinct tensors: g writes through one parameter while reading
            # another, and PyTorch leaves overlapping in-place operands
            # undefined (`x[:, 1] -= x[0]`).
            taken = frozenset().union(*(a.roots for a in args))
            v = self.pick([u for u in self.tensors(lambda u: u.same(t)) if not u.roots & taken])
            if v is None:
                return None
            args.append(v)
        roots = frozenset().union(*(v.roots for v in args))  # g may return a view of an argument
        name = self.fresh("t")
        self.emit("%s = g(%s)" % (name, ", ".join(v.name for v in args)))
        # g was written for fresh arguments; its result may be one of these,
        # with their layout (a loose or expanded tensor here).
        t = result.viewed(result.shape)
        t.loose |= any(v.t.loose or v.t.permuted for v in args)
        t.shared |= any(v.t.shared for v in args)
        self.define(Var(name, "tensor", t, roots=roots))
        self.last = name
        return True

    def program(self):
        specs = self.inputs()
        helper = self.helper(specs) if self.rng.random() < 0.25 else ""
        params = self.define_params(specs)
        at = -1
        if self.rng.random() < 0.12:
            params += self.product_params(specs)
            at = self.rng.randint(1, self.budget)
        while self.budget > 0:
            if self.budget == at and self.product_out is None:
                self.stmt_product()
            else:
                self.statement()
        if self.product and self.product_out is None:
            self.stmt_product()
        outs = self.outputs()
        header = "def f(%s) -> %s:" % (", ".join(params), outs[1])
        return helper + header + "\n" + "\n".join(self.lines) + "\n    return %s\n" % outs[0], \
            specs

    def outputs(self):
        top = self.scopes[0]
        names = []
        for name in [self.last] + self.written[::-1]:
            if name in top and top[name].kind == "tensor" and name not in names:
                names.append(name)
        tensors = [n for n, v in top.items() if v.kind == "tensor"]
        names = names[:self.rng.randint(1, 3)]
        if not names or self.rng.random() < 0.3:
            names.append(self.rng.choice(tensors))
        types = ["torch.Tensor"] * len(names)
        lists = [n for n, v in top.items() if v.kind == "list"]
        if lists and self.rng.random() < 0.3:
            names.append(self.rng.choice(lists))
            types.append("List[torch.Tensor]")
        numbers = [v for v in top.values() if v.kind == "tensor" and v.t.numel() > 0 and
                   v.t.dtype != BOOL]
        if numbers and self.rng.random() < 0.15:
            v = self.rng.choice(numbers)
            if v.t.dtype in FLOATS and self.rng.random() < 0.7:
                names.append("float(%s.sum())" % v.name)
                types.append("float")
            else:
                names.append("int(%s.argmax())" % v.name)
                types.append("int")
        if self.product_out:
            names.append(self.product_out)
            types.append("torch.Tensor")
        if len(names) == 1:
            return names[0], types[0]
        return ", ".join(names), "Tuple[%s]" % ", ".join(types)

    # ---- a product large enough for the contraction kernel ------------------

    def product_params(self, specs):
        """Inputs of a product of at least 2^18 multiply-adds (the runtime's
        contraction kernel, not a generated loop nest) and of what may follow
        it: f32 pa [m, k], pw and pv [k, n], pl [n, k], pb [n], pr [m, n].
        They stay out of the other statements' scope: those keep to small
        shapes."""
        m, k, n = self.rng.choice([8, 16, 40]), 130, self.rng.choice([264, 300])
        self.product = (m, k, n)
        shapes = {"pa": [m, k], "pw": [k, n], "pv": [k, n], "pl": [n, k], "pb": [n], "pr": [m, n]}
        specs.update({name: ("f32", shape) for name, shape in shapes.items()})
        return ["%s: torch.Tensor" % name for name in shapes]

    def stmt_product(self):
        """The product, then (maybe after an in-place write to its input,
        which must not reach it) a tail that may become its epilogue: a
        bias, activations, a residual, SwiGLU's gate of the same input."""
        product = self.pick(["pa @ pw", "torch.nn.functional.linear(pa, pl)",
                             "torch.nn.functional.linear(pa, pl, pb)", "torch.mm(pa, pw)"])
        tail = self.pick(["torch.relu(P + pb)", "P + pr", "torch.relu(P + pr)", "pr + P",
                          "torch.nn.functional.silu(pa @ pv) * P", "P * torch.nn.functional.silu(pa @ pv)",
                          "torch.sigmoid(P) * pr", "torch.nn.functional.gelu(P + pb) + pr",
                          "P * torch.tanh(pr) + pb", "torch.tanh(P + pb) * torch.sigmoid(pr)"])
        p, out = self.fresh("pp"), self.fresh("pq")
        self.emit("%s = %s" % (p, product))
        if self.rng.random() < 0.3:
            self.emit(self.pick(["pa.mul_(0.5)", "pa.add_(1.0)", "pa[0] = pa[1]", "pr.neg_()"]))
        self.emit("%s = %s" % (out, tail.replace("P", p)))
        self.product_out = out



def generate(seed):
    """The program for one seed (an int or a string): a Program with the
    full source (imports included), the function name and input specs in
    the differential suite's form."""
    rng = random.Random(seed)
    body, specs = Gen(rng).program()
    return Program(PRELUDE + body, "f", specs, seed)
