"""Greedy shrinking of a failing program on its Python AST.

Edits, most aggressive first: delete a helper function or a statement,
replace a loop or branch by its body, drop an element of the returned
tuple, put a subexpression in place of its expression, drop an element of
a list literal, run a loop once. `shrink` keeps every edit after which
`still_fails(src)` holds and goes on until no edit helps (or time runs
out). Candidates that are no longer valid programs are the caller's to
reject (the test runs them under PyTorch first).
"""
import ast
import copy
import time

MODULES = ("torch",)


def is_module_ref(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in MODULES


def stmt_lists(tree):
    """(node, field) of every statement list inside the functions."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module):
            continue
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                out.append((node, field))
    return out


def expr_slots(tree):
    """(parent, field, index) of every expression that could be replaced:
    not assignment targets, annotations, called functions or module paths."""
    out = []
    for parent in ast.walk(tree):
        if isinstance(parent, ast.arg):
            continue
        for field, value in ast.iter_fields(parent):
            if field in ("annotation", "returns", "func", "targets", "target"):
                continue
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                if isinstance(item, ast.expr) and not isinstance(item, (ast.Name, ast.Constant)) \
                        and not is_module_ref(item):
                    out.append((parent, field, i if isinstance(value, list) else None))
    return out


def children(node):
    """Subexpressions that may stand in for node."""
    if isinstance(node, ast.Call):
        kids = list(node.args) + [k.value for k in node.keywords]
        if isinstance(node.func, ast.Attribute) and not is_module_ref(node.func.value):
            kids.insert(0, node.func.value)
        return kids
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Compare):
        return [node.left] + node.comparators
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, (ast.Subscript, ast.Attribute)):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    return []


def get_slot(parent, field, index):
    value = getattr(parent, field)
    return value[index] if index is not None else value


def set_slot(parent, field, index, node):
    if index is None:
        setattr(parent, field, node)
    else:
        getattr(parent, field)[index] = node


# ---- edits: each maps (tree, k) to a changed copy, or None when k is past the end


def delete_statement(tree, k):
    for node, field in stmt_lists(tree):
        body = getattr(node, field)
        for j in range(len(body) - 1, -1, -1):
            if isinstance(body[j], ast.Return):
                continue
            if k == 0:
                del body[j]
                if not body and field == "body":
                    body.append(ast.Pass())
                return tree
            k -= 1
    return None


def delete_function(tree, k):
    """Drops a function other than the last (the one the program runs)."""
    defs = [i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef)][:-1]
    if k >= len(defs):
        return None
    del tree.body[defs[k]]
    return tree


def unwrap_compound(tree, k):
    for node, field in stmt_lists(tree):
        body = getattr(node, field)
        for j, stmt in enumerate(body):
            variants = []
            if isinstance(stmt, ast.If):
                variants = [stmt.body] + ([stmt.orelse] if stmt.orelse else [])
            elif isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
                first = ast.Assign(targets=[ast.Name(stmt.target.id, ast.Store())],
                                   value=ast.Constant(0), lineno=0)
                variants = [[first] + stmt.body]
            if k < len(variants):
                body[j:j + 1] = variants[k]
                return tree
            k -= len(variants)
    return None


def run_loop_once(tree, k):
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and \
                isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range" and \
                not (isinstance(node.iter.args[0], ast.Constant) and node.iter.args[0].value == 1):
            if k == 0:
                node.iter.args = [ast.Constant(1)]
                return tree
            k -= 1
    return None


def drop_return_element(tree, k):
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        ann = fn.returns
        if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and
                ann.value.id == "Tuple" and isinstance(ann.slice, ast.Tuple)):
            continue
        returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and
                   isinstance(n.value, ast.Tuple)]
        count = len(ann.slice.elts)
        if not returns or any(len(r.value.elts) != count for r in returns):
            continue
        if k < count:
            del ann.slice.elts[k]
            for r in returns:
                del r.value.elts[k]
                if count == 2:
                    r.value = r.value.elts[0]
            if count == 2:
                fn.returns = ann.slice.elts[0]
            return tree
        k -= count
    return None


def replace_by_child(tree, k):
    for parent, field, index in expr_slots(tree):
        kids = children(get_slot(parent, field, index))
        if k < len(kids):
            set_slot(parent, field, index, kids[k])
            return tree
        k -= len(kids)
    return None


def drop_list_element(tree, k):
    for node in ast.walk(tree):
        if isinstance(node, ast.List) and len(node.elts) >= 2:
            if k < len(node.elts):
                del node.elts[k]
                return tree
            k -= len(node.elts)
    return None


EDITS = [delete_function, delete_statement, unwrap_compound, drop_return_element, replace_by_child,
         drop_list_element, run_loop_once]


def shrink(src, still_fails, seconds=120.0):
    """The smallest variant of src found on which still_fails holds (src
    itself when none is)."""
    deadline = time.monotonic() + seconds
    tree = ast.parse(src)
    seen = {ast.unparse(tree)}
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for edit in EDITS:
            k = 0
            while time.monotonic() < deadline:
                candidate = edit(copy.deepcopy(tree), k)
                if candidate is None:
                    break
                text = ast.unparse(ast.fix_missing_locations(candidate))
                if text not in seen:
                    seen.add(text)
                    if still_fails(text + "\n"):
                        tree, changed = candidate, True
                        continue  # the same k now names the next candidate
                k += 1
    return ast.unparse(tree) + "\n"


def parameters(src, fn_name):
    """Names of fn's parameters in src."""
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.FunctionDef) and node.name == fn_name:
            return [a.arg for a in node.args.args]
    return []


def drop_unused_parameters(src, fn_name):
    tree = ast.parse(src)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == fn_name:
            used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            node.args.args = [a for a in node.args.args if a.arg in used]
    return ast.unparse(tree) + "\n"
