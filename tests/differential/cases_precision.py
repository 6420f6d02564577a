"""Numerical accuracy on long reductions: results must stay within the
default tolerance of PyTorch's (which sums f32 pairwise and accumulates
cumsum, var and std with extra precision)."""

from case_builders import case, expr_builder

expr = expr_builder()


LIST = "List[torch.Tensor]"
LONG = ("f32", [1000000], 0.0, 1.0)

CASES = [
    expr("sum_mean_one_million", "[x.sum(), x.mean(), x.view(1000, 1000).sum(0)]", {"x": LONG},
         ret=LIST),
    expr("cumsum_one_million", "x.cumsum(0)", {"x": LONG}),
    expr("var_std_with_large_offset", "[x.var(), x.std(), x.view(100, 1000).var(1)]",
         {"x": ("f32", [100000], 1000.0, 1001.0)}, ret=LIST),
    expr("softmax_logsumexp_long_rows", "[x.view(10, -1).softmax(1), x.view(10, -1).logsumexp([1])]",
         {"x": ("f32", [200000], -20.0, 20.0)}, ret=LIST),
    expr("prod_many_near_one", "x.prod()", {"x": ("f32", [10000], 0.9999, 1.0001)}),
    expr("norm_long", "x.norm()", {"x": LONG}),
    # K = 10000 with cancellation: PyTorch's own f32 result is off from the
    # exact (f64) product by up to ~4e-5 on these inputs, so agreement with
    # it can only be asked to that order; ours sums in double.
    expr("matmul_long_k", "x.view(4, -1) @ x.view(-1, 4)", {"x": ("f32", [40000])},
         tol=(1e-4, 1e-4)),
]
