"""Reductions: sum/mean/prod/amax/amin/max/min/argmax/argmin/var/std,
softmax family, logsumexp, cumsum/cumprod, all/any, norm; dim lists,
negative dims, keepdim, dtype arguments, empty and size-1 dims."""

from case_builders import case, expr_builder

F234 = ("f32", [2, 3, 4])


expr = expr_builder(F234)


LIST = "List[torch.Tensor]"

CASES = [
    expr("sum_all", "x.sum()"),
    expr("sum_dim", "torch.sum(x, 1)"),
    expr("sum_neg_dim_keepdim", "x.sum(-1, keepdim=True)"),
    expr("sum_dim_list", "x.sum([0, 2])"),
    expr("sum_dim_list_neg_keepdim", "torch.sum(x, [-1, 0], True)"),
    expr("sum_dtype_f64", "x.sum(dtype=torch.float64)"),
    expr("sum_dim_dtype", "x.sum(1, dtype=torch.float64)"),
    expr("sum_int_gives_int64", "x.sum(0)", {"x": ("i32", [3, 4], -9, 9)}),
    expr("sum_bool_counts", "x.sum()", {"x": ("bool", [5, 6])}),
    expr("sum_empty_dim", "x.sum(0)", {"x": ("f32", [0, 3])}),
    expr("sum_size_one_dim", "x.sum(1)", {"x": ("f32", [4, 1, 2])}),
    expr("mean_all", "x.mean()"),
    expr("mean_dim_keepdim", "torch.mean(x, -2, True)"),
    expr("mean_dim_list", "x.mean([1, 2])"),
    expr("mean_dtype", "x.mean(0, dtype=torch.float64)"),
    expr("prod_all", "x.prod()", {"x": ("f32", [2, 3], 0.5, 1.5)}),
    expr("prod_dim", "torch.prod(x, 1, keepdim=True)"),
    expr("prod_int", "x.prod(-1)", {"x": ("i64", [3, 4], -3, 4)}),
    expr("amax_amin_lists", "[x.amax([0, 2]), torch.amin(x, -1, True), x.amax()]", ret=LIST),
    expr("amax_int", "x.amax(1)", {"x": ("i64", [3, 5], -50, 50)}),
    expr("max_all", "[x.max(), torch.min(x)]", ret=LIST),
    case("max_dim_values_indices", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    v, i = x.max(1)
    return v, i
""", {"x": F234}),
    case("min_dim_keepdim", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    v, i = torch.min(x, -1, keepdim=True)
    return v * 2.0, i + 1
""", {"x": F234}),
    case("max_dim_tuple_index", """
def f(x: torch.Tensor) -> torch.Tensor:
    return x.max(0)[0] + x.min(0)[1]
""", {"x": ("f32", [5, 3])}),
    case("max_min_binary", """
def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
    return [torch.max(x, y), x.min(y)]
""", {"x": ("f32", [3, 4]), "y": ("f32", [4])}),
    expr("argmax_all", "[x.argmax(), torch.argmin(x)]", ret=LIST),
    expr("argmax_dim_keepdim", "[torch.argmax(x, 1), x.argmin(-1, keepdim=True)]", ret=LIST),
    expr("var_std_all", "[x.var(), x.std(), x.var(False), torch.std(x, unbiased=False)]",
         ret=LIST),
    expr("var_dim", "[x.var(1), torch.std(x, [0, 2], keepdim=True)]", ret=LIST),
    expr("var_dim_biased_keepdim", "x.var(-1, unbiased=False, keepdim=True)"),
    expr("softmax_last", "torch.softmax(x, -1)"),
    expr("softmax_dim0_method", "x.softmax(0)"),
    expr("softmax_large_values", "torch.softmax(x * 100.0, 1)"),
    expr("softmax_dtype", "torch.softmax(x, 1, dtype=torch.float64)"),
    # Long rows (1.2 and 1.3 MB, past a core's L2 share), their exps of
    # x - max x by EXP_NONPOS's kernel; 4100 columns are not a whole number
    # of vectors or of the exp pass's prefetch chunks.
    expr("softmax_long_rows", "torch.softmax(x * 30.0, -1)", {"x": ("f32", [72, 4100])}),
    expr("log_softmax_logsumexp_long_rows", "[torch.log_softmax(x * 30.0, 1), torch.logsumexp(x, 1)]",
         {"x": ("f32", [40, 8200])}, ret=LIST),
    expr("log_softmax", "[torch.log_softmax(x, 1), x.log_softmax(-1)]", ret=LIST),
    expr("logsumexp", "[torch.logsumexp(x, 1), x.logsumexp([0, 2], keepdim=True)]", ret=LIST),
    expr("cumsum", "[torch.cumsum(x, 1), x.cumsum(-1)]", ret=LIST),
    expr("cumsum_int", "x.cumsum(0)", {"x": ("i32", [4, 3], -5, 5)}),
    expr("cumsum_dtype", "x.cumsum(1, dtype=torch.float64)"),
    expr("cumprod", "torch.cumprod(x, 2)", {"x": ("f32", [2, 3, 4], 0.5, 1.5)}),
    expr("all_any", "[x.all(), torch.any(x), x.all(1), torch.any(x, 0, True)]",
         {"x": ("bool", [4, 3])}, ret=LIST),
    expr("all_any_of_compare", "[(x > -0.9).all(), (x > 0.9).any(-1)]", ret=LIST),
    expr("norm", "[x.norm(), torch.norm(x, 1)]", ret=LIST),
    case("reductions_compose", """
def f(x: torch.Tensor) -> torch.Tensor:
    m = x.mean(-1, keepdim=True)
    v = ((x - m) ** 2).mean(-1, keepdim=True)
    return (x - m) / torch.sqrt(v + 1e-5)
""", {"x": ("f32", [3, 8])}),
    expr("reduce_view", "x.t().sum(1)", {"x": ("f32", [3, 5])}),
    expr("reduce_f64", "[x.sum(1), x.var(0), x.softmax(-1)]", {"x": ("f64", [3, 4])}, ret=LIST),
]

CASES += [
    expr("sum_noncontiguous_unsorted_dims", "x.permute(2, 0, 1).sum([-1, 0], keepdim=True)"),
    expr("var_noncontiguous_dim_list", "x.transpose(0, 2).var([0, 2], keepdim=True)"),
    expr("softmax_dim0_of_transpose", "x.t().softmax(0)", {"x": ("f32", [4, 6])}),
    expr("cumsum_noncontiguous", "x.t().cumsum(0)", {"x": ("f32", [4, 6])}),
    expr("logsumexp_all_neg_inf_row", "torch.logsumexp(torch.log(x * (x > 0).float()), [1])",
         {"x": ("f32", [6, 3])}),
    expr("sum_dtype_truncates_first", "[(x * 10.0).sum(dtype=torch.int64), (x * 10.0).cumsum(0, dtype=torch.int32)]",
         ret=LIST),
    expr("mean_of_empty_is_nan", "[x.mean(0), x.mean()]", {"x": ("f32", [0, 2])}, ret=LIST),
    expr("prod_bool_and_int32", "[x.prod(), (x > 0).prod(1), x.to(torch.int32).prod(0)]",
         {"x": ("i64", [3, 2], -3, 4)}, ret=LIST),
    expr("std_mean_f64_large", "[x.std(1), x.mean(0), x.sum()]", {"x": ("f64", [50, 80], -100.0, 100.0)},
         ret=LIST),
]
