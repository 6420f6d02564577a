"""Contractions: matmul in every rank combination (with batch broadcasting),
the @ operator, mm, bmm, einsum (explicit/implicit output, traces, outer and
three-operand products), linear with and without bias."""

from case_builders import case

LIST = "List[torch.Tensor]"


def binary(name, body, a, b):
    src = "def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n    return %s\n" % body
    return case(name, src, {"a": a, "b": b})


def f32(*shape):
    return ("f32", list(shape))


CASES = [
    binary("matmul_2d", "torch.matmul(a, b)", f32(3, 5), f32(5, 4)),
    binary("matmul_1d_1d", "a.matmul(b)", f32(7), f32(7)),
    binary("matmul_1d_2d", "a @ b", f32(5), f32(5, 3)),
    binary("matmul_2d_1d", "a @ b", f32(4, 5), f32(5)),
    binary("matmul_3d_2d", "a @ b", f32(2, 3, 5), f32(5, 4)),
    binary("matmul_2d_3d", "a @ b", f32(3, 5), f32(2, 5, 4)),
    binary("matmul_1d_3d", "torch.matmul(a, b)", f32(5), f32(2, 5, 4)),
    binary("matmul_3d_1d", "torch.matmul(a, b)", f32(2, 3, 5), f32(5)),
    binary("matmul_batch_broadcast", "a @ b", f32(2, 1, 3, 4), f32(5, 4, 2)),
    binary("matmul_transposed_views", "a.t() @ b[:, ::2]", f32(5, 3), f32(5, 8)),
    binary("matmul_f64", "a @ b", ("f64", [3, 4]), ("f64", [4, 2])),
    binary("matmul_int64", "a @ b", ("i64", [3, 4], -5, 5), ("i64", [4, 2], -5, 5)),
    binary("matmul_k_zero", "a @ b", f32(3, 0), f32(0, 2)),
    binary("matmul_chain", "(a @ b).relu() @ b.t()", f32(3, 16), f32(16, 8)),
    binary("mm", "torch.mm(a, b) + a.mm(b)", f32(3, 6), f32(6, 2)),
    binary("bmm", "torch.bmm(a, b)", f32(4, 2, 3), f32(4, 3, 5)),
    binary("bmm_method_views", "a.transpose(1, 2).bmm(b)", f32(4, 3, 2), f32(4, 3, 5)),
    binary("einsum_mm", "torch.einsum('ij,jk->ik', [a, b])", f32(3, 4), f32(4, 5)),
    binary("einsum_varargs", "torch.einsum('ij,jk->ki', a, b)", f32(3, 4), f32(4, 5)),
    binary("einsum_batch", "torch.einsum('bij,bjk->bik', [a, b])", f32(2, 3, 4), f32(2, 4, 5)),
    binary("einsum_implicit_output", "torch.einsum('ij,jk', [a, b])", f32(3, 4), f32(4, 5)),
    binary("einsum_outer", "torch.einsum('i,j->ij', [a, b])", f32(3), f32(4)),
    binary("einsum_dot", "torch.einsum('i,i->', [a, b])", f32(6), f32(6)),
    binary("einsum_attention_scores", "torch.einsum('bhqd,bhkd->bhqk', [a, b])",
           f32(2, 2, 3, 4), f32(2, 2, 5, 4)),
    case("einsum_unary", """
def f(a: torch.Tensor) -> List[torch.Tensor]:
    return [torch.einsum('ii->i', [a]), torch.einsum('ii', [a]), torch.einsum('ij->ji', [a]),
            torch.einsum('ij->', [a])]
""", {"a": f32(4, 4)}),
    case("einsum_three_operands", """
def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    return torch.einsum('ij,jk,kl->il', [a, b, c])
""", {"a": f32(2, 3), "b": f32(3, 4), "c": f32(4, 5)}),
    case("einsum_broadcast_batch_dim", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.einsum('bij,jk->bik', [a, b])
""", {"a": f32(3, 2, 4), "b": f32(4, 6)}),
    case("linear_bias", """
def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.linear(x, w, b)
""", {"x": f32(4, 5), "w": f32(3, 5), "b": f32(3)}),
    case("linear_no_bias_3d", """
def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.linear(x, w)
""", {"x": f32(2, 4, 5), "w": f32(3, 5)}),
    case("linear_1d_input", """
def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.linear(x, w, b)
""", {"x": f32(5), "w": f32(3, 5), "b": f32(3)}),
    case("mlp", """
def f(x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor) -> torch.Tensor:
    h = torch.relu(x @ w1 + b1)
    return torch.softmax(h @ w2, -1)
""", {"x": f32(4, 8), "w1": f32(8, 16), "b1": f32(16), "w2": f32(16, 3)}),
    case("attention", """
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    s = q @ k.transpose(-2, -1) / float(q.shape[-1]) ** 0.5
    return torch.softmax(s, -1) @ v
""", {"q": f32(2, 3, 4), "k": f32(2, 5, 4), "v": f32(2, 5, 6)}),
]

CASES += [
    binary("matmul_expanded_batch", "a.expand(3, 4, 5) @ b", f32(1, 4, 5), f32(3, 5, 2)),
    binary("bmm_expanded_batch", "torch.bmm(a.expand(3, 2, 4), b.transpose(1, 2))", f32(1, 2, 4),
           f32(3, 6, 4)),
    binary("mm_strided_both", "a[:, ::2] @ b[::3]", f32(4, 10), f32(15, 3)),
    binary("matmul_empty_batch", "a @ b", f32(0, 3), f32(3, 2)),
    binary("einsum_ellipsis", "torch.einsum('...ij,...jk->...ik', [a, b])", f32(2, 3, 4), f32(2, 4, 5)),
    binary("einsum_spaces_uppercase", "torch.einsum('Ab, bC -> AC', [a, b])", f32(3, 4), f32(4, 2)),
    binary("einsum_elementwise_and_rowdot", "torch.einsum('ij,ij->i', [a, b]) + torch.einsum('ij,ij->ij', [a, b]).sum(1)",
           f32(3, 4), f32(3, 4)),
    binary("einsum_permute_only", "torch.einsum('bij->jbi', [a]) + b", f32(2, 3, 4), f32(2, 3)),
    case("einsum_bilinear", """
def f(x: torch.Tensor, w: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.einsum('bn,anm,bm->ba', [x, w, y])
""", {"x": f32(2, 3), "w": f32(5, 3, 4), "y": f32(2, 4)}),
    case("einsum_noncontiguous_operands", """
def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.einsum('ij,kj->ik', [a.t(), b[:, ::2]])
""", {"a": f32(5, 3), "b": f32(4, 10)}),
]

# Products large enough for the predefined contraction kernel, their
# epilogues combining tensors of C's shape: a residual after a bias and
# relu, SwiGLU's gate, linear's output gated by tanh plus a residual.
EPILOGUE_SHAPES = {"x": f32(16, 256), "w": f32(256, 96), "w2": f32(256, 96), "wl": f32(96, 256),
                   "b": f32(96), "r": f32(16, 96), "g": f32(16, 96)}


def epilogue_case(name, body):
    src = ("def f(x: torch.Tensor, w: torch.Tensor, w2: torch.Tensor, wl: torch.Tensor, b: torch.Tensor,\n"
           "      r: torch.Tensor, g: torch.Tensor) -> torch.Tensor:\n    return %s\n" % body)
    return case(name, src, EPILOGUE_SHAPES)


CASES += [
    epilogue_case("epilogue_bias_relu_residual", "torch.relu(x @ w + b) + r"),
    epilogue_case("epilogue_swiglu", "torch.nn.functional.silu(x @ w) * (x @ w2)"),
    epilogue_case("epilogue_linear_tanh_gate_residual", "torch.nn.functional.linear(x, wl, b) * torch.tanh(g) + r"),
]
