"""Selecting ops: sort / argsort / topk (NaN order, stable ties), nonzero,
masked_select, indexing with a mask or an index tensor (reads, assignment,
augmented assignment, on views), index_put_ (accumulate with duplicates),
scatter / scatter_add (in place, scalar values), where with scalar
branches, torch.nn.functional spellings."""

from case_builders import case, expr_builder, two

F47 = ("f32", [4, 7])
LIST = "List[torch.Tensor]"

expr = expr_builder(F47)


def pairs(name, calls, inputs=None):
    """Each call returns (values, indices); the program returns them all."""
    lines, names = [], []
    for k, call in enumerate(calls):
        lines.append("    v%d, i%d = %s\n" % (k, k, call))
        names += ["v%d" % k, "i%d" % k]
    src = "def f(x: torch.Tensor) -> List[torch.Tensor]:\n%s    return [%s]\n" % (
        "".join(lines), ", ".join(names))
    return case(name, src, inputs or {"x": F47})


CASES = [
    pairs("sort_last_dim", ["torch.sort(x)"]),
    pairs("sort_dim0_descending_method", ["x.sort(0, True)"]),
    pairs("sort_keywords", ["torch.sort(x, dim=-1, descending=True)"]),
    pairs("sort_nan_order", ["torch.sort(torch.log(x), dim=1)",
                             "torch.sort(torch.log(x), dim=1, descending=True)"]),
    pairs("sort_stable_ties", ["torch.sort(x, dim=1, stable=True)",
                               "x.sort(dim=0, descending=True, stable=True)"], {"x": ("i64", [5, 9], 0, 3)}),
    # Ties in lines longer than 16: the unstable sort and both topk paths
    # (partial sort for k * 64 <= n, selection otherwise) order them as
    # PyTorch does.
    pairs("ties_unstable_sort_and_topk", ["torch.sort(x, dim=1)", "x.sort(dim=1, descending=True)",
                                          "torch.topk(x, 3)", "torch.topk(x, 9, largest=False)",
                                          "torch.topk(x, 5, sorted=False)"],
          {"x": ("i64", [6, 200], 0, 4)}),
    pairs("sort_bool_stable", ["torch.sort(x > 0.0, stable=True)"]),
    expr("sort_1d", "torch.sort(x)[0] - torch.sort(x, descending=True)[0].flip([0])", {"x": ("f32", [11])}),
    expr("argsort", "[torch.argsort(x), x.argsort(dim=0, descending=True)]", ret=LIST),
    expr("argsort_then_gather", "torch.gather(x, 1, torch.argsort(x, dim=1))"),
    pairs("topk_largest", ["torch.topk(x, 3)"]),
    pairs("topk_smallest_dim0", ["x.topk(2, dim=0, largest=False)"]),
    pairs("topk_keywords_all", ["torch.topk(x, k=7, dim=1, largest=True, sorted=True)"]),
    expr("topk_unsorted_then_sorted", "torch.sort(torch.topk(x, 4, sorted=False)[0], dim=1)[0]"),
    expr("topk_zero", "torch.topk(x, 0)[0].sum(1)"),
    pairs("topk_int", ["torch.topk(x, 2)"], {"x": ("i64", [3, 6], -50, 50)}),
    expr("nonzero_int", "torch.nonzero(x)", {"x": ("i64", [3, 4], 0, 3)}),
    expr("nonzero_mask_method", "(x > 0.3).nonzero()"),
    expr("nonzero_1d_count", "torch.nonzero(x > 0.0).size(0) + x.sum()", {"x": ("f32", [9])}),
    two("masked_select_broadcast", "torch.masked_select(a, b > 0.0)", F47, ("f32", [7])),
    two("masked_select_method", "a.masked_select(b > 0.0) * 2.0", ("f32", [3, 4]), ("f32", [3, 4])),
    expr("mask_index_read", "x[x > 0.0]"),
    two("mask_index_columns", "a[:, b > 0.0]", F47, ("f32", [7])),
    two("mask_index_rows_then_slice", "a[b > 0.0, :]", F47, ("f32", [4])),
    two("int_index_rows", "a[b]", F47, ("i64", [5], -4, 4)),
    two("int_index_columns", "a[:, b]", F47, ("i64", [3], 0, 7)),
    two("int_index_2d", "a[b]", ("f32", [5, 3]), ("i64", [2, 4], 0, 5)),
    two("int_index_after_select", "a[1, b]", ("f32", [3, 6]), ("i64", [4], 0, 6)),
    two("int_index_of_1d", "a[b] + 1.0", ("f32", [8]), ("i64", [10], 0, 8)),
    case("mask_assign_scalar", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[y < 0.0] = 0.0
    return y
""", {"x": F47}),
    case("mask_assign_into_input", """
def f(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    x[:, b > 0.0] = -1.0
    return x * 2.0
""", {"x": F47, "b": ("f32", [7])}),
    case("mask_assign_selected_values", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    m = y > 0.2
    y[m] = y[m] * 10.0
    return y
""", {"x": F47}),
    case("int_index_assign_rows", """
def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(6, 3)
    idx = torch.arange(0, 6, 2)
    y[idx] = w
    return y
""", {"x": F47, "w": ("f32", [3, 3])}),
    case("int_index_assign_broadcast_and_cast", """
def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(5, 4, dtype=torch.float64)
    idx = torch.arange(1, 4, 2)
    y[idx] = w.double()
    y[:, idx] = 7
    return y
""", {"x": F47, "w": ("f32", [1, 4])}),
    case("index_aug_assign", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[torch.arange(0, 4, 2)] += 1.0
    y[y > 0.5] *= 3.0
    y[:, torch.flip(torch.arange(0, 7, 3), [0])] -= x[:, :3]
    return y
""", {"x": F47}),
    case("index_assign_through_view", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    r = y[1:3]
    r[r > 0.0] = 5.0
    return y
""", {"x": F47}),
    case("index_put_accumulate_duplicates", """
def f(x: torch.Tensor, idx: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y.index_put_((idx,), v, accumulate=True)
    return y
""", {"x": ("f32", [4, 3]), "idx": ("i64", [9], 0, 4), "v": ("f32", [9, 3])}),
    case("index_put_out_of_place", """
def f(x: torch.Tensor, v: torch.Tensor) -> List[torch.Tensor]:
    idx = torch.arange(3, 0, -1)
    y = torch.index_put(x, [idx], v)
    z = x.index_put((idx,), v, True)
    return [x, y, z]
""", {"x": ("f32", [4, 3]), "v": ("f32", [3])}),
    case("scatter_unique_rows", """
def f(x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    idx = torch.argsort(r, dim=1)[:, :3]
    return torch.zeros(3, 5).scatter(1, idx, x)
""", {"x": ("f32", [3, 4]), "r": ("f32", [3, 5])}),
    case("scatter_add_duplicates", """
def f(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    return torch.zeros(3, 5).scatter_add(1, idx, x)
""", {"x": ("f32", [3, 6]), "idx": ("i64", [3, 6], 0, 5)}),
    case("scatter_add_dim0_in_place_on_input", """
def f(y: torch.Tensor, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    y.scatter_add_(0, idx, x)
    return y + 1.0
""", {"y": ("f32", [4, 3]), "x": ("f32", [5, 3]), "idx": ("i64", [5, 3], 0, 4)}),
    case("scatter_scalar_in_place", """
def f(x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y.scatter_(1, torch.argsort(r, dim=1)[:, :2], -2.0)
    return y
""", {"x": ("f32", [3, 5]), "r": ("f32", [3, 5])}),
    case("scatter_int_tensor", """
def f(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    return torch.zeros(6, dtype=torch.int64).scatter_add(0, idx, x)
""", {"x": ("i64", [10], -5, 5), "idx": ("i64", [10], 0, 6)}),
    # A 0-dim index, src or self counts as shape [1], as in PyTorch.
    case("scatter_zero_dim_operands", """
def f(x: torch.Tensor, i: torch.Tensor, v: torch.Tensor) -> List[torch.Tensor]:
    return [torch.zeros(6).scatter_add(0, i, x), torch.zeros(6).scatter(0, i, 2.0),
            x.scatter_add(0, torch.zeros(2, dtype=torch.int64), v), torch.zeros(6).scatter(0, i, v)]
""", {"x": ("f32", []), "i": ("i64", [], 0, 6), "v": ("f32", [3])}),
    expr("where_scalar_branches", "[torch.where(x > 0.0, x, 0.0), torch.where(x > 0.0, 1.0, -1.0), torch.where(x < 0.5, 2, x)]",
         ret=LIST),
    case("functional_spellings", """
import torch.nn.functional as F

def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> List[torch.Tensor]:
    h = F.linear(x, w, b)
    return [F.relu(h), F.gelu(h), F.silu(h), F.softmax(h, dim=1), F.log_softmax(h, -1),
            torch.nn.functional.sigmoid(h), F.tanh(h), F.gelu(h, approximate="tanh")]
""", {"x": ("f32", [3, 5]), "w": ("f32", [4, 5]), "b": ("f32", [4])}),
    case("topk_of_softmax_select_rows", """
def f(logits: torch.Tensor, emb: torch.Tensor) -> List[torch.Tensor]:
    p = torch.softmax(logits, dim=-1)
    vals, ids = torch.topk(p, 2, dim=-1)
    rows = emb[ids.flatten()]
    return [vals, rows.view(4, 2, 3).sum(1)]
""", {"logits": ("f32", [4, 10]), "emb": ("f32", [10, 3])}),
]
