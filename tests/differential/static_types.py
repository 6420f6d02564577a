"""Checks the types `stitch dump --stage parsed` infers for a function's
results against the values PyTorch returned: every dtype, every known
dimension, list and tuple structure, scalar kinds. `?` dimensions and
unknown types (`Tensor`, `Any`, ...) match anything."""
import re
import subprocess

TENSOR_TYPE = re.compile(r"^(f32|f64|i32|i64|bool)\[(.*)\]$")
DTYPE_NAMES = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64",
               "bool": "bool"}
VALUE_DECL = re.compile(r"%([\w.]+) : ")
WILDCARDS = {"Tensor", "Any", "Scalar", "None", "str", "dtype", "Number"}


class TypeMismatch(Exception):
    pass


def split_top_level(text):
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    return parts + [tail] if tail else parts


def read_type(line, start):
    depth = 0
    for i in range(start, len(line)):
        c = line[i]
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif depth == 0 and c in ",) ":
            return line[start:i]
    return line[start:]


def value_types(dump):
    """name -> type text of every value the dump declares, and the names the
    top-level block returns."""
    types, returns = {}, None
    for line in dump.splitlines():
        for m in VALUE_DECL.finditer(line):
            types[m.group(1)] = read_type(line, m.end())
        top = re.match(r"^  return \((.*)\)\s*$", line)
        if top:
            returns = [r.strip().lstrip("%") for r in split_top_level(top.group(1))]
    return types, returns


def check_value(type_text, value, where):
    import torch
    t = type_text.strip()
    if t in WILDCARDS or t.startswith("Optional[") or t.startswith("Union["):
        return
    if t.startswith("List[") or t.startswith("Tuple["):
        if not isinstance(value, (list, tuple)):
            raise TypeMismatch("%s: inferred %s, PyTorch returned %s" % (where, t, type(value).__name__))
        inner = split_top_level(t[t.index("[") + 1:-1])
        if t.startswith("List["):
            inner = inner * len(value)
        elif len(inner) != len(value):
            raise TypeMismatch("%s: inferred %s, PyTorch returned %d values" % (where, t, len(value)))
        for i, (ti, vi) in enumerate(zip(inner, value)):
            check_value(ti, vi, "%s[%d]" % (where, i))
        return
    m = TENSOR_TYPE.match(t)
    if m:
        if not isinstance(value, torch.Tensor):
            raise TypeMismatch("%s: inferred %s, PyTorch returned %s" % (where, t, type(value).__name__))
        dtype = str(value.dtype).replace("torch.", "")
        if DTYPE_NAMES[m.group(1)] != dtype:
            raise TypeMismatch("%s: inferred %s, PyTorch returned %s%s" % (
                where, t, dtype, list(value.shape)))
        dims = [d.strip() for d in m.group(2).split(",")] if m.group(2).strip() else []
        if "*" in m.group(2) or "..." in m.group(2):
            return
        shape = list(value.shape)
        if len(dims) != len(shape) or any(d not in ("?", str(s)) for d, s in zip(dims, shape)):
            raise TypeMismatch("%s: inferred %s, PyTorch returned %s%s" % (where, t, dtype, shape))
        return
    expected = {"int": int, "float": float, "bool": bool}.get(t)
    if expected is None:
        return  # a type this check does not know: nothing to compare
    ok = isinstance(value, expected) and (expected is bool or not isinstance(value, bool))
    if not ok:
        raise TypeMismatch("%s: inferred %s, PyTorch returned %s" % (where, t, type(value).__name__))


def check_static_types(stitch, prog, fn, input_args, result):
    """Runs `stitch dump` specialized on input_args and compares the inferred
    result types with `result` (the unflattened PyTorch return value)."""
    cmd = [stitch, "dump", prog, "--fn", fn, "--stage", "parsed"] + input_args
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise TypeMismatch("stitch dump exited %d: %s" % (proc.returncode,
                                                          proc.stderr.strip()[:300]))
    types, returns = value_types(proc.stdout)
    if returns is None:
        raise TypeMismatch("no top-level return in the dump")
    values = list(result) if len(returns) > 1 and isinstance(result, tuple) else [result]
    if len(returns) != len(values):
        raise TypeMismatch("dump returns %d values, PyTorch %d" % (len(returns), len(values)))
    for i, (name, value) in enumerate(zip(returns, values)):
        if name not in types:
            continue  # a constant or parameter printed without a declaration
        check_value(types[name], value, "result %d (%%%s)" % (i, name))
