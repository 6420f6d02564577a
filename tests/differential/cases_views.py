"""Shape ops and views: view/reshape/permute/transpose/t/unsqueeze/squeeze/
expand/flatten/contiguous, indexing (ints, slices with steps, ..., None),
narrow/chunk/split/unbind/movedim, size queries, views of views."""

from case_builders import case, expr_builder

F234 = ("f32", [2, 3, 4])


expr = expr_builder(F234)


LIST = "List[torch.Tensor]"

CASES = [
    expr("view_varargs", "x.view(6, 4)"),
    expr("view_list_infer", "x.view([4, -1])"),
    expr("view_then_math", "x.view(-1) * 2.0"),
    expr("reshape_contiguous", "x.reshape(3, 8)"),
    expr("reshape_noncontiguous", "x.transpose(0, 2).reshape(-1)"),
    expr("reshape_function", "torch.reshape(x, [2, 12])"),
    case("view_as_reshape_as", """
def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    return [x.view_as(y), x.t().reshape_as(y)]
""", {"x": ("f32", [4, 6]), "y": ("f32", [3, 8])}),
    expr("permute", "x.permute(2, 0, 1)"),
    expr("permute_list_neg", "torch.permute(x, [-1, -3, -2])"),
    expr("transpose_neg_dims", "x.transpose(-1, -3)"),
    expr("transpose_function", "torch.transpose(x, 0, 1) + 1.0"),
    expr("t_2d", "x.t()", {"x": ("f32", [3, 5])}),
    expr("t_1d", "torch.t(x)", {"x": ("f32", [5])}),
    expr("unsqueeze", "[x.unsqueeze(0), torch.unsqueeze(x, -1), x.unsqueeze(2)]", ret=LIST),
    expr("squeeze_all", "x.squeeze()", {"x": ("f32", [1, 3, 1, 2])}),
    expr("squeeze_dim", "[x.squeeze(2), torch.squeeze(x, -4), x.squeeze(1)]",
         {"x": ("f32", [1, 3, 1, 2])}, ret=LIST),
    expr("expand", "x.expand(3, 4)", {"x": ("f32", [1, 4])}),
    expr("expand_minus_one_new_dims", "x.expand(2, -1, 5)", {"x": ("f32", [3, 1])}),
    case("expand_as", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x.expand_as(y) + y
""", {"x": ("f32", [3, 1]), "y": ("f32", [2, 3, 4])}),
    expr("flatten_default", "x.flatten()"),
    expr("flatten_range", "[torch.flatten(x, 1), x.flatten(0, 1), x.flatten(-2, -1)]", ret=LIST),
    expr("contiguous_after_transpose", "x.transpose(0, 1).contiguous().view(-1)"),
    expr("index_int", "x[1]"),
    expr("index_neg_int_multi", "x[-1, 2]"),
    expr("index_all_ints_zero_dim", "x[1, 2, 3]"),
    expr("slice_basic", "x[:, 1:]"),
    expr("slice_negative_bounds", "x[:, -2:, :-1]"),
    expr("slice_step", "x[:, ::2, 1::2]"),
    expr("slice_out_of_range_clamps", "x[1:100, -100:2]"),
    expr("slice_empty", "x[:, 2:1]"),
    expr("ellipsis_last", "x[..., 0]"),
    expr("ellipsis_slice", "x[..., 1:3]"),
    expr("ellipsis_middle", "x[0, ..., 1]"),
    expr("none_index", "[x[None], x[:, None], x[..., None]]", ret=LIST),
    expr("select_function", "torch.select(x, 1, -1)"),
    expr("narrow", "[x.narrow(2, 1, 2), torch.narrow(x, -2, 0, 1)]", ret=LIST),
    expr("chunk_even", "x.chunk(2, -1)", ret=LIST),
    expr("chunk_uneven", "torch.chunk(x, 3, 2)", {"x": ("f32", [2, 3, 5])}, ret=LIST),
    case("chunk_unpack", """
def f(x: torch.Tensor) -> torch.Tensor:
    i, f, g, o = x.chunk(4, 1)
    return torch.sigmoid(i) * torch.tanh(g) + f * o
""", {"x": ("f32", [3, 8])}),
    expr("split_int", "x.split(3, 1)", {"x": ("f32", [2, 7])}, ret=LIST),
    expr("split_sizes", "torch.split(x, [1, 4, 2], -1)", {"x": ("f32", [2, 7])}, ret=LIST),
    expr("unbind", "x.unbind(1)", ret=LIST),
    case("unbind_unpack", """
def f(x: torch.Tensor) -> torch.Tensor:
    a, b, c = torch.unbind(x, -1)
    return a * b - c
""", {"x": ("f32", [4, 3])}),
    expr("movedim", "x.movedim(0, -1)"),
    case("size_queries", """
def f(x: torch.Tensor) -> List[int]:
    return [x.size(0), x.size(-1), x.shape[1], x.dim(), x.numel(), len(x.size())]
""", {"x": F234}),
    case("size_list_output", """
def f(x: torch.Tensor) -> List[int]:
    return x.size()
""", {"x": F234}),
    case("shape_arith_view", """
def f(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0] * x.shape[1]
    return x.view(n // 2, x.size(-1) * 2)
""", {"x": ("f32", [4, 3, 2])}),
    expr("view_of_view_chain", "x.t()[1:, ::2].unsqueeze(0)", {"x": ("f32", [4, 6])}),
    expr("view_of_view_deep", "x.permute(1, 0, 2)[1:].reshape(2, 2, 4)[:, 1].t()"),
    expr("views_of_int_tensor", "x.t()[::2] + 1", {"x": ("i64", [3, 4], 0, 10)}),
    expr("views_of_bool_tensor", "x.unsqueeze(0).expand(2, 3, 4)[1, :, 1:]", {"x": ("bool", [3, 4])}),
    expr("zero_dim_select_then_math", "x[0, 0] * x", {"x": ("f32", [2, 2])}),
]

# Views whose strides are not the contiguous ones: PyTorch keeps them views
# when it can (and so do writes through them).
CASES += [
    expr("view_splits_dim_of_transpose", "x.t().view(2, 2, 3)", {"x": ("f32", [3, 4])}),
    expr("view_of_transposed_size_one", "x.t().view(-1)", {"x": ("f32", [1, 4])}),
    expr("view_merges_contiguous_slice", "x[1:3].view(-1)", {"x": ("f32", [4, 3])}),
    expr("view_keeps_sliced_columns", "x[:, 1:3].view(3, 2, 1)", {"x": ("f32", [3, 4])}),
    case("reshape_view_compatible_aliases", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x.t().reshape(2, 2, 3)
    y[0, 0, 0] = 100.0
    y[1, 1] = -1.0
    return x
""", {"x": ("f32", [3, 4])}),
    case("contiguous_of_size_one_transpose_aliases", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = x.t().contiguous()
    y.add_(1.0)
    return x
""", {"x": ("f32", [1, 4])}),
    case("flatten_of_noncontiguous_copies", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    y = x[:, ::2].flatten()
    y.zero_()
    return x, y
""", {"x": ("f32", [3, 4])}),
    case("write_through_view_of_strided_slice", """
def f(x: torch.Tensor) -> torch.Tensor:
    v = x.view(-1, 2)[::2]
    v[:, 1] = 0.0
    w = x.t()[1:].unsqueeze(1)
    w.mul_(-1.0)
    return x
""", {"x": ("f32", [4, 4])}),
    expr("squeeze_negative_dims_noncontiguous", "x.permute(2, 1, 0)[:, :1].squeeze(-2).unsqueeze(-1)",
         {"x": ("f32", [2, 3, 4])}),
    expr("zero_dim_views", "[x.sum().view(1), x.sum().unsqueeze(0), x.sum().reshape(-1),"
         " x.sum().flatten(), x.sum().expand(2, 3), x[0, 0, 0].view([])]", ret=LIST),
    expr("narrow_negative_start", "[x.narrow(0, -2, 2), x.narrow(-1, 1, 0)]", {"x": ("f32", [4, 3])},
         ret=LIST),
    expr("chunk_more_than_size", "x.chunk(5, 0)", {"x": ("f32", [3, 2])}, ret=LIST),
    expr("split_larger_than_dim", "x.split(10, 1)", {"x": ("f32", [3, 2])}, ret=LIST),
    expr("movedim_negative", "x.movedim(-1, 0)"),
    expr("index_mixed_none_ellipsis", "[x[None, ..., 1], x[:, None, 1:3], x[1, None, :, None]]",
         ret=LIST),
]
