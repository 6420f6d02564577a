"""The source TensorStitch compiles for a Python function: the function and
the module-level functions it calls (transitively), with the module's
torch / typing / math imports, each on its original lines so that error
locations name the real file, line and column. Everything else in the
module (other code, decorators, classes) is left out."""

import ast
import inspect
import linecache

_IMPORTABLE_ROOTS = ("torch", "typing", "math")


def _module_text(fn):
    path = inspect.getsourcefile(fn) or inspect.getfile(fn)
    lines = linecache.getlines(path, fn.__globals__)
    if not lines:
        raise OSError("the source of %s() is not available (TensorStitch compiles from source)" % fn.__name__)
    return path, "".join(lines)


def _called_names(node):
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            names.add(n.id)
    return names


def _keeps_import(node):
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] in _IMPORTABLE_ROOTS for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").split(".")[0] in _IMPORTABLE_ROOTS
    return False


def check_compilable(fn):
    """TypeError unless fn is a function defined with `def` at module level."""
    if not inspect.isfunction(fn):
        raise TypeError("tensorstitch compiles Python functions, not %r" % (fn,))
    if not fn.__name__.isidentifier():
        raise TypeError("tensorstitch compiles functions defined with def, not %s" % fn.__name__)
    if fn.__qualname__ != fn.__name__:
        raise TypeError("tensorstitch compiles module-level functions; %s is nested in another scope"
                        % fn.__qualname__)


def function_source(fn):
    """(path, text) of the source to compile for `fn`."""
    check_compilable(fn)
    path, text = _module_text(fn)
    tree = ast.parse(text, filename=path)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if fn.__name__ not in functions:
        raise OSError("%s() is not defined at the top level of %s" % (fn.__name__, path))
    wanted, todo = set(), [fn.__name__]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        todo.extend(n for n in _called_names(functions[name]) if n in functions)
    lines = text.splitlines()
    kept = [""] * len(lines)
    for node in tree.body:
        keep = _keeps_import(node) or (isinstance(node, ast.FunctionDef) and node.name in wanted)
        if not keep:
            continue
        # A function starts at `def` (its decorators stand above it).
        for i in range(node.lineno - 1, node.end_lineno):
            kept[i] = lines[i]
    return path, "\n".join(kept) + "\n"
