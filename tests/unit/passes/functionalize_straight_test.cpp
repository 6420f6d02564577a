// functionalize on straight-line programs: views of views, several views of
// one base, overlapping slices, in-place ops, writes into inputs.
#include "functionalize_test_util.h"

namespace stitch::functionalize_test {
namespace {

std::vector<Program> straightLinePrograms() {
  return {
      {"add_inplace", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    z = x.clone()
    z.add_(y)
    z.mul_(2.0)
    return z
)", {T({3, 4}), T({4})}},
      {"subscript_row", R"(
def f(x: torch.Tensor, i: int):
    b = x.clone()
    b[i] = b[i] + 1
    return b
)", {T({4, 3}), I(2)}},
      {"normalize", R"(
def f(src: torch.Tensor, mean: float, scale: float):
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
)", {T({5, 6, 3}), F(0.25), F(1.5)}},
      {"view_of_view", R"(
def f(x: torch.Tensor):
    b = x.clone()
    v = b[1]
    w = v[1:3]
    w.mul_(3.0)
    return b, v, w
)", {T({3, 4})}},
      {"two_views_one_base", R"(
def f(x: torch.Tensor):
    b = x.clone()
    r = b[0]
    c = b[:, 1]
    r.fill_(2.0)
    return c + 1.0, b
)", {T({3, 4})}},
      {"overlapping_slices", R"(
def f(x: torch.Tensor):
    b = x.clone()
    s1 = b[1:4]
    s2 = b[2:5]
    s1.add_(1.0)
    s2.mul_(2.0)
    return s1, s2, b
)", {T({6, 2})}},
      {"write_then_read_other_view", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    b = x.clone()
    t = b.t()
    b[0, :] = y
    return t * 2.0
)", {T({3, 3}), T({3})}},
      {"mutate_input_directly", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    x.add_(y)
    return y * 2.0
)", {T({4, 2}), T({4, 2})}},
      {"mutate_input_through_view", R"(
def f(x: torch.Tensor):
    x[1:, 0] = 7.0
    return x.sum()
)", {T({4, 3})}},
      {"mutate_two_inputs", R"(
def f(a: torch.Tensor, b: torch.Tensor):
    b[0] = a[0]
    a.zero_()
    return a + b
)", {T({2, 3}), T({2, 3})}},
      {"augmented_subscript", R"(
def f(x: torch.Tensor, z: torch.Tensor):
    b = x.clone()
    b[:, :, 1, :] += z
    return b
)", {T({2, 3, 4, 2}), T({2, 3, 2})}},
      {"transpose_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    t = b.transpose(0, 1)
    t[0] = 5.0
    return b
)", {T({3, 4})}},
      {"permute_unsqueeze_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    p = b.permute(2, 0, 1).unsqueeze(0)
    p[0, 1].relu_()
    return b, p
)", {T({2, 3, 4})}},
      {"view_reshape_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    v = b.view(12)
    r = b.reshape(3, 4)
    v[3:6] = 1.0
    r[2].neg_()
    return b, v, r
)", {T({4, 3})}},
      {"reshape_of_noncontiguous_copies", R"(
def f(x: torch.Tensor):
    b = x.clone()
    r = b.t().reshape(12)
    r[0] = 100.0
    return b, r
)", {T({4, 3})}},
      {"flatten_and_squeeze_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    fl = b.flatten()
    sq = b.squeeze(1)
    fl[0] = 9.0
    sq[1].sigmoid_()
    return b, fl, sq
)", {T({3, 1, 4})}},
      {"narrow_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    n = b.narrow(1, 1, 2)
    n.clamp_(-0.5, 0.5)
    m = b.narrow(0, -2, 2)
    m.add_(10.0)
    return b
)", {T({4, 5})}},
      {"chunk_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    i, f, g, o = b.chunk(4, 1)
    g.tanh_()
    i.sigmoid_()
    return b, o + f
)", {T({2, 8})}},
      {"split_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    parts = b.split(2, 0)
    parts[1].zero_()
    parts[2].fill_(3.0)
    return b, parts[0]
)", {T({5, 3})}},
      {"unbind_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    rows = b.unbind(0)
    rows[0].copy_(rows[2])
    return b, rows[0]
)", {T({3, 4})}},
      {"expand_read_after_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    e = b[0].expand(3, 4)
    b[0, 1] = 42.0
    return e.sum(0)
)", {T({2, 4})}},
      {"contiguous_alias", R"(
def f(x: torch.Tensor):
    b = x.clone()
    c = b.contiguous()
    c[0] = 1.0
    d = b.t().contiguous()
    d[0] = 2.0
    return b, c, d
)", {T({3, 3})}},
      {"int_dtype_inplace", R"(
def f(x: torch.Tensor):
    b = x.clone()
    b.add_(3)
    b[0].mul_(2)
    return b
)", {T({3, 2}, DType::i64)}},
      {"promoting_inplace_casts", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    b = x.clone()
    b.add_(y)
    b.div_(3.0)
    return b
)", {T({2, 3}), T({2, 3}, DType::f64)}},
      {"masked_fill_inplace", R"(
def f(x: torch.Tensor):
    b = x.clone()
    b.masked_fill_(b > 0.0, 0.0)
    b[1].masked_fill_(b[1] < -0.5, 1.0)
    return b
)", {T({3, 4})}},
      {"copy_broadcast_and_cast", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    b = x.clone()
    b[1:].copy_(y)
    return b
)", {T({3, 4}), T({4}, DType::f64)}},
      {"view_used_after_two_writes", R"(
def f(x: torch.Tensor):
    b = x.clone()
    c = b[:, 0]
    b[0] = 1.0
    b[1] = 2.0
    c.mul_(4.0)
    return c, b
)", {T({3, 2})}},
      {"select_negative_index", R"(
def f(x: torch.Tensor):
    b = x.clone()
    b[-1, -1] = 0.0
    b[..., -2] += 1.0
    return b
)", {T({3, 4})}},
      {"step_slice_write", R"(
def f(x: torch.Tensor):
    b = x.clone()
    b[::2] = 0.0
    b[1::2, 1:] *= 2.0
    return b
)", {T({5, 3})}},
      {"chained_inplace", R"(
def f(x: torch.Tensor):
    b = x.clone()
    c = b[1].add_(1.0).mul_(3.0)
    c.sub_(0.5)
    return b, c
)", {T({3, 3})}},
      {"movedim_expand_as_view_as", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    b = x.clone()
    m = b.movedim(0, 2)
    m[0, 0] = 3.0
    v = b.view_as(y)
    v[1] += 1.0
    return b, m, v, b[0, 0].expand_as(y)
)", {T({2, 3, 4}), T({6, 4})}},
      {"returned_view_of_input", R"(
def f(x: torch.Tensor):
    v = x[0]
    v.exp_()
    return v
)", {T({2, 3})}},
  };
}

class StraightLine : public ::testing::TestWithParam<Program> {};

TEST_P(StraightLine, MatchesImperativeBitwise) { checkProgram(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Functionalize, StraightLine, ::testing::ValuesIn(straightLinePrograms()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace stitch::functionalize_test
