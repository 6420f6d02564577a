"""Copying ops: clone, cat/stack (dims, lists from loops, type promotion,
empty parts), index_select, gather, dtype conversions, repeat, flip,
tril/triu."""

from case_builders import case, expr_builder, two

F34 = ("f32", [3, 4])
LIST = "List[torch.Tensor]"


expr = expr_builder(F34)


CASES = [
    case("clone_is_independent", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x.clone()
    y.mul_(2.0)
    z = torch.clone(x.t())
    return y, z
""", {"x": F34}),
    two("cat_dim0", "torch.cat([a, b])", ("f32", [2, 3]), ("f32", [4, 3])),
    two("cat_dim1_neg", "torch.cat([a, b, a], -1)", ("f32", [2, 3]), ("f32", [2, 1])),
    two("cat_keyword_dim", "torch.cat([a, b], dim=1)", ("f32", [2, 3]), ("f32", [2, 2])),
    two("cat_empty_part", "torch.cat([a, b], 0)", ("f32", [0, 3]), ("f32", [2, 3])),
    two("cat_promotes", "torch.cat([a, b], 0)", ("i64", [2, 3], 0, 9), ("f32", [1, 3])),
    two("cat_views", "torch.cat([a.t(), b[:, 1:]], 1)", ("f32", [3, 2]), ("f32", [2, 4])),
    two("stack_dims", "[torch.stack([a, b]), torch.stack([a, b], 1), torch.stack([a, b], -1)]",
        ("f32", [2, 3]), ("f32", [2, 3]), ret=LIST),
    two("stack_int", "torch.stack([a, b, a], 0)", ("i64", [4], 0, 9), ("i64", [4], 0, 9)),
    two("index_select", "[torch.index_select(a, 0, b), a.index_select(-1, b)]", ("f32", [4, 4]),
        ("i64", [6], 0, 4), ret=LIST),
    two("index_select_i32_index", "a.index_select(1, b)", ("f32", [2, 5]), ("i32", [3], 0, 5)),
    two("gather", "torch.gather(a, 1, b)", ("f32", [3, 5]), ("i64", [3, 4], 0, 5)),
    two("gather_dim0_method", "a.gather(0, b)", ("f32", [4, 3]), ("i64", [2, 3], 0, 4)),
    two("gather_neg_dim_3d", "a.gather(-1, b)", ("f32", [2, 3, 4]), ("i64", [2, 3, 2], 0, 4)),
    expr("to_dtypes", "[x.to(torch.float64), (x * 10.0).to(torch.int64), x.to(torch.int32),"
         " x.to(torch.bool), x.to(torch.float32)]", ret=LIST),
    expr("float_long", "[(x * 5.0).long(), (x * 5.0).long().float()]", ret=LIST),
    expr("int_to_float_and_bool", "[x.float(), x.to(torch.bool), x.to(torch.int32)]",
         {"x": ("i64", [5], -2, 3)}, ret=LIST),
    expr("bool_to_numbers", "[x.long(), x.float(), x.to(torch.float64)]", {"x": ("bool", [4])},
         ret=LIST),
    expr("to_then_math", "x.to(torch.float64) / 3"),
    expr("repeat", "[x.repeat(2, 1), x.repeat([1, 2, 2])]", ret=LIST),
    expr("flip", "[x.flip(0), torch.flip(x, [0, -1])]", ret=LIST),
    expr("tril_triu", "[x.tril(), torch.triu(x, 1), x.tril(-1), torch.triu(x, -2)]",
         {"x": ("f32", [4, 5])}, ret=LIST),
    case("cat_in_loop_growing", """
def f(x: torch.Tensor) -> torch.Tensor:
    out = x[:1]
    for i in range(1, x.shape[0]):
        out = torch.cat([out, x[i:i + 1] + out[-1:]], 0)
    return out
""", {"x": F34}),
    case("stack_unbind_roundtrip", """
def f(x: torch.Tensor) -> torch.Tensor:
    rows = x.unbind(1)
    return torch.stack(rows, 0)
""", {"x": F34}),
    case("embedding_lookup", """
def f(table: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    flat = table.index_select(0, ids.view(-1))
    return flat.view(ids.shape[0], ids.shape[1], table.shape[1])
""", {"table": ("f32", [10, 4]), "ids": ("i64", [2, 3], 0, 10)}),
]

CASES += [
    two("gather_smaller_index", "a.gather(1, b)", ("f32", [4, 5]), ("i64", [2, 3], 0, 5)),
    two("gather_noncontiguous", "a.t().gather(0, b.t())", ("f32", [5, 4]), ("i64", [3, 2], 0, 4)),
    two("index_select_repeated_and_view", "a.t().index_select(0, b)", ("f32", [3, 5]),
        ("i64", [7], 0, 5)),
    two("index_select_empty_index", "a.index_select(0, b)", ("f32", [3, 5]), ("i64", [0], 0, 3)),
    two("cat_int_promotions", "[torch.cat([a, b]), torch.cat([b, b > 0])]", ("i32", [3], -5, 5),
        ("i64", [2], -5, 5), ret=LIST),
    two("stack_zero_dim", "torch.stack([a.sum(), b.sum(), a[0]])", ("f32", [3]), ("f32", [4])),
    expr("repeat_zero_and_flip_views", "[x.repeat(0, 2), x.t().flip(0), x[:, ::2].flip(-1)]",
         ret=LIST),
    expr("tril_triu_batched_far_diagonals", "[x.tril(), x.triu(2), x.tril(-5), x.triu(10)]",
         {"x": ("f32", [2, 3, 4])}, ret=LIST),
    expr("f64_to_f32_rounding", "x.to(torch.float32) * 1.0", {"x": ("f64", [5], -1e6, 1e6)}),
    expr("int_to_bool_and_back", "[x.to(torch.bool), x.to(torch.bool).to(torch.int32)]",
         {"x": ("i64", [8], -2, 3)}, ret=LIST),
]
